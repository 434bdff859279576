"""Pure-Python core: inputs, formulas, validation. Never imports Qt."""
