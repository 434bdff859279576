"""The "Treino" tab: training setup, each framework's files, and "check my config"."""

from gradacc_desktop.ui.trainer.page import TrainerPage

__all__ = ["TrainerPage"]
