"""One training described once, and everything derived from it: the memory figures
(``figures``), the plan (``plan``), what would fit when nothing does (``alternatives``)
and the best setup for a number of GPUs (``search``)."""
