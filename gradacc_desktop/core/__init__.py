"""Pure-Python core: inputs, formulas, validation. Never imports Qt.

The seed calculator, number reading, limits and texts sit here; the rest is grouped by
domain (``memory``, ``time``, ``batch``, ``frameworks``), with ``training`` and
``scenario`` above them (docs/ARCHITECTURE.md, "The core's floor plan")."""
