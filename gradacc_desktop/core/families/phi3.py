"""Family profile (to be written)."""

MODEL_TYPES: tuple[str, ...] = ()
