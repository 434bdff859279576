"""The collapsible "Detalhes" panel: the seed's explanations, recomputed example and FAQ."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QWidget

from gradacc_desktop.ui.collapsible import CollapsibleBox
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.details import DetailsContent

if TYPE_CHECKING:  # built when the panel first opens
    from PySide6.QtWidgets import QTextBrowser

RENDER_DELAY_MS = 80


class DetailsPanel(CollapsibleBox):
    """Closed, it is its toggle alone: the document's browser is built when the panel
    first opens (or its text is asked for), not at start-up."""

    def __init__(self, vm: CalculatorViewModel, parent: QWidget | None = None) -> None:
        super().__init__(None, parent)
        self._browser: QTextBrowser | None = None
        self._content = DetailsContent(vm, self)
        self._stale = True
        # The long document is re-laid out after typing pauses, not on every keystroke:
        # the results pane stays instant while the panel is open.
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_DELAY_MS)
        self._render_timer.timeout.connect(self._render)
        vm.stateChanged.connect(self._invalidate)
        self.toggled.connect(self._render_if_open)
        self.retranslate()

    @property
    def browser(self) -> QTextBrowser:
        if self._browser is None:
            from PySide6.QtWidgets import QTextBrowser

            browser = self._browser = QTextBrowser()
            browser.setObjectName("details_text")
            browser.setOpenExternalLinks(False)
            # a caret to select with Shift and the arrows, as with the mouse (Qt's
            # browser selects with the mouse only)
            browser.setTextInteractionFlags(
                browser.textInteractionFlags() | Qt.TextInteractionFlag.TextSelectableByKeyboard
            )
            browser.setMinimumHeight(220)
            browser.setAccessibleName(self._content.toggle_label())
            self.set_body(browser)
            self.setTabOrder(self.toggle, browser)  # Tab from the toggle into the text
        return self._browser

    def _on_toggled(self, opened: bool) -> None:
        if opened:
            _ = self.browser  # built before it is shown
        super()._on_toggled(opened)

    def _render_if_open(self, opened: bool) -> None:
        if opened:
            self._render()

    def retranslate(self) -> None:
        self.set_title(self._content.toggle_label())
        if self._browser is not None:
            self._browser.setAccessibleName(self._content.toggle_label())
        self._invalidate()

    def text(self) -> str:
        """The panel's plain text as the user reads it (renders if needed)."""
        self._render()
        return self.browser.toPlainText()

    def _invalidate(self, *_args: object) -> None:
        self._stale = True
        if self.is_open():
            self._render_timer.start()

    def _render(self) -> None:
        """Build the HTML only when the panel is open: typing stays cheap while it is closed."""
        self._render_timer.stop()
        if not self._stale:
            return
        bar = self.browser.verticalScrollBar()
        position = bar.value()
        self.browser.setHtml(self._content.html())
        bar.setValue(position)
        self._stale = False
