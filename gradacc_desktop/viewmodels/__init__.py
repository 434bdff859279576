"""View-models: QObjects that hold state, call the core and emit display-ready values."""
