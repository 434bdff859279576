"""Where one optimizer step's time goes, drawn: a stacked bar of the parts and a legend
that lists each part with its seconds and share — in two columns when the card is wide
enough, one under the other when it is not. What the parts say comes from the
view-model (``TimePart``); this module only picks their colours and lays them out."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPaintEvent, QPen, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from gradacc_desktop.core.time import PART_NAMES
from gradacc_desktop.viewmodels.planner import TimePart

#: one colour per part, distinct on light and dark palettes (Tableau 10, reordered);
#: the bubble is idle time: grey, hatched
PART_COLOURS = {
    "matmul": "#4e79a7",
    "expert_matmul": "#2f5f8a",
    "attention": "#59a14f",
    "memory": "#f28e2b",
    "permutation": "#c9731c",
    "overhead": "#bab0ac",
    "measured": "#76b7b2",
    "tensor_parallel": "#e15759",
    "pipeline": "#ff9da7",
    "expert_parallel": "#9c755f",
    "context_parallel": "#d37295",
    "data_parallel": "#b07aa1",
    "offload": "#edc948",
    "bubble": "#8c8c8c",
    "optimizer": "#1f9e89",
    "framework": "#6b6b6b",
}
#: parts drawn hatched (the pipeline's idle slots)
HATCHED = frozenset({"bubble"})
#: the bar's height and a legend swatch's side, in font heights
BAR_HEIGHT = 0.9
SWATCH = 0.7
#: the gap between the legend's two columns (pixels)
COLUMN_GAP = 24
#: the legend's text against the card's (as the description's notes)
LEGEND_FONT = 0.92
#: a name never gets narrower than this (pixels): it wraps down to it
MIN_NAME_WIDTH = 90
#: fewer parts than this stay in one column however wide the card is
TWO_COLUMNS_FROM = 4


def _fill(painter: QPainter, rect: QRectF, key: str) -> None:
    colour = QColor(PART_COLOURS[key])
    painter.fillRect(rect, colour)
    if key in HATCHED:
        painter.fillRect(rect, QBrush(colour.darker(150), Qt.BrushStyle.BDiagPattern))


class Swatch(QWidget):
    """A part's colour in the legend."""

    def __init__(self, key: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key = key
        side = max(8, round(self.fontMetrics().height() * SWATCH))
        self.setFixedSize(side, side)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        _fill(painter, rect, self.key)
        painter.setPen(QPen(self.palette().color(self.foregroundRole()), 0.5))
        painter.drawRect(rect)


class StepBar(QWidget):
    """The step as one bar, each part as long as its share of the time."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("plan_time_bar")
        self._parts: tuple[TimePart, ...] = ()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_parts(self, parts: tuple[TimePart, ...]) -> None:
        self._parts = parts
        self.setToolTip("\n".join(f"{p.name}: {p.seconds} ({p.share})" for p in parts))
        self.update()

    def parts(self) -> tuple[TimePart, ...]:
        return self._parts

    def sizeHint(self) -> QSize:
        return QSize(240, max(10, round(self.fontMetrics().height() * BAR_HEIGHT)))

    def minimumSizeHint(self) -> QSize:
        return QSize(60, self.sizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        frame = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        left, width = frame.left(), frame.width()
        for part in self._parts:
            length = width * part.fraction
            _fill(painter, QRectF(left, frame.top(), length, frame.height()), part.key)
            left += length
        painter.setPen(QPen(self.palette().color(self.foregroundRole()), 0.5))
        painter.drawRect(frame)


class PartsLegend(QWidget):
    """Each part of the step: its colour, name, seconds and share, one row each, in two
    columns (read down, then across) when they fit side by side. The rows are placed by
    hand: a layout of its own would hide the legend's height-for-width from the card."""

    SPACING = 8
    ROW_GAP = 0

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("plan_time_parts")
        self.rows: dict[str, tuple[Swatch, QLabel, QLabel, QLabel]] = {}
        for key in PART_NAMES:
            name = self._label(f"plan_time_part_{key}")
            seconds = self._label(f"plan_time_part_{key}_seconds", right=True)
            share = self._label(f"plan_time_part_{key}_share", right=True)
            self.rows[key] = (Swatch(key, self), name, seconds, share)
            for widget in self.rows[key]:
                widget.hide()
        self._shown: list[str] = []
        self._columns = 1
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def _label(self, name: str, right: bool = False) -> QLabel:
        label = QLabel(self)
        label.setObjectName(name)
        font = label.font()
        font.setPointSizeF(font.pointSizeF() * LEGEND_FONT)
        label.setFont(font)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if right:
            label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        else:  # a name wraps in a narrow legend
            label.setWordWrap(True)
            label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        return label

    # -- what it shows ------------------------------------------------------------------
    def set_parts(self, parts: tuple[TimePart, ...]) -> None:
        by_key = {p.key: p for p in parts}
        for key, (swatch, name, seconds, share) in self.rows.items():
            part = by_key.get(key)
            shown = part is not None
            if part is not None:
                name.setText(part.name)
                seconds.setText(part.seconds)
                share.setText(part.share)
                swatch.setAccessibleName(part.name)
            for widget in (swatch, name, seconds, share):
                widget.setVisible(shown)
        self._shown = [p.key for p in parts]
        self._place()
        self.updateGeometry()

    def shown(self) -> list[str]:
        return list(self._shown)

    @property
    def columns(self) -> int:
        return self._columns

    # -- layout -------------------------------------------------------------------------
    def _cell_widths(self) -> list[int]:
        """The widest swatch, name (on one line), seconds and share of the parts shown."""
        widths = [0, 0, 0, 0]
        for key in self._shown:
            swatch, name, seconds, share = self.rows[key]
            widths[0] = max(widths[0], swatch.width())  # fixed size, no size hint
            # a wrapping label's hint is not its one line: measure the line
            line = name.fontMetrics().horizontalAdvance(name.text()) + 2 * name.margin() + 2
            widths[1] = max(widths[1], line)
            widths[2] = max(widths[2], seconds.sizeHint().width())
            widths[3] = max(widths[3], share.sizeHint().width())
        return widths

    def _column_width(self) -> int:
        return sum(self._cell_widths()) + 3 * self.SPACING

    def _line_height(self) -> int:
        heights = [w.sizeHint().height() for key in self._shown for w in self.rows[key][2:]]
        return max(heights, default=0)

    def _columns_for(self, width: int) -> int:
        if len(self._shown) < TWO_COLUMNS_FROM:
            return 1
        return 2 if width >= 2 * self._column_width() + COLUMN_GAP else 1

    def _name_width(self, width: int, columns: int) -> int:
        """The names' column: their widest line, or what a narrow legend leaves them
        (they wrap then)."""
        swatch, name, seconds, share = self._cell_widths()
        if columns == 2:
            return name
        room = width - swatch - seconds - share - 3 * self.SPACING
        return max(MIN_NAME_WIDTH, min(name, room))

    def _rows(self, width: int) -> tuple[int, int, list[int]]:
        """(columns, the names' width, each shown row's height) at ``width``."""
        columns = self._columns_for(width)
        name_width = self._name_width(width, columns)
        line = self._line_height()
        heights = [max(line, self.rows[key][1].heightForWidth(name_width)) for key in self._shown]
        return columns, name_width, heights

    def _height(self, width: int) -> int:
        columns, _name, heights = self._rows(width)
        if not heights:
            return 0
        per_column = math.ceil(len(heights) / columns)
        return max(
            sum(heights[start : start + per_column]) + (per_column - 1) * self.ROW_GAP
            for start in range(0, len(heights), per_column)
        )

    def _place(self) -> None:
        """Each shown row where it goes at the legend's width."""
        columns, name_w, heights = self._rows(self.width())
        self._columns = columns
        if not self._shown:
            return
        per_column = math.ceil(len(self._shown) / columns)
        swatch_w, _name, seconds_w, share_w = self._cell_widths()
        line = self._line_height()
        second = max(self._column_width() + COLUMN_GAP, self.width() // 2)
        top = 0
        for index, key in enumerate(self._shown):
            if index == per_column:
                top = 0
            left = 0 if index < per_column else second
            height = heights[index]
            swatch, name, seconds, share = self.rows[key]
            swatch.move(left, top + (line - swatch.height()) // 2)
            left += swatch_w + self.SPACING
            name.setGeometry(left, top, name_w, height)
            left += name_w + self.SPACING
            seconds.setGeometry(left, top, seconds_w, line)
            left += seconds_w + self.SPACING
            share.setGeometry(left, top, share_w, line)
            top += height + self.ROW_GAP

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        before = self._columns
        self._place()
        if self._columns != before:
            self.updateGeometry()

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._height(width)

    def sizeHint(self) -> QSize:
        columns = 2 if len(self._shown) >= TWO_COLUMNS_FROM else 1
        width = columns * self._column_width() + (COLUMN_GAP if columns == 2 else 0)
        return QSize(width, self._height(max(self.width(), 1)))

    def minimumSizeHint(self) -> QSize:
        swatch, name, seconds, share = self._cell_widths()
        narrowest = swatch + min(name, MIN_NAME_WIDTH) + seconds + share + 3 * self.SPACING
        return QSize(narrowest, self._height(max(self.width(), narrowest)))
