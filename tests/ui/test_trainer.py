"""The "Configurações de treino" tab, driven through its widgets as a user would:
the training setup, each framework's files (preview, copy, save into a folder) and
"check my config" (open or drop a file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget

from gradacc_desktop.core.export import ExportFormat
from gradacc_desktop.core.setup import Offload, Precision, ZeroStage
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.trainer import TrainerPage
from gradacc_desktop.ui.trainer.setup import Choice
from gradacc_desktop.viewmodels.planner import PlanField
from tests.ui.helpers import type_into


def _open(window: MainWindow, qtbot) -> TrainerPage:  # type: ignore[no-untyped-def]
    """The planner set to 512 = 4 × 16 × 8, then the trainer tab."""
    planner = window.planner
    planner.inputs.recommend.setChecked(False)
    type_into(qtbot, planner.inputs.boxes[PlanField.TARGET], "512")
    type_into(qtbot, planner.inputs.boxes[PlanField.GPUS], "8")
    type_into(qtbot, planner.inputs.boxes[PlanField.MICRO_BATCH], "4")
    window.tabs.setCurrentIndex(2)
    page = window.trainer
    QApplication.processEvents()  # a page built while shown is shown on the next loop
    return page


def _tabs(page: TrainerPage) -> list[str]:
    return [page.export.files.tabText(i) for i in range(page.export.files.count())]


@pytest.mark.parametrize(
    ("fmt", "files", "expected"),
    [
        (ExportFormat.DEEPSPEED, ["ds_config.json"], '"gradient_accumulation_steps": 16'),
        (ExportFormat.HF, ["train.py", "launch.sh"], "gradient_accumulation_steps=16,"),
        (
            ExportFormat.HF_DEEPSPEED,
            ["ds_config.json", "train.py", "launch.sh"],
            '"train_batch_size": "auto"',
        ),
        (
            ExportFormat.ACCELERATE,
            ["accelerate_config.yaml", "train.py", "launch.sh"],
            "num_processes: 8",
        ),
        (ExportFormat.LIGHTNING, ["train.py", "launch.sh"], "accumulate_grad_batches=16,"),
        (ExportFormat.TORCHRUN, ["train.py", "launch.sh"], "model.no_sync()"),
        (ExportFormat.MEGATRON, ["megatron_args.sh", "launch.sh"], "--global-batch-size 512"),
    ],
)
def test_each_format_shows_its_files_and_copies_the_one_shown(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, fmt: ExportFormat, files: list[str], expected: str
) -> None:
    page = _open(window, qtbot)
    page.export.set_format(fmt)
    assert _tabs(page) == files
    assert expected in page.export.preview.toPlainText()
    assert page.export.preview.isReadOnly()
    page.export.files.setCurrentIndex(len(files) - 1)
    last = page.export.preview.toPlainText()
    QGuiApplication.clipboard().clear()
    with qtbot.waitSignal(page.statusMessage) as blocker:
        qtbot.mouseClick(page.export.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == last
    assert blocker.args[0].startswith(f"{files[-1]} (")
    assert "copiado" in blocker.args[0]


def test_setup_choices_change_every_export(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    page.export.set_format(ExportFormat.DEEPSPEED)
    zero = page.setup.combos[Choice.ZERO]
    zero.setCurrentIndex(zero.findData(3))
    offload = page.setup.combos[Choice.OFFLOAD]
    offload.setCurrentIndex(offload.findData(Offload.ALL.value))
    precision = page.setup.combos[Choice.PRECISION]
    precision.setCurrentIndex(precision.findData(Precision.FP16.value))
    config = json.loads(page.export.preview.toPlainText())
    assert config["zero_optimization"]["stage"] == 3
    assert config["zero_optimization"]["offload_param"]["device"] == "cpu"
    assert config["fp16"] == {"enabled": True}
    type_into(qtbot, page.setup.nodes, "2")
    page.export.set_format(ExportFormat.HF)
    page.export.show_file("launch.sh")
    assert "--nnodes 2 --nproc_per_node 4 " in page.export.preview.toPlainText()
    assert window.planner.vm.zero_stage is ZeroStage.WEIGHTS


def test_impossible_setups_say_why_and_copy_nothing(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    type_into(qtbot, page.setup.nodes, "3")
    assert page.export.preview.toPlainText() == "8 GPUs não se dividem igualmente entre 3 nós."
    assert not page.export.copy_button.isEnabled()
    assert not page.export.save_button.isEnabled()
    type_into(qtbot, page.setup.nodes, "1")
    offload = page.setup.combos[Choice.OFFLOAD]
    offload.setCurrentIndex(offload.findData(Offload.OPTIMIZER.value))
    assert page.export.preview.toPlainText().startswith("O offload para a CPU exige ZeRO")
    # the user's inputs are kept: choosing ZeRO-2 makes it exportable again
    zero = page.setup.combos[Choice.ZERO]
    zero.setCurrentIndex(zero.findData(2))
    assert '"offload_optimizer"' in page.export.preview.toPlainText()
    assert page.export.copy_button.isEnabled()


def test_no_plan_means_nothing_to_export(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    type_into(qtbot, window.planner.inputs.boxes[PlanField.TARGET], "abc")
    assert page.export.preview.toPlainText().startswith("Nada para exportar")
    assert page.summary.text().startswith("O planejador ainda não tem configuração")
    assert page.export.current_file() is None


def test_save_files_writes_every_file_into_the_folder(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    page = _open(window, qtbot)
    page.export.set_format(ExportFormat.ACCELERATE)
    with qtbot.waitSignal(page.statusMessage) as blocker:
        assert page.export.save_into(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "accelerate_config.yaml",
        "launch.sh",
        "train.py",
    ]
    assert blocker.args[0].startswith("accelerate_config.yaml, train.py, launch.sh salvos em")
    launch = tmp_path / "launch.sh"
    assert "ACCELERATE_GRADIENT_ACCUMULATION_STEPS=16" in launch.read_text(encoding="utf-8")
    assert launch.stat().st_mode & 0o100
    # saving again over the same files replaces them (the dialog asks first)
    type_into(qtbot, window.planner.inputs.boxes[PlanField.MICRO_BATCH], "8")
    assert page.export.save_into(tmp_path, confirm=False)
    assert "ACCELERATE_GRADIENT_ACCUMULATION_STEPS=8" in launch.read_text(encoding="utf-8")


def test_a_folder_that_cannot_be_written_is_reported(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path, monkeypatch
) -> None:
    from PySide6.QtWidgets import QMessageBox

    page = _open(window, qtbot)
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: warnings.append(args[2]))
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    assert not page.export.save_into(blocked / "sub", confirm=False)
    assert warnings and warnings[0].startswith("Não foi possível salvar “ds_config.json”")


DS_CONFIG = {
    "train_batch_size": 96,
    "train_micro_batch_size_per_gpu": 3,
    "gradient_accumulation_steps": 4,
    "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}},
    "bf16": {"enabled": True},
}


def test_check_my_config_fills_the_planner_and_reports(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    page = _open(window, qtbot)
    path = tmp_path / "ds_config.json"
    path.write_text(json.dumps(DS_CONFIG), encoding="utf-8")
    assert page.check.check(path)
    report = page.check.report.text()
    assert "“ds_config.json”: configuração do DeepSpeed (JSON)." in report
    assert "Lote efetivo 96 = 3 × 4 × 8 GPUs em 1 nó(s), ZeRO-2, bf16" in report
    assert "O DeepSpeed aceita esses valores de lote." in report
    planner = window.planner
    assert planner.inputs.boxes[PlanField.TARGET].text() == "96"
    assert planner.inputs.boxes[PlanField.MICRO_BATCH].text() == "3"
    assert planner.inputs.boxes[PlanField.GPUS].text() == "8"
    assert not planner.inputs.recommend.isChecked()
    assert page.setup.combos[Choice.ZERO].currentData() == 2
    assert page.setup.combos[Choice.OFFLOAD].currentData() == "optimizer"
    assert planner.results.configuration.formula.text() == "E = 3 × 4 × 8 = 96"


def test_check_names_the_keys_it_could_not_use(window: MainWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    path = tmp_path / "zero.json"
    bad = dict(DS_CONFIG, zero_optimization={"stage": 9})
    path.write_text(json.dumps(bad), encoding="utf-8")
    page.check.check(path)
    report = page.check.report.text()
    assert "Não foi possível usar zero_optimization.stage = 9" in report
    assert "Não levado ao planejador" in report
    # the planner keeps what it had
    assert window.planner.inputs.boxes[PlanField.TARGET].text() == "512"


def test_check_refuses_a_file_that_is_no_config(window: MainWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    path = tmp_path / "notes.txt"
    path.write_text("just some notes, nothing: [", encoding="utf-8")
    with qtbot.waitSignal(page.statusMessage) as blocker:
        assert not page.check.check(path)
    assert blocker.args[0].startswith("Não foi possível ler “notes.txt”")
    assert window.planner.inputs.boxes[PlanField.TARGET].text() == "512"


def test_dropping_a_config_file_checks_it(window: MainWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    path = tmp_path / "ds_config.json"
    path.write_text(json.dumps(DS_CONFIG), encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    point = QPointF(page.check.rect().center())
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(
        point.toPoint(), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(page.check, enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        point, actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(page.check, drop)
    assert window.planner.inputs.boxes[PlanField.TARGET].text() == "96"


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_every_label_and_button_of_the_tab_has_its_own_mnemonic(make_window, language: str) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language=language)
    window.tabs.setCurrentIndex(2)
    page = window.trainer
    texts = []
    for widget in page.findChildren(QWidget):
        labelled = isinstance(widget, QLabel) and widget.buddy() is not None
        if labelled or (isinstance(widget, QAbstractButton) and widget.text()):
            texts.append(widget.text())  # type: ignore[attr-defined]
    texts += [action.text() for action in window.menuBar().actions() if action.text()]
    keys = [t.replace("&&", "")[t.replace("&&", "").find("&") + 1].lower() for t in texts]
    assert all("&" in t for t in texts), texts
    assert len(set(keys)) == len(keys), sorted(zip(keys, texts, strict=True))
    for label in page.setup.labels.values():
        buddy = label.buddy()
        assert buddy is not None
        assert buddy.accessibleName() == label.text().replace("&", "")


def test_tab_walks_the_page_in_reading_order(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    chain = [w for w in page.tab_chain() if w.isVisible() and w.isEnabled()]
    chain[0].setFocus(Qt.FocusReason.TabFocusReason)
    visited = [QApplication.focusWidget()]
    for _ in range(len(chain) - 1):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        focus = QApplication.focusWidget()
        # a spin box's line edit stands for the spin box
        while focus is not None and focus not in chain and focus.parentWidget() is not None:
            focus = focus.parentWidget()
        visited.append(focus)
    assert visited == chain


def test_the_setup_is_saved_in_scenarios(window: MainWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    zero = page.setup.combos[Choice.ZERO]
    zero.setCurrentIndex(zero.findData(1))
    type_into(qtbot, page.setup.nodes, "2")
    path = tmp_path / "cenario.json"
    assert window.planner.save_scenario(path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["version"] == 3
    assert saved["plan"]["nodes"] == 2 and saved["plan"]["zero_stage"] == 1
    zero.setCurrentIndex(zero.findData(0))
    type_into(qtbot, page.setup.nodes, "1")
    assert window.planner.open_scenario(path)
    assert page.setup.nodes.text() == "2"
    assert page.setup.combos[Choice.ZERO].currentData() == 1


def test_a_fresh_tab_shows_the_planners_setup(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = make_window()
    window.planner.vm.set_text(PlanField.NODES, "1")
    window.tabs.setCurrentIndex(2)
    page = window.trainer
    assert page.setup.nodes.text() == "1"
    assert page.setup.combos[Choice.ZERO].currentData() == 0
    assert page.summary.text().endswith("E = 32 × 1 × 1 = 32.".replace(" ", "\u00a0"))


def test_check_reports_the_memory_the_imported_setup_needs(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    page = _open(window, qtbot)
    path = tmp_path / "ds_config.json"
    path.write_text(json.dumps(DS_CONFIG), encoding="utf-8")
    page.check.check(path)
    last = page.check.report.text().splitlines()[-1]
    # 3 samples × 0,5 GB + the planner's other memory, on its GPU
    assert last == (
        "Cabe na memória da GPU: Ativações 3 × 0,5 GB = 1,5 GB, mais 21 GB de outra "
        "memória: 22,5 GB de 80 GB."
    )


@pytest.mark.parametrize("fmt", list(ExportFormat), ids=lambda f: f.value)
def test_saved_files_are_the_ones_previewed(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path, fmt: ExportFormat
) -> None:
    page = _open(window, qtbot)
    page.export.set_format(fmt)
    previewed = {}
    for index in range(page.export.files.count()):
        page.export.files.setCurrentIndex(index)
        previewed[page.export.current_file()] = page.export.preview.toPlainText()
    assert page.export.save_into(tmp_path, confirm=False)
    saved = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()}
    assert saved == previewed
    assert all(
        "512" in text
        for text in saved.values()
        if not text.startswith('{\n  "train_batch_size": "auto"')
    )


def test_an_axolotl_qlora_config_with_auto_precision_is_taken_as_bf16(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    page = _open(window, qtbot)
    path = tmp_path / "qlora.yml"
    path.write_text(
        "base_model: meta-llama/Meta-Llama-3-8B\nadapter: qlora\nload_in_4bit: true\n"
        "lora_r: 32\nmicro_batch_size: 2\ngradient_accumulation_steps: 4\nbf16: auto\n",
        encoding="utf-8",
    )
    assert page.check.check(path)
    report = page.check.report.text()
    assert "configuração do axolotl (YAML)" in report
    assert 'Precisão "auto": considerada bf16' in report
    assert "Lote efetivo 64 = 2 × 4 × 8 GPUs em 1 nó(s), ZeRO-0, bf16" in report
    assert window.planner.inputs.boxes[PlanField.TARGET].text() == "64"
    assert page.setup.combos[Choice.PRECISION].currentData() == "bf16"
