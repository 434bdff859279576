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

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.frameworks.export import ExportFormat
from gradacc_desktop.core.memory.setup import Offload, Precision, ZeroStage
from gradacc_desktop.core.training.description import Method
from gradacc_desktop.ui.main_window import MainWindow
from gradacc_desktop.ui.trainer import TrainerPage
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField
from tests.ui.helpers import choice_box, described, memory_typed, pick, show_tab, type_into


def _open(window: MainWindow, qtbot) -> TrainerPage:  # type: ignore[no-untyped-def]
    """The description set to 512 = 4 × 16 × 8 (0,5 GB per sample, 21 GB of other
    memory typed in), then the trainer tab, the description beside it."""
    show_tab(window, window.trainer_page)
    recommend = window.description.recommend
    qtbot.mouseClick(recommend, Qt.MouseButton.LeftButton)
    assert not recommend.isChecked()
    for field, text in (
        (TrainingField.TARGET, "512"),
        (TrainingField.GPUS, "8"),
        (TrainingField.MICRO_BATCH, "4"),
        (TrainingField.ACTIVATION, "0,5"),
        (TrainingField.OTHER_MEMORY, "21"),
    ):
        type_into(qtbot, described(window, field), text)
    return window.trainer


def _tabs(page: TrainerPage) -> list[str]:
    return [page.export.files.tabText(i) for i in range(page.export.files.count())]


# every format: the files it writes, and a line one of them holds for 512 = 4 × 16 × 8
FORMATS = [
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
]


