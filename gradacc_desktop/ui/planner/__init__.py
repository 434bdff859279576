"""The "Planejar execução" (plan a run) view."""

from gradacc_desktop.ui.planner.view import PlannerView, create_planner

__all__ = ["PlannerView", "create_planner"]
