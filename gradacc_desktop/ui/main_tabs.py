"""The window's pages under one row of tabs, and the training description beside the
pages that are views of it.

The description is one panel: it stays where it is, with what it shows and where it is
scrolled to, while the user moves between planning, the trainer configs and the chart;
the seed's calculator is a page of its own without it. The panel is built the first
time a page that shows it is shown (start-up pays only for the calculator), and the
user can hide it (and widen the pages) with the toggle at the end of the tabs.

The tabs' API is the part of ``QTabWidget`` the window uses.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTabBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

#: the description's width when first shown (pixels; the user's own width is kept): at
#: most SIDE_WIDTH, a share of a small window, never below MINIMUM_SIDE_WIDTH
SIDE_WIDTH = 340
SIDE_SHARE = 0.36
MINIMUM_SIDE_WIDTH = 270


class MainTabs(QWidget):
    currentChanged = Signal(int)
    #: the description panel was shown or hidden by the user
    sideToggled = Signal(bool)

    def __init__(self, side: Callable[[QWidget], QWidget], parent: QWidget | None = None) -> None:
        """``side`` builds the description panel (once, when first needed)."""
        super().__init__(parent)
        self._side_factory = side
        self._side: QWidget | None = None
        self._described: list[bool] = []
        self._side_wanted = True
        self._tab_bar = QTabBar(self)
        self._tab_bar.setObjectName("main_tab_bar")
        self._tab_bar.setDocumentMode(True)
        self._tab_bar.setExpanding(False)
        self._tab_bar.setDrawBase(False)
        self.toggle = QToolButton(self)
        self.toggle.setObjectName("description_toggle")
        self.toggle.setCheckable(True)
        self.toggle.setChecked(True)
        # a button's frame whether pressed in or not: hidden, the description's way back
        # must not read as a plain label
        self.toggle.setAutoRaise(False)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self._pages = QStackedWidget(self)
        self._pages.setObjectName("main_pages")
        self._side_holder = QWidget(self)
        self._side_holder.setObjectName("description_holder")
        holder = QVBoxLayout(self._side_holder)
        holder.setContentsMargins(0, 0, 0, 0)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("main_splitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self._side_holder)
        self.splitter.addWidget(self._pages)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self._side_holder.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self._tab_bar, 1)
        row.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignBottom)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addLayout(row)
        layout.addWidget(self.splitter, 1)
        self._tab_bar.currentChanged.connect(self._on_current)
        self.toggle.toggled.connect(self.set_side_wanted)

    # -- QTabWidget's API ---------------------------------------------------------
    def addTab(self, widget: QWidget, text: str, described: bool = False) -> int:
        """Add a page; ``described``: the description panel stands beside it."""
        self._pages.addWidget(widget)
        self._described.append(described)
        index = self._tab_bar.addTab(text)
        self._fit_pages()
        self._update_side()
        return index

    def count(self) -> int:
        return self._tab_bar.count()

    def setTabText(self, index: int, text: str) -> None:
        self._tab_bar.setTabText(index, text)

    def tabText(self, index: int) -> str:
        return self._tab_bar.tabText(index)

    def currentIndex(self) -> int:
        return self._tab_bar.currentIndex()

    def setCurrentIndex(self, index: int) -> None:
        self._tab_bar.setCurrentIndex(index)

    def currentWidget(self) -> QWidget | None:
        return self._pages.currentWidget()

    def setCurrentWidget(self, widget: QWidget) -> None:
        index = self._pages.indexOf(widget)
        if index >= 0:
            self._tab_bar.setCurrentIndex(index)

    def indexOf(self, widget: QWidget) -> int:
        return self._pages.indexOf(widget)

    def widget(self, index: int) -> QWidget | None:
        return self._pages.widget(index)

    # -- the description panel -------------------------------------------------------
    @property
    def side(self) -> QWidget | None:
        """The description panel if it exists already (never builds it)."""
        return self._side

    def side_panel(self) -> QWidget:
        """The description panel, built now if needed."""
        if self._side is None:
            self._side = self._side_factory(self._side_holder)
            layout = self._side_holder.layout()
            assert layout is not None
            layout.addWidget(self._side)
        return self._side

    def set_side_wanted(self, wanted: bool) -> None:
        """Show or hide the panel beside the pages that have it (the user's choice)."""
        if wanted != self._side_wanted:
            self._side_wanted = wanted
            self.toggle.setChecked(wanted)
            self._update_side()
            self.sideToggled.emit(wanted)

    def toggle_side(self) -> None:
        """F9: hide or show the description beside a tab that reads it."""
        if self.toggle.isVisible():
            self.toggle.click()

    def _on_current(self, index: int) -> None:
        self._pages.setCurrentIndex(index)
        self._fit_pages()
        self._update_side()
        self.currentChanged.emit(index)

    def _fit_pages(self) -> None:
        """Only the page shown asks for room: a stack is otherwise as large as its
        largest page (the calculator would widen the planner beside the panel)."""
        current = self._pages.currentIndex()
        for i in range(self._pages.count()):
            page = self._pages.widget(i)
            if page is None:
                continue
            kind = QSizePolicy.Policy.Preferred if i == current else QSizePolicy.Policy.Ignored
            page.setSizePolicy(kind, kind)
        self._pages.updateGeometry()

    def _update_side(self) -> None:
        index = self._tab_bar.currentIndex()
        described = 0 <= index < len(self._described) and self._described[index]
        self.toggle.setVisible(described)
        show = described and self._side_wanted
        if show and self._side is None:
            self.side_panel()
            side = max(MINIMUM_SIDE_WIDTH, min(SIDE_WIDTH, int(self.width() * SIDE_SHARE)))
            self.splitter.setSizes([side, max(self.width() - side, side)])
        self._side_holder.setVisible(show)
