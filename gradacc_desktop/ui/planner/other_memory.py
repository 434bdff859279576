"""The "Estimar…" dialog: other memory per GPU (and CPU memory per node) from the model
size, the training recipe and the planner's setup, as DeepSpeed computes it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import shiboken6
from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.core.lora import BaseFormat
from gradacc_desktop.core.memory import Recipe, ZeroStage
from gradacc_desktop.core.setup import Offload
from gradacc_desktop.ui.drops import accept_file_drag, dropped_file
from gradacc_desktop.ui.file_dialogs import ask_open_path
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.ui.verdict import verdict_colour
from gradacc_desktop.ui.wheel import guard_wheel
from gradacc_desktop.viewmodels.other_memory import (
    LoraTargets,
    MemoryField,
    OtherMemoryState,
    OtherMemoryViewModel,
)

# The form, top to bottom: a number field (MemoryField) or a choice (its key).
FORM: tuple[MemoryField | str, ...] = (
    MemoryField.PARAMETERS,
    "recipe",
    "model",
    MemoryField.LORA_RANK,
    "targets",
    "base",
    MemoryField.TRAINABLE_FRACTION,
    "zero",
    "offload",
    MemoryField.LARGEST_LAYER,
    MemoryField.OVERHEAD,
)
LORA_ROWS: frozenset[MemoryField | str] = frozenset({"model", "targets", "base"})


class OtherMemoryDialog(QDialog):
    def __init__(self, vm: OtherMemoryViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("other_memory_dialog")
        self._vm = vm
        self._quiet = True
        self.boxes: dict[MemoryField, NumberField] = {}
        self.combos: dict[str, QComboBox] = {}
        self.labels: dict[MemoryField | str, QLabel] = {}
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for key in FORM:
            label = QLabel(self)
            widget: QWidget
            if isinstance(key, MemoryField):
                box = NumberField(vm.number_input(key), self)
                box.setObjectName(f"memory_{key.value}")
                box.setLocale(vm.locale)
                if key is MemoryField.LARGEST_LAYER:
                    box.lineEdit().setPlaceholderText("—")
                box.set_text(vm.display_text(key))

                def forward(text: str, f: MemoryField = key) -> None:
                    # a field may still speak while the window tears down
                    if not self._quiet and shiboken6.isValid(self._vm):
                        self._vm.set_text(f, text)

                box.textChanged.connect(forward)
                self.boxes[key] = box
                widget = box
            else:
                combo = QComboBox(self)
                combo.setObjectName(f"memory_{key}")
                combo.currentIndexChanged.connect(self._on_choice)
                self.combos[key] = combo
                widget = combo
            label.setBuddy(widget)
            self.labels[key] = label
            self.form.addRow(label, widget)
        # the exact count from a model's config.json (the button, or a file dropped here)
        self.open_config = QPushButton(self)
        self.open_config.setObjectName("memory_open_config")
        self.open_config.clicked.connect(self._ask_config)
        self.config_note = QLabel(self)
        self.config_note.setObjectName("memory_config_note")
        self.config_note.setWordWrap(True)
        self.form.insertRow(1, "", self.open_config)
        self.form.insertRow(2, "", self.config_note)
        self.setAcceptDrops(True)
        # compatibility names used by the planner view and its tests
        self.parameters = self.boxes[MemoryField.PARAMETERS]
        self.fraction = self.boxes[MemoryField.TRAINABLE_FRACTION]
        self.overhead = self.boxes[MemoryField.OVERHEAD]
        self.recipe = self.combos["recipe"]
        self.zero = self.combos["zero"]

        self.breakdown = QGroupBox(self)
        self.grid = QGridLayout(self.breakdown)
        self.rows: list[tuple[QLabel, QLabel, QLabel]] = []
        self.lora = self._note("memory_lora")
        self.states = self._note("memory_states")
        self.total = self._note("memory_total")
        font = self.total.font()
        font.setBold(True)
        self.total.setFont(font)
        self.cpu = self._note("memory_cpu")
        self.sharding = self._note("memory_sharding")
        self.source = self._note("memory_source")
        self.problems = self._note("memory_problems")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.lora)
        layout.addWidget(self.breakdown)
        for label in (
            self.states,
            self.total,
            self.cpu,
            self.sharding,
            self.source,
            self.problems,
        ):
            layout.addWidget(label)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        guard_wheel(*self.combos.values())
        vm.stateChanged.connect(self.show_state)
        self.retranslate()
        self._show_fields()
        self._quiet = False
        vm.refresh()
        self.setMinimumWidth(560)

    def _note(self, name: str) -> QLabel:
        label = QLabel(self)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def _choices(self) -> dict[str, tuple[Callable[[bool], str], list[tuple[object, str]], object]]:
        vm = self._vm
        return {
            "recipe": (
                vm.recipe_label,
                [(r.value, t) for r, t in vm.recipe_options()],
                vm.recipe.value,
            ),
            "model": (vm.model_label, list(vm.model_options()), vm.model),
            "targets": (
                vm.targets_label,
                [(t.value, text) for t, text in vm.target_options()],
                vm.lora_targets.value,
            ),
            "base": (
                vm.base_label,
                [(b.value, text) for b, text in vm.base_options()],
                vm.base_format.value,
            ),
            "zero": (
                vm.zero_label,
                [(int(z), t) for z, t in vm.zero_options()],
                int(vm.zero_stage),
            ),
            "offload": (
                vm.offload_label,
                [(o.value, t) for o, t in vm.offload_options()],
                vm.offload.value,
            ),
        }

    def retranslate(self) -> None:
        vm = self._vm
        self.setWindowTitle(self.tr("Estimate other memory per GPU"))
        self.open_config.setText(self.tr("Count from a config.&json…"))
        self.open_config.setToolTip(
            self.tr(
                "The exact parameter count of the model's Hugging Face config.json (or drop "
                "the file on this window). Nothing is downloaded."
            )
        )
        for field, box in self.boxes.items():
            self.labels[field].setText(vm.field_label(field, True))
            box.setAccessibleName(vm.field_label(field))
            box.setToolTip(vm.field_hint(field))
        quiet, self._quiet = self._quiet, True
        for key, (label, options, current) in self._choices().items():
            self.labels[key].setText(label(True))
            combo = self.combos[key]
            combo.setAccessibleName(label(False))
            combo.clear()
            for data, text in options:
                combo.addItem(text, data)
            combo.setCurrentIndex(max(combo.findData(current), 0))
        self._quiet = quiet
        self.breakdown.setTitle(self.tr("Model states on one GPU"))
        self.show_state(vm.state)

    def set_language(self, locale: QLocale) -> None:
        """After the view-model's ``set_language``: the fields re-show their entries in
        ``locale`` and the dialog retranslates."""
        quiet, self._quiet = self._quiet, True
        for field, box in self.boxes.items():
            box.setLocale(locale)
            box.set_text(self._vm.display_text(field))
        self._quiet = quiet
        self.retranslate()

    def _on_choice(self, _index: int) -> None:
        if self._quiet:
            return
        data = {key: combo.currentData() for key, combo in self.combos.items()}
        vm = self._vm
        if isinstance(data["recipe"], str):
            vm.set_recipe(Recipe(data["recipe"]))
        if isinstance(data["model"], str):
            vm.set_model(data["model"])
        if isinstance(data["targets"], str):
            vm.set_lora_targets(LoraTargets(data["targets"]))
        if isinstance(data["base"], str):
            vm.set_base_format(BaseFormat(data["base"]))
        if isinstance(data["zero"], int) and data["zero"] != int(vm.zero_stage):
            vm.set_zero_stage(ZeroStage(data["zero"]))
        if isinstance(data["offload"], str) and data["offload"] != vm.offload.value:
            vm.set_offload(Offload(data["offload"]))
        self._show_fields()

    def _show_fields(self) -> None:
        """Which rows the recipe and the setup need, and what the model's shape fixes."""
        vm = self._vm
        lora = vm.recipe is Recipe.LORA
        shaped = vm.uses_shape()
        visible = {
            MemoryField.LORA_RANK: lora and shaped,
            MemoryField.TRAINABLE_FRACTION: lora and not shaped,
            MemoryField.LARGEST_LAYER: vm.zero_stage is ZeroStage.WEIGHTS,
            **{key: lora for key in LORA_ROWS},
        }
        for key, shown in visible.items():
            self.form.setRowVisible(self.labels[key], shown)
        quiet, self._quiet = self._quiet, True
        self.parameters.setEnabled(not shaped)
        self.parameters.set_text(vm.display_text(MemoryField.PARAMETERS))
        self._quiet = quiet

    def _set_rows(self, count: int) -> None:
        while len(self.rows) < count:
            row = len(self.rows)
            cells = (QLabel(self.breakdown), QLabel(self.breakdown), QLabel(self.breakdown))
            for column, cell in enumerate(cells):
                if column:
                    cell.setAlignment(Qt.AlignmentFlag.AlignRight)
                cell.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                self.grid.addWidget(cell, row, column)
            self.rows.append(cells)
        while len(self.rows) > count:  # a breakdown with fewer parts: drop the rest
            for cell in self.rows.pop():
                self.grid.removeWidget(cell)
                cell.setParent(None)
                cell.deleteLater()

    def show_state(self, state: OtherMemoryState) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        view = state.results
        ok.setEnabled(view is not None)
        self.problems.setText("\n".join(state.problems))
        self.problems.setVisible(bool(state.problems))
        note = state.config_error or state.config_note
        self.config_note.setText(note)
        self.form.setRowVisible(self.config_note, bool(note))
        colour = verdict_colour(self.palette(), ok=False).name()
        self.config_note.setStyleSheet(f"color: {colour};" if state.config_error else "")
        for widget in (
            self.breakdown,
            self.states,
            self.total,
            self.cpu,
            self.sharding,
            self.source,
        ):
            widget.setVisible(view is not None)
        self.lora.setVisible(view is not None and bool(view.lora))
        if view is None:
            return
        self.lora.setText(view.lora)
        self._set_rows(len(view.rows))
        last = len(view.rows) - 1
        for index, ((name, gb, per_param), cells) in enumerate(
            zip(view.rows, self.rows, strict=False)
        ):
            for cell, text in zip(cells, (name, gb, per_param), strict=True):
                cell.setText(text)
                font = cell.font()
                font.setBold(index == last)
                cell.setFont(font)
        self.states.setText(view.states)
        self.total.setText(view.total)
        self.cpu.setText(view.cpu)
        self.sharding.setText(view.sharding)
        self.source.setText(self.tr("Source: {source}").format(source=view.source))

    def accept(self) -> None:
        if self._vm.apply():
            super().accept()

    # -- a model's config.json ------------------------------------------------
    def _ask_config(self) -> None:
        path = ask_open_path(
            self,
            self.tr("Open a model's config.json"),
            self.tr("Model configuration (*.json);;All files (*)"),
            None,
        )
        if path is not None:
            self.read_config(path)

    def read_config(self, path: Path) -> bool:
        read = self._vm.open_config(str(path))
        self._show_fields()
        return read

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        accept_file_drag(event)

    def dropEvent(self, event: QDropEvent) -> None:
        path = dropped_file(event)
        if path is not None:
            self.read_config(path)
