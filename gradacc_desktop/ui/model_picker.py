"""The model choice: a combo box whose list is grouped under family headings and
narrows as the user types.

Closed, it is the panel's other combo boxes: it elides its text, Up and Down walk the
models (a heading is never current), the wheel is guarded like theirs. A click, Alt+Down,
F4 or Space opens its list, and a letter or digit typed on it opens the list with that
text in a filter line at the top: every word typed must be part of a model's label,
name or size (``picking.matches``), the headings of the families left stay above them.
Up and Down walk what is left, Enter or a click picks, Esc closes the list and keeps
the model that was chosen. The typed text is never the choice: a text that matches
nothing says so and picks nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import QFont, QHideEvent, QKeyEvent, QPainter, QPalette, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QLabel,
    QLineEdit,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.ui.combo import ElidingComboBox
from gradacc_desktop.viewmodels.training.picking import Heading, matches
from gradacc_desktop.viewmodels.training.texts import TrainingTexts

#: the item roles the picker adds: a heading's mark, a model's size
HEADING_ROLE = Qt.ItemDataRole.UserRole + 1
SIZE_ROLE = Qt.ItemDataRole.UserRole + 2
#: how far a model stands in from its family's heading, and the gap before its size
INDENT = 14
GAP = 16
#: the rows the open list shows at most
ROWS = 16

Index = QModelIndex | QPersistentModelIndex


class ModelPicker(ElidingComboBox):
    """The combo box of ``Choice.MODEL``; ``texts`` gives the words of the moment."""

    def __init__(self, texts: Callable[[], TrainingTexts], parent: QWidget | None = None):
        super().__init__(parent)
        self._texts = texts
        self.popup = PickerPopup(self)
        self.model().rowsInserted.connect(self._mark_rows)

    def _mark_rows(self, _parent: Index, first: int, last: int) -> None:
        """A heading row is shown but can be neither current nor picked; a model row
        carries its size for the list and the filter."""
        model = self.model()
        assert isinstance(model, QStandardItemModel)
        for row in range(first, last + 1):
            item = model.item(row)
            data = item.data(Qt.ItemDataRole.UserRole)
            if isinstance(data, Heading):
                item.setFlags(Qt.ItemFlag.NoItemFlags)
                item.setData(True, HEADING_ROLE)
            elif isinstance(data, str):
                item.setData(self._texts().model_size(data), SIZE_ROLE)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        text = event.text()
        plain = not (
            event.modifiers()
            & (
                Qt.KeyboardModifier.ControlModifier
                | Qt.KeyboardModifier.AltModifier
                | Qt.KeyboardModifier.MetaModifier
            )
        )
        if plain and text and text.isprintable() and not text.isspace():
            if self.popup.isVisible():  # a key that came before the list had the keyboard
                self.popup.filter.insert(text)
            else:
                self.popup.open_with(text)
            return
        super().keyPressEvent(event)

    def showPopup(self) -> None:
        self.popup.open_with("")

    def hidePopup(self) -> None:
        self.popup.hide()

    def texts(self) -> TrainingTexts:
        return self._texts()


class PickerPopup(QFrame):
    """The picker's open list: the filter line above the rows of the combo's model."""

    def __init__(self, combo: ModelPicker) -> None:
        super().__init__(combo, Qt.WindowType.Popup)
        self.setObjectName("model_picker_popup")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        # a click on the picker itself closes the list, as Qt's own combo box does, and
        # does not open it again
        self.setAttribute(Qt.WidgetAttribute.WA_NoMouseReplay)
        self.filter = QLineEdit(self)
        self.filter.setObjectName("model_picker_filter")
        self.filter.setClearButtonEnabled(True)
        self.nothing = QLabel(self)
        self.nothing.setObjectName("model_picker_nothing")
        self.nothing.setWordWrap(True)
        self.nothing.hide()
        self.list = QListView(self)
        self.list.setObjectName("model_picker_list")
        self.list.setModel(combo.model())
        self.list.setItemDelegate(RowDelegate(self.list))
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay in the filter
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setMouseTracking(True)
        self.list.setUniformItemSizes(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(3, 3, 3, 3)
        layout.setSpacing(3)
        layout.addWidget(self.filter)
        layout.addWidget(self.nothing)
        layout.addWidget(self.list, 1)
        self.filter.textChanged.connect(self._narrow)
        self.filter.installEventFilter(self)
        self.list.clicked.connect(self._pick)
        self.list.entered.connect(self._hover)

    @property
    def combo(self) -> ModelPicker:
        """The picker this list belongs to (its parent: no reference cycle to keep it)."""
        combo = self.parentWidget()
        assert isinstance(combo, ModelPicker)
        return combo

    # -- opening and closing --------------------------------------------------------
    def open_with(self, typed: str) -> None:
        t = self.combo.texts()
        self.filter.setPlaceholderText(t.model_filter_hint())
        self.filter.setAccessibleName(t.model_filter_name())
        self.list.setAccessibleName(t.model_list_name())
        self._narrow("")  # every row: the width fits the longest
        self.setGeometry(self._place())
        self.filter.setText(typed)  # narrows again, and puts the first match current
        if not typed:
            self.list.setCurrentIndex(self.combo.model().index(self.combo.currentIndex(), 0))
        self.show()
        self.filter.setFocus(Qt.FocusReason.PopupFocusReason)
        self.list.scrollTo(self.list.currentIndex(), QAbstractItemView.ScrollHint.PositionAtCenter)

    def _place(self) -> QRect:
        """Below the combo box (above it when the screen ends first), as wide as the
        longest row, within the screen."""
        combo = self.combo
        model = combo.model()
        row = self.list.sizeHintForRow(0) if model.rowCount() else self.fontMetrics().height()
        frame = 2 * self.frameWidth() + 6
        scroll = self.list.verticalScrollBar().sizeHint().width()
        width = max(combo.width(), self.list.sizeHintForColumn(0) + scroll + frame + 4)
        height = (
            self.filter.sizeHint().height()
            + min(ROWS, max(model.rowCount(), 1)) * row
            + 2 * self.list.frameWidth()
            + frame
            + 3
        )
        screen = combo.screen().availableGeometry()
        width = min(width, screen.width())
        below = combo.mapToGlobal(QPoint(0, combo.height()))
        above = combo.mapToGlobal(QPoint(0, 0)).y()
        if below.y() + height <= screen.bottom() or below.y() - screen.top() > above:
            top = below.y()
            height = min(height, screen.bottom() - top)
        else:
            height = min(height, above - screen.top())
            top = above - height
        left = max(screen.left(), min(below.x(), screen.right() - width))
        return QRect(left, top, width, height)

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.filter.clear()
        self.combo.setFocus(Qt.FocusReason.PopupFocusReason)

    # -- the filter -------------------------------------------------------------------
    def _narrow(self, typed: str) -> None:
        """Show the rows that match ``typed`` and the headings above them; the first
        model left becomes current."""
        model = self.combo.model()
        heading: int | None = None
        kept_under = False
        first: int | None = None
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            if index.data(HEADING_ROLE):
                if heading is not None:
                    self.list.setRowHidden(heading, bool(typed) and not kept_under)
                heading, kept_under = row, False
                continue
            data = index.data(Qt.ItemDataRole.UserRole)
            keep = matches(
                typed,
                str(index.data(Qt.ItemDataRole.DisplayRole) or ""),
                data if isinstance(data, str) else "",
                str(index.data(SIZE_ROLE) or ""),
            )
            self.list.setRowHidden(row, not keep)
            kept_under = kept_under or keep
            if keep and first is None:
                first = row
        if heading is not None:
            self.list.setRowHidden(heading, bool(typed) and not kept_under)
        if typed and first is not None:
            self.list.setCurrentIndex(model.index(first, 0))
            self.list.scrollTo(model.index(first, 0))
        self.nothing.setVisible(bool(typed) and first is None)
        if typed and first is None:
            self.nothing.setText(self.combo.texts().no_model_matches(typed.strip()))
            self.list.setCurrentIndex(QModelIndex())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is not self.filter or event.type() != QEvent.Type.KeyPress:
            return False
        assert isinstance(event, QKeyEvent)
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._pick(self.list.currentIndex())
            return True
        if key == Qt.Key.Key_Escape:
            self.hide()
            return True
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown):
            QApplication.sendEvent(self.list, event)  # the list walks what is left
            return True
        return False

    # -- picking ----------------------------------------------------------------------
    def _hover(self, index: QModelIndex) -> None:
        if index.flags() & Qt.ItemFlag.ItemIsEnabled:
            self.list.setCurrentIndex(index)

    def _pick(self, index: QModelIndex) -> None:
        """A model row picked (a heading, or nothing left, picks nothing)."""
        if not index.isValid() or self.list.isRowHidden(index.row()):
            return
        if not index.flags() & Qt.ItemFlag.ItemIsEnabled:
            return
        self.hide()
        self.combo.setCurrentIndex(index.row())
        self.combo.activated.emit(index.row())


class RowDelegate(QStyledItemDelegate):
    """A heading in bold; a model stands in under it, its size at the right in a
    quieter colour."""

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        size = super().sizeHint(option, index)
        extra = str(index.data(SIZE_ROLE) or "")
        more = INDENT + (option.fontMetrics.horizontalAdvance(extra) + GAP if extra else 0)
        return QSize(size.width() + more + 8, size.height())

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text, opt.text = opt.text, ""
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        heading = bool(index.data(HEADING_ROLE))
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        palette = opt.palette
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        painter.save()
        font = QFont(opt.font)
        font.setBold(heading)
        painter.setFont(font)
        rect = opt.rect.adjusted(4, 0, -4, 0)
        if not heading and index.row() > 0:
            rect.setLeft(rect.left() + INDENT)
        size = str(index.data(SIZE_ROLE) or "")
        if size:
            quiet = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
            painter.setPen(palette.color(role) if selected else quiet)
            painter.drawText(
                rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, size
            )
            rect.setRight(rect.right() - painter.fontMetrics().horizontalAdvance(size) - GAP)
        painter.setPen(palette.color(QPalette.ColorGroup.Active, role))
        shown = painter.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, shown)
        painter.restore()