def test_each_format_previews_copies_and_saves_its_files(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    assert [fmt for fmt, _files, _line in FORMATS] == list(ExportFormat)
    page = _open(window, qtbot)
    for fmt, files, expected in FORMATS:
        page.export.set_format(fmt)
        assert _tabs(page) == files, fmt
        assert page.export.preview.isReadOnly()
        previewed = {}
        for index in range(page.export.files.count()):
            page.export.files.setCurrentIndex(index)
            previewed[page.export.current_file()] = page.export.preview.toPlainText()
        assert any(expected in text for text in previewed.values()), fmt
        assert page.export.current_file() == files[-1]
        QGuiApplication.clipboard().clear()
        with qtbot.waitSignal(page.statusMessage) as blocker:
            qtbot.mouseClick(page.export.copy_button, Qt.MouseButton.LeftButton)
        assert QGuiApplication.clipboard().text() == previewed[files[-1]]
        assert blocker.args[0].startswith(f"{files[-1]} (")
        assert "copiado" in blocker.args[0]
        # the files saved are the ones previewed
        folder = tmp_path / fmt.value
        folder.mkdir()
        assert page.export.save_into(folder, confirm=False)
        saved = {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir()}
        assert saved == previewed, fmt
        assert all(
            "512" in text
            for text in saved.values()
            if not text.startswith('{\n  "train_batch_size": "auto"')
        ), fmt


def test_the_descriptions_choices_change_every_export(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    page.export.set_format(ExportFormat.DEEPSPEED)
    pick(qtbot, choice_box(window, Choice.ZERO), ZeroStage.WEIGHTS)
    pick(qtbot, choice_box(window, Choice.OFFLOAD), Offload.ALL)
    pick(qtbot, choice_box(window, Choice.PRECISION), Precision.FP16)
    config = json.loads(page.export.preview.toPlainText())
    assert config["zero_optimization"]["stage"] == 3
    assert config["zero_optimization"]["offload_param"]["device"] == "cpu"
    assert config["fp16"] == {"enabled": True}
    type_into(qtbot, described(window, TrainingField.NODES), "2")
    page.export.set_format(ExportFormat.HF)
    page.export.show_file("launch.sh")
    assert "--nnodes 2 --nproc_per_node 4 " in page.export.preview.toPlainText()
    assert page.summary.text() == (
        "Exportando a configuração da descrição do treino: E\u00a0=\u00a04\u00a0×\u00a016"
        "\u00a0×\u00a08\u00a0=\u00a0512."
    )


def test_the_format_follows_a_change_of_framework(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    page.export.set_format(ExportFormat.HF_DEEPSPEED)
    pick(qtbot, choice_box(window, Choice.ZERO), ZeroStage.WEIGHTS)
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.FSDP)
    # the HF + DeepSpeed files do not run FSDP2: accelerate's FSDP plugin does
    assert page.export.format.currentText() == "Hugging Face Accelerate"
    assert "fsdp_version: 2" in page.export.preview.toPlainText()
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.MEGATRON)
    assert page.export.format.currentText() == "Megatron-LM"
    # the user's own pick stays while the framework does
    page.export.set_format(ExportFormat.TORCHRUN)
    pick(qtbot, choice_box(window, Choice.ZERO), ZeroStage.OPTIMIZER)
    assert page.export.current_format() is ExportFormat.TORCHRUN


def test_a_tab_first_opened_under_megatron_shows_megatrons_files(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot
) -> None:
    """The trainer tab is built on first use: built after Megatron was chosen, it opens
    on Megatron-LM's files, not on the first format of its list."""
    show_tab(window, window.planner_page)
    pick(qtbot, choice_box(window, Choice.FRAMEWORK), Framework.MEGATRON)
    assert window.trainer_page.built is None
    page = _open(window, qtbot)
    assert page.export.format.currentText() == "Megatron-LM"
    assert _tabs(page)[0] == "megatron_args.sh"


def test_impossible_setups_say_why_and_copy_nothing(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    nodes = described(window, TrainingField.NODES)
    type_into(qtbot, nodes, "3")
    assert page.export.preview.toPlainText() == "8 GPUs não se dividem igualmente entre 3 nós."
    assert not page.export.copy_button.isEnabled()
    assert not page.export.save_button.isEnabled()
    type_into(qtbot, nodes, "1")
    pick(qtbot, choice_box(window, Choice.OFFLOAD), Offload.OPTIMIZER)
    assert page.export.preview.toPlainText().startswith("O offload para a CPU exige ZeRO")
    # the description keeps its entries: choosing ZeRO-2 makes it exportable again
    pick(qtbot, choice_box(window, Choice.ZERO), ZeroStage.GRADIENTS)
    assert '"offload_optimizer"' in page.export.preview.toPlainText()
    assert page.export.copy_button.isEnabled()


def test_no_plan_means_nothing_to_export(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    type_into(qtbot, described(window, TrainingField.TARGET), "abc")
    assert page.export.preview.toPlainText().startswith("Nada a exportar ainda")
    assert page.summary.text().startswith("Nada a exportar ainda")
    assert page.export.current_file() is None
    assert not page.export.copy_button.isEnabled()


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
    type_into(qtbot, described(window, TrainingField.MICRO_BATCH), "8")
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


def test_check_my_config_fills_the_description_and_reports(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    page = _open(window, qtbot)
    path = tmp_path / "ds_config.json"
    path.write_text(json.dumps(DS_CONFIG), encoding="utf-8")
    assert page.check.check(path)
    report = page.check.report.text()
    assert "“ds_config.json”: configuração do DeepSpeed (JSON)." in report
    assert "Lote efetivo 96 = 3 × 4 × 8 GPUs, ZeRO-2, bf16" in report
    assert "O DeepSpeed aceita train_batch_size 96 = 3 x 4 x 8 GPU(s)." in report
    assert described(window, TrainingField.TARGET).text() == "96"
    assert described(window, TrainingField.MICRO_BATCH).text() == "3"
    assert described(window, TrainingField.GPUS).text() == "8"
    assert not window.description.recommend.isChecked()
    assert choice_box(window, Choice.ZERO).currentData() is ZeroStage.GRADIENTS
    assert choice_box(window, Choice.OFFLOAD).currentData() is Offload.OPTIMIZER
    assert page.summary.text().endswith("3\u00a0×\u00a04\u00a0×\u00a08\u00a0=\u00a096.")
    show_tab(window, window.planner_page)
    assert window.planner.results.configuration.formula.text() == "E = 3 × 4 × 8 = 96"


def test_check_names_the_keys_it_could_not_use(window: MainWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    path = tmp_path / "zero.json"
    bad = dict(DS_CONFIG, zero_optimization={"stage": 9})
    path.write_text(json.dumps(bad), encoding="utf-8")
    page.check.check(path)
    report = page.check.report.text()
    # DeepSpeed refuses a stage that does not exist: said first, after the GPUs checked on
    assert report.splitlines()[2:4] == [
        "O DeepSpeed o recusaria:",
        "• zero_optimization.stage = 9: deve ser 0, 1, 2 ou 3",
    ]
    assert "Não colocado na descrição do treino: estágio do ZeRO." in report
    # the description keeps what it had
    assert described(window, TrainingField.TARGET).text() == "512"


def test_check_refuses_a_file_that_is_no_config(window: MainWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    path = tmp_path / "notes.txt"
    path.write_text("just some notes, nothing: [", encoding="utf-8")
    with qtbot.waitSignal(page.statusMessage) as blocker:
        assert not page.check.check(path)
    assert blocker.args[0].startswith("Não foi possível ler “notes.txt”")
    assert window.statusBar().currentMessage() == blocker.args[0]
    assert described(window, TrainingField.TARGET).text() == "512"


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
    assert described(window, TrainingField.TARGET).text() == "96"


def _drop_on(widget: QWidget, path: Path) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    point = QPointF(widget.rect().center())
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(
        point.toPoint(), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        point, actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(widget, drop)


def test_a_trainer_config_dropped_on_the_description_is_checked(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    show_tab(window, window.planner_page)
    window.tabs.set_side_wanted(True)
    qtbot.waitUntil(lambda: window.description.isVisible())
    path = tmp_path / "ds_config.json"
    path.write_text(json.dumps(DS_CONFIG), encoding="utf-8")
    _drop_on(window.description, path)
    # the trainer tab shows the report; the description took the file's batch
    assert window.tabs.currentWidget() is window.trainer_page
    assert (
        "“ds_config.json”: configuração do DeepSpeed (JSON)." in window.trainer.check.report.text()
    )
    assert described(window, TrainingField.TARGET).text() == "96"
    assert described(window, TrainingField.MICRO_BATCH).text() == "3"
    # a model's config.json dropped there is still the model
    model = tmp_path / "config.json"
    model.write_text(
        json.dumps(
            {
                "model_type": "llama",
                "architectures": ["LlamaForCausalLM"],
                "hidden_size": 256,
                "intermediate_size": 512,
                "num_hidden_layers": 2,
                "num_attention_heads": 4,
                "num_key_value_heads": 4,
                "vocab_size": 1000,
                "max_position_embeddings": 512,
            }
        ),
        encoding="utf-8",
    )
    _drop_on(window.description, model)
    assert window.statusBar().currentMessage().startswith("Modelo lido de config.json")


def _mnemonic(text: str) -> str:
    plain = text.replace("&&", "")
    return plain[plain.find("&") + 1].lower()


@pytest.mark.parametrize("language", ["pt_BR", "en"])
def test_every_button_and_label_of_the_tab_has_its_own_mnemonic(make_window, language: str) -> None:  # type: ignore[no-untyped-def]
    window = make_window(language=language)
    show_tab(window, window.trainer_page)
    page = window.trainer
    texts = []
    for widget in page.findChildren(QWidget):
        labelled = isinstance(widget, QLabel) and widget.buddy() is not None
        if labelled or (isinstance(widget, QAbstractButton) and widget.text()):
            texts.append(widget.text())  # type: ignore[attr-defined]
    texts += [action.text() for action in window.menuBar().actions() if action.text()]
    assert all("&" in t for t in texts), texts
    keys = [_mnemonic(t) for t in texts]
    assert len(set(keys)) == len(keys), sorted(zip(keys, texts, strict=True))
    label = page.export.format_label
    assert label.buddy() is page.export.format
    assert page.export.format.accessibleName() == label.text().replace("&", "")


def test_tab_walks_the_page_in_reading_order(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    page = _open(window, qtbot)
    chain = [w for w in page.tab_chain() if w.isVisible() and w.isEnabled()]
    assert chain[0] is page.export.format and chain[-1] is page.check.open_button
    chain[0].setFocus(Qt.FocusReason.TabFocusReason)
    visited = [QApplication.focusWidget()]
    for _ in range(len(chain) - 1):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        focus = QApplication.focusWidget()
        # a field's line edit stands for the field
        while focus is not None and focus not in chain and focus.parentWidget() is not None:
            focus = focus.parentWidget()
        visited.append(focus)
    assert visited == chain


def test_the_setup_is_saved_in_scenarios(window: MainWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _open(window, qtbot)
    zero = choice_box(window, Choice.ZERO)
    nodes = described(window, TrainingField.NODES)
    pick(qtbot, zero, ZeroStage.OPTIMIZER)
    type_into(qtbot, nodes, "2")
    path = tmp_path / "cenario.json"
    assert window.scenarios.save(path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["version"] == 12 and saved["plan"]["cpu_memory_gb"] is None
    assert saved["plan"]["nodes"] == 2 and saved["plan"]["zero_stage"] == 1
    pick(qtbot, zero, ZeroStage.NONE)
    type_into(qtbot, nodes, "1")
    assert window.scenarios.open(path)
    assert nodes.text() == "2"
    assert zero.currentData() is ZeroStage.OPTIMIZER


def test_a_fresh_tab_shows_the_descriptions_setup(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    # without the memory, no micro-batch is recommended: nothing to export, and why
    show_tab(window, window.trainer_page)
    page = window.trainer
    assert page.summary.text().startswith(
        "Nada a exportar ainda: não se sabe qual micro-lote cabe."
    )
    assert "train_batch_size" not in page.export.preview.toPlainText()
    memory_typed(qtbot, window)  # 1 GB per sample, 10 GB other: up to 70 fit
    assert page.summary.text().endswith("E = 32 × 1 × 1 = 32.".replace(" ", "\u00a0"))
    assert '"train_batch_size": 32,' in page.export.preview.toPlainText()


def test_check_reports_the_memory_the_imported_setup_needs(  # type: ignore[no-untyped-def]
    window: MainWindow, qtbot, tmp_path: Path
) -> None:
    page = _open(window, qtbot)
    path = tmp_path / "ds_config.json"
    path.write_text(json.dumps(DS_CONFIG), encoding="utf-8")
    page.check.check(path)
    lines = page.check.report.text().splitlines()
    # the description has no model: no time per step, and the report says why
    assert lines[-1] == (
        "Tempo por passo: Escolha o modelo na descrição do treino para ver o tempo por passo."
    )
    last = lines[-2]
    # 3 samples × 0,5 GB + the description's other memory, on its GPU
    assert last == (
        "Cabe na memória da GPU: Ativações 3 × 0,5 GB = 1,5 GB, mais 21 GB de estados do "
        "modelo e sobrecarga: 22,5 GB de 80 GB."
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
    assert "Lote efetivo 64 = 2 × 4 × 8 GPUs, ZeRO-0, bf16" in report
    assert described(window, TrainingField.TARGET).text() == "64"
    assert described(window, TrainingField.LORA_RANK).text() == "32"
    assert choice_box(window, Choice.METHOD).currentData() is Method.QLORA
    assert choice_box(window, Choice.PRECISION).currentData() is Precision.BF16
