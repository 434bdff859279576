"""The planner's verdict labels are the app's (``ui.verdict``), shared with the calculator."""

from gradacc_desktop.ui.verdict import BAD_MARK, GOOD_MARK, VerdictLabel, verdict_colour

__all__ = ["BAD_MARK", "GOOD_MARK", "VerdictLabel", "verdict_colour"]
