"""The "Estimar…" dialog: other memory per GPU from the model size and training recipe."""

from __future__ import annotations

from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from gradacc_desktop.core.memory import Recipe, ZeroStage
from gradacc_desktop.ui.spinboxes import NumberField
from gradacc_desktop.ui.wheel import guard_wheel
from gradacc_desktop.viewmodels.other_memory import (
    MemoryField,
    OtherMemoryState,
    OtherMemoryViewModel,
)


class OtherMemoryDialog(QDialog):
    def __init__(self, vm: OtherMemoryViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("other_memory_dialog")
        self._vm = vm
        self._quiet = True
        self.parameters = NumberField(vm.number_input(MemoryField.PARAMETERS), self)
        self.recipe = QComboBox(self)
        self.fraction = NumberField(vm.number_input(MemoryField.TRAINABLE_FRACTION), self)
        self.zero = QComboBox(self)
        self.overhead = NumberField(vm.number_input(MemoryField.OVERHEAD), self)
        self.boxes = {
            MemoryField.PARAMETERS: self.parameters,
            MemoryField.TRAINABLE_FRACTION: self.fraction,
            MemoryField.OVERHEAD: self.overhead,
        }
        for field, box in self.boxes.items():
            box.setObjectName(f"memory_{field.value}")
            box.setLocale(vm.locale)
            box.set_text(vm.display_text(field))

            def forward(text: str, f: MemoryField = field) -> None:
                if not self._quiet:
                    self._vm.set_text(f, text)

            box.textChanged.connect(forward)
        self.labels = {
            key: QLabel(self) for key in ("parameters", "recipe", "fraction", "zero", "overhead")
        }
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for key, widget in (
            ("parameters", self.parameters),
            ("recipe", self.recipe),
            ("fraction", self.fraction),
            ("zero", self.zero),
            ("overhead", self.overhead),
        ):
            self.labels[key].setBuddy(widget)
            form.addRow(self.labels[key], widget)

        self.breakdown = QGroupBox(self)
        self.breakdown_form = QFormLayout(self.breakdown)
        self.rows: list[tuple[QLabel, QLabel]] = []
        for _ in range(5):
            name, value = QLabel(self.breakdown), QLabel(self.breakdown)
            value.setAlignment(Qt.AlignmentFlag.AlignRight)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.breakdown_form.addRow(name, value)
            self.rows.append((name, value))
        self.states = self._note("memory_states")
        self.total = self._note("memory_total")
        font = self.total.font()
        font.setBold(True)
        self.total.setFont(font)
        self.sharding = self._note("memory_sharding")
        self.source = self._note("memory_source")
        self.problems = self._note("memory_problems")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.breakdown)
        for label in (self.states, self.total, self.sharding, self.source, self.problems):
            layout.addWidget(label)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        guard_wheel(self.recipe, self.zero)
        self.recipe.currentIndexChanged.connect(self._on_recipe)
        self.zero.currentIndexChanged.connect(self._on_zero)
        vm.stateChanged.connect(self.show_state)
        self.retranslate()
        self._quiet = False
        vm.refresh()
        self.setMinimumWidth(520)

    def _note(self, name: str) -> QLabel:
        label = QLabel(self)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def retranslate(self) -> None:
        vm = self._vm
        self.setWindowTitle(self.tr("Estimate other memory per GPU"))
        self.labels["parameters"].setText(vm.field_label(MemoryField.PARAMETERS, True))
        self.labels["fraction"].setText(vm.field_label(MemoryField.TRAINABLE_FRACTION, True))
        self.labels["overhead"].setText(vm.field_label(MemoryField.OVERHEAD, True))
        self.labels["recipe"].setText(vm.recipe_label(True))
        self.labels["zero"].setText(vm.zero_label(True))
        for field, box in self.boxes.items():
            box.setAccessibleName(vm.field_label(field))
            box.setToolTip(vm.field_hint(field))
        self.recipe.setAccessibleName(vm.recipe_label())
        self.zero.setAccessibleName(vm.zero_label())
        quiet, self._quiet = self._quiet, True
        self.recipe.clear()
        for recipe, text in vm.recipe_options():
            self.recipe.addItem(text, recipe.value)
        self.recipe.setCurrentIndex(self.recipe.findData(vm.recipe.value))
        self.zero.clear()
        for stage, text in vm.zero_options():
            self.zero.addItem(text, int(stage))
        self.zero.setCurrentIndex(self.zero.findData(int(vm.zero_stage)))
        self._quiet = quiet
        self.breakdown.setTitle(self.tr("Bytes per parameter on one GPU"))
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

    def _on_recipe(self, index: int) -> None:
        if not self._quiet and index >= 0:
            self._vm.set_recipe(Recipe(self.recipe.itemData(index)))

    def _on_zero(self, index: int) -> None:
        if not self._quiet and index >= 0:
            self._vm.set_zero_stage(ZeroStage(self.zero.itemData(index)))

    def show_state(self, state: OtherMemoryState) -> None:
        lora = self._vm.recipe is Recipe.LORA
        self.fraction.setEnabled(lora)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        view = state.results
        ok.setEnabled(view is not None)
        self.problems.setText("\n".join(state.problems))
        self.problems.setVisible(bool(state.problems))
        for widget in (self.breakdown, self.states, self.total, self.sharding, self.source):
            widget.setVisible(view is not None)
        if view is None:
            return
        for (name, value), (text, amount) in zip(self.rows, view.rows, strict=True):
            name.setText(text)
            value.setText(amount)
        self.states.setText(view.states)
        self.total.setText(view.total)
        self.sharding.setText(view.sharding)
        self.source.setText(self.tr("Source: {source}").format(source=view.source))

    def accept(self) -> None:
        if self._vm.apply():
            super().accept()
