"""A tab page whose content is built the first time it is needed.

Start-up only pays for the calculator; the planner and the chart (QtCharts)
are imported and built when their tab is first shown or an action needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget

W = TypeVar("W", bound=QWidget)


class LazyPage(QWidget, Generic[W]):
    def __init__(
        self,
        factory: Callable[[QWidget], W],
        object_name: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self._factory = factory
        self._content: W | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    @property
    def built(self) -> W | None:
        """The content if it exists already (never builds it)."""
        return self._content

    def content(self) -> W:
        """The content, built now if needed."""
        if self._content is None:
            self._content = self._factory(self)
            self._layout.addWidget(self._content)
        return self._content

    def showEvent(self, event: QShowEvent) -> None:
        self.content()
        super().showEvent(event)
