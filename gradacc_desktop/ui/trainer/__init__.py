"""The "Configurações de treino" tab: the exports and "check my config"."""

from gradacc_desktop.ui.trainer.page import TrainerPage

__all__ = ["TrainerPage"]
