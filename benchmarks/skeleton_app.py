"""The app's first window without the app: the floor of its start-up.

The same widgets the calculator tab shows at start-up, built with PySide6 alone —
the menu bar (three menus, their actions and standard shortcuts), the four tabs
(three of them empty, as the app's lazy pages are), the title and subtitle, the two
input groups (four spin boxes with their labels and the estimate button), the
results group (three cards with their big numbers and formulas, the note), the copy
button, the closed Details section (its browser hidden) and the status bar, at the
app's window size — with none of the app's modules, view-models, settings or
translators. benchmarks/run.py times it beside the app and the bare window: what
this costs over the bare window is what the window itself costs on this stack, and
no start-up work of the app's can go below it.

With GRADACC_BENCH_PAINT_FILE set it writes the time of its first paint (through
gradacc_desktop/startup_probe.py, as the app and the bare window do) and quits.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.startup_probe import show_measured

MENUS = {
    "&File": [
        ("&Open training config…", QKeySequence.StandardKey.Open),
        ("&Save scenario…", QKeySequence.StandardKey.Save),
        ("Save scenario &as…", QKeySequence.StandardKey.SaveAs),
        ("&Copy results", QKeySequence.StandardKey.Copy),
        ("&Reset inputs", None),
        ("&Quit", QKeySequence.StandardKey.Quit),
    ],
    "&Language": [("Português (Brasil)", None), ("English", None)],
    "&Help": [("&Help", QKeySequence.StandardKey.HelpContents), ("&About", None)],
}


def card(title: str, number: str, formula: str, big: QFont) -> QFrame:
    frame = QFrame()
    frame.setFrameShape(QFrame.Shape.StyledPanel)
    layout = QVBoxLayout(frame)
    layout.addWidget(QLabel(title))
    value = QLabel(number)
    value.setFont(big)
    value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    layout.addWidget(value)
    layout.addWidget(QLabel(formula))
    return frame


def calculator_tab() -> QWidget:
    page = QWidget()
    content = QWidget()
    column = QVBoxLayout(content)
    title = QLabel("Gradient Accumulation Memory Calculator")
    bold = QFont(title.font())
    bold.setPointSizeF(bold.pointSizeF() * 1.5)
    bold.setBold(True)
    title.setFont(bold)
    column.addWidget(title)
    subtitle = QLabel("Compute the effective batch size reached by gradient accumulation …")
    subtitle.setWordWrap(True)
    column.addWidget(subtitle)

    inputs = QVBoxLayout()
    batches = QGroupBox("Batches")
    form = QFormLayout(batches)
    for text, value in (("&Micro-batch size", 4), ("&Accumulation steps", 8), ("&GPUs", 1)):
        box = QSpinBox()
        box.setRange(1, 1_000_000)
        box.setValue(value)
        box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        label = QLabel(text)
        label.setBuddy(box)
        form.addRow(label, box)
    memory = QGroupBox("Memory")
    form = QFormLayout(memory)
    per_sample = QSpinBox()
    per_sample.setSuffix(" GB")
    per_sample.setValue(1)
    per_sample.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    label = QLabel("Acti&vation per sample")
    label.setBuddy(per_sample)
    form.addRow(label, per_sample)
    form.addRow("", QPushButton("&Estimate from the model…"))
    inputs.addWidget(batches)
    inputs.addWidget(memory)
    inputs.addStretch(1)

    results = QGroupBox("Results")
    cards = QVBoxLayout(results)
    big = QFont(title.font())
    big.setPointSizeF(big.pointSizeF() * 2)
    cards.addWidget(card("Effective batch size", "32", "E = 4 × 8 × 1 = 32", big))
    cards.addWidget(card("Peak activation memory per GPU", "2 GB", "M = 4 × 0.5 GB = 2 GB", big))
    cards.addWidget(card("Samples per GPU per optimizer step (b × a)", "32 = 4 × 8", "", bold))
    note = QLabel("Activation memory depends only on the micro-batch …")
    note.setWordWrap(True)
    cards.addWidget(note)

    body = QHBoxLayout()
    body.addLayout(inputs, 4)
    right = QVBoxLayout()
    right.addWidget(results)
    right.addWidget(QPushButton("&Copy results"), 0, Qt.AlignmentFlag.AlignRight)
    body.addLayout(right, 5)
    column.addLayout(body)
    toggle = QToolButton()
    toggle.setText("Details")
    toggle.setArrowType(Qt.ArrowType.RightArrow)
    toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    column.addWidget(toggle)
    browser = QTextBrowser()
    browser.hide()
    column.addWidget(browser)
    column.addStretch(1)

    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setWidget(content)
    outer = QVBoxLayout(page)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(scroll)
    return page


def build_window() -> QMainWindow:
    window = QMainWindow()
    window.setWindowTitle("skeleton")
    for title, entries in MENUS.items():
        menu = window.menuBar().addMenu(title)
        for text, key in entries:
            action = QAction(text, window)
            if key is not None:
                action.setShortcut(QKeySequence(key))
            menu.addAction(action)
    tabs = QTabWidget()
    tabs.addTab(calculator_tab(), "Calculator")
    for title in ("Plan a run", "Training configs", "Trade-off chart"):
        tabs.addTab(QWidget(), title)
    window.setCentralWidget(tabs)
    window.statusBar()
    window.resize(1100, 780)
    return window


def main() -> int:
    app = QApplication(sys.argv)
    return show_measured(app, build_window())


if __name__ == "__main__":
    sys.exit(main())
