"""Widgets only: they show view-model state and forward user edits."""
