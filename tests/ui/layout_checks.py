"""Checks that a view is readable: no two visible widgets overlap, no text is cut."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QTableView,
    QWidget,
)

from gradacc_desktop.ui.fit_label import FitLabel


def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


def _window_rect(widget: QWidget, window: QWidget) -> QRect:
    """Where ``widget`` is seen in ``window``: its rectangle cut by every ancestor's."""
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        rect = rect.intersected(QRect(parent.mapTo(window, QPoint(0, 0)), parent.size()))
        parent = parent.parentWidget()
    return rect


def _shown_leaves(root: QWidget, window: QWidget) -> Iterator[tuple[QWidget, QRect]]:
    for widget in root.findChildren(QWidget):
        if not widget.isVisible() or widget.isWindow():
            continue
        if any(isinstance(c, QWidget) and c.isVisible() for c in widget.children()):
            continue
        rect = _window_rect(widget, window)
        if not rect.isEmpty():
            yield widget, rect


def _scrolls(widget: QWidget, horizontal: bool) -> bool:
    """Whether a scroll area around ``widget`` lets the user reach what is hidden."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            bar = parent.horizontalScrollBar() if horizontal else parent.verticalScrollBar()
            if bar.isVisible() and bar.maximum() > 0:
                return True
        parent = parent.parentWidget()
    return False


def _clipped(widget: QWidget, window: QWidget) -> str | None:
    """Why part of ``widget`` cannot be seen: an ancestor cuts it with no way to scroll."""
    seen = _window_rect(widget, window)
    if seen.width() < widget.width() and not _scrolls(widget, horizontal=True):
        return f"only {seen.width()} of {widget.width()} px wide can be seen"
    if seen.height() < widget.height() and not _scrolls(widget, horizontal=False):
        return f"only {seen.height()} of {widget.height()} px high can be seen"
    return None


def _describe(widget: QWidget) -> str:
    text = getattr(widget, "text", None)
    shown = text() if callable(text) else ""
    return f"{type(widget).__name__} {widget.objectName()!r} {str(shown)[:40]!r}"


def _cut_text(widget: QWidget) -> str | None:
    """Why the widget's text does not fit in it, or None."""
    if isinstance(widget, QLabel) and widget.text():
        if widget.wordWrap():
            needed = widget.heightForWidth(widget.width())
            if widget.height() < needed:
                return f"{widget.height()} px high, needs {needed} at {widget.width()} wide"
        else:
            hint = widget.sizeHint()
            if widget.width() < hint.width() or widget.height() < hint.height():
                return f"{widget.size().toTuple()} smaller than {hint.toTuple()}"
    if isinstance(widget, QAbstractButton | QComboBox):
        hint = widget.minimumSizeHint()
        if widget.width() < hint.width() or widget.height() < hint.height():
            return f"{widget.size().toTuple()} smaller than {hint.toTuple()}"
    if isinstance(widget, QLineEdit) and widget.text():
        needed = widget.fontMetrics().horizontalAdvance(widget.text()) + 8
        if widget.width() < needed:
            return f"{widget.width()} px wide, text needs {needed}"
    if isinstance(widget, FitLabel):
        return fit_label_cut(widget)
    return None


#: where a label may put its text (``FitLabel``'s alignment)
_ALIGNMENTS = (
    Qt.AlignmentFlag.AlignLeft,
    Qt.AlignmentFlag.AlignRight,
    Qt.AlignmentFlag.AlignHCenter,
)


def _drawn(
    label: FitLabel, shown: QImage, font: QFont, alignment: Qt.AlignmentFlag, background: QColor
) -> QImage:
    """The label's text drawn by hand on an image like ``shown``, as the label draws it,
    in ``font``."""
    image = QImage(shown.size(), shown.format())
    image.setDevicePixelRatio(shown.devicePixelRatio())
    image.fill(background)
    painter = QPainter(image)
    painter.setFont(font)
    painter.setPen(label.palette().color(label.foregroundRole()))
    flags = alignment | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextSingleLine
    painter.drawText(label.contentsRect(), int(flags), label.text())
    painter.end()
    return image


def fit_label_cut(label: FitLabel) -> str | None:
    """Why the label does not show its whole text, or None.

    What it paints must be its whole text in some size of its font that fits its width
    (it shrinks the font to fit): the pixels are compared with the text drawn by hand at
    each such size, so a text cut at the label's edge matches none of them."""
    text = label.text()
    if not text:
        return None
    shown = label.grab().toImage()
    colours = Counter(
        shown.pixel(x, y) for x in range(shown.width()) for y in range(0, shown.height(), 4)
    )
    background = QColor.fromRgb(colours.most_common(1)[0][0])
    width = label.contentsRect().width()
    base = label.font().pointSizeF()
    # the font's own size less whole or half points, and every half point
    sizes = {base - k / 2 for k in range(int(base * 2))} | {k / 2 for k in range(2, int(base * 2))}
    font = QFont(label.font())
    for size in sorted(sizes, reverse=True):
        font.setPointSizeF(size)
        if QFontMetrics(font).horizontalAdvance(text) > width:
            continue
        for alignment in _ALIGNMENTS:
            if _drawn(label, shown, font, alignment, background) == shown:
                return None
    return f"text {text!r} is not shown whole in {width} px"


def layout_problems(view: QWidget, window: QWidget) -> list[str]:
    found = []
    leaves = list(_shown_leaves(view, window))
    for leaf, _rect in leaves:
        reason = _clipped(leaf, window)
        if reason:
            found.append(f"{_describe(leaf)}: {reason}")
    for i, (first, first_rect) in enumerate(leaves):
        for second, second_rect in leaves[i + 1 :]:
            if first_rect.intersects(second_rect):
                found.append(f"{_describe(first)} overlaps {_describe(second)}")
    for widget in [view, *view.findChildren(QWidget)]:
        if not widget.isVisible() or _window_rect(widget, window).isEmpty():
            continue
        reason = _cut_text(widget)
        if reason:
            found.append(f"{_describe(widget)}: {reason}")
        if isinstance(widget, QTableView):
            header = widget.horizontalHeader()
            for column in range(header.count()):
                needed = max(header.sectionSizeHint(column), widget.sizeHintForColumn(column))
                if header.sectionSize(column) < needed:
                    found.append(f"{_describe(widget)}: column {column} cut")
    return found
