"""The "Planejar execução" (plan a run) view."""

from gradacc_desktop.ui.planner.view import PlannerView

__all__ = ["PlannerView"]
