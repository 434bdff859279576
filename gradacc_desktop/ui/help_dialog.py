"""The help window F1 opens for the planner and the chart (the calculator's help is its
Details panel). One instance, non-modal, follows the current tab and the language."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from gradacc_desktop.viewmodels.help import HelpContent, HelpTopic


class HelpDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("help_dialog")
        self.content = HelpContent(self)
        self.topic = HelpTopic.PLANNER
        self.browser = QTextBrowser(self)
        self.browser.setObjectName("help_text")
        self.browser.setOpenExternalLinks(False)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(self.buttons)
        self.resize(560, 480)

    def show_topic(self, topic: HelpTopic) -> None:
        self.topic = topic
        self.retranslate()
        self.show()
        self.raise_()
        self.activateWindow()
        self.browser.setFocus()

    def retranslate(self) -> None:
        self.setWindowTitle(self.content.title(self.topic))
        self.browser.setAccessibleName(self.content.title(self.topic))
        self.browser.setHtml(self.content.html(self.topic))

    def text(self) -> str:
        return self.browser.toPlainText()
