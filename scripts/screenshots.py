"""Regenerate the screenshots from the real window (offscreen is fine).

    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py [--scale 2] [--out docs]

Writes, for pt and en:

- the README images: docs/screenshot-<lang>.png (calculator),
  screenshot-planner-<lang>.png (the training description beside its plan),
  screenshot-planner-nothing-fits-<lang>.png, screenshot-search-<lang>.png,
  screenshot-planner-time-<lang>.png, screenshot-trainer-<lang>.png,
  screenshot-chart-<lang>.png, screenshot-chart-pairs-<lang>.png and
  screenshot-activation-<lang>.png, at a comfortable size;
- the layout check: docs/screenshots/<view>-<lang>-<size>.png for every tab and
  dialog (calculator, calculator with the details open, the planner empty, with a
  plan, with nothing that fits, with the search's result, with extreme values, the
  description's memory figures, its parallelism (Megatron, sequence parallelism and
  its tensor-parallel overlap, bf16 gradients, selective recomputation), its GPUs (a
  node's CPU memory that does not hold the offloaded optimizer; also at 1366x768; the
  planner with its cost card and the
  search's result also at 1366x768 and 1280x720), the model states, trainer configs, both charts,
  the activation estimator) at 800x600 and at the smallest size the window or dialog
  allows ("min"); the model picker open, then filtered, at 1366x768;
- the same on a dark palette (tests/ui/palettes.py), at 800x600:
  docs/screenshots/<view>-<lang>-dark-800x600.png.

With --scale, -<scale>x variants of the README images only (for checking
high-DPI layout). Settings are not touched.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

README_SIZE = (1100, 780)
SMALL_SIZE = (800, 600)
#: a common laptop screen
WIDE_SIZE = (1366, 768)
#: the smallest screen the window is laid out for
SMALLEST_SCREEN = (1280, 720)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--details", action="store_true", help="also shoot with details open")
    args = parser.parse_args()
    if args.scale != 1.0:
        os.environ["QT_SCALE_FACTOR"] = str(args.scale)
    if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":
        # A screen larger than every size shot (Qt's offscreen screen is 800 x 800):
        # on it the window keeps the size asked for instead of being put back inside a
        # screen it outgrew for a moment, which left some 800 x 600 shots 752 wide.
        screen = {"name": "shots", "x": 0, "y": 0, "width": 1920, "height": 1200}
        config = Path(tempfile.mkdtemp()) / "offscreen.json"
        config.write_text(json.dumps({"screens": [{**screen, "logicalDpi": 96, "dpr": 1}]}))
        os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"

    from PySide6.QtCore import QPoint, QSettings
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

    from gradacc_desktop.app import configure_application, create_window
    from gradacc_desktop.core.attention import AttentionKernel
    from gradacc_desktop.core.calculator import Field
    from gradacc_desktop.core.framework import Framework
    from gradacc_desktop.core.memory.setup import Offload
    from gradacc_desktop.core.memory.zero import ZeroStage
    from gradacc_desktop.core.recompute import Recompute
    from gradacc_desktop.core.time.gpus import CUSTOM_ID
    from gradacc_desktop.core.training.description import Method
    from gradacc_desktop.paths import resource_path
    from gradacc_desktop.ui.model_picker import ModelPicker
    from gradacc_desktop.ui.training.specs import DescriptionSection
    from gradacc_desktop.viewmodels.settings import Settings
    from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField

    app = QApplication(sys.argv[:1])
    configure_application(app)
    args.out.mkdir(parents=True, exist_ok=True)
    sizes_dir = args.out / "screenshots"
    with_sizes = args.scale == 1.0
    if with_sizes:
        sizes_dir.mkdir(parents=True, exist_ok=True)
    suffix = "" if args.scale == 1.0 else f"-{args.scale:g}x"

    def settle() -> None:
        for _ in range(3):
            app.processEvents()

    def shoot(widget: QWidget, path: Path) -> None:
        settle()
        widget.grab().save(str(path))

    def shoot_popup(window: QWidget, popup: QWidget, path: Path) -> None:
        """``window`` with ``popup`` (a window of its own) drawn where it stands."""
        settle()
        image = window.grab()
        painter = QPainter(image)
        painter.drawPixmap(window.mapFromGlobal(popup.mapToGlobal(QPoint(0, 0))), popup.grab())
        painter.end()
        image.save(str(path))

    def shoot_sizes(widget: QWidget, name: str, language: str) -> None:
        """``widget`` at 800x600 (or its minimum, if larger) and at its minimum."""
        if not with_sizes:
            return
        widget.resize(*SMALL_SIZE)
        shoot(widget, sizes_dir / f"{name}-{language}-800x600.png")
        for _ in range(2):  # the minimum can grow once the content is laid out
            widget.resize(1, 1)
            settle()
        shoot(widget, sizes_dir / f"{name}-{language}-min.png")

    # the planner's time state of each language, for the dark chart shots
    dark_time: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for language in ("pt", "en"):
            store = QSettings(str(Path(tmp) / f"{language}.ini"), QSettings.Format.IniFormat)
            window = create_window(app, Settings(store), "pt_BR" if language == "pt" else "en")
            window.resize(*README_SIZE)
            window.show()
            settle()

            def readme(name: str, widget: QWidget = window) -> None:
                shoot(widget, args.out / f"{name}{suffix}.png")

            def tab(index: int, then: Callable[[], object] | None = None, w=window) -> None:  # type: ignore[no-untyped-def]
                w.tabs.setCurrentIndex(index)
                settle()  # the minimum size follows the tab shown
                w.resize(*README_SIZE)
                if then is not None:
                    then()
                settle()

            # calculator
            tab(0)
            readme(f"screenshot-{language}")
            shoot_sizes(window, "calculator", language)
            window.details.set_open(True)
            if args.details:
                window.resize(*README_SIZE)
                readme(f"screenshot-{language}-details")
            shoot_sizes(window, "calculator-details", language)
            window.details.set_open(False)

            # the planner beside an empty description: what it asks for first
            tab(1)
            shoot_sizes(window, "planner-empty", language)
            training = window.training_vm
            scenarios = window.scenarios.vm
            empty = scenarios.remembered()
            point = "," if language == "pt" else "."

            def describe(  # type: ignore[no-untyped-def]
                model: str | None = None, choices: dict[Choice, object] | None = None,
                training=training, scenarios=scenarios, empty=empty, point=point, window=window,
                **texts: str,
            ) -> None:  # fmt: skip
                """A fresh description: ``model``, ``choices`` and ``texts`` (by field)."""
                scenarios.restore_remembered(empty)
                if model is not None:
                    training.set_choice(Choice.MODEL, model)
                for choice, value in (choices or {}).items():
                    training.set_choice(choice, value)
                for name, text in texts.items():
                    training.set_text(TrainingField[name.upper()], text.replace(".", point))
                window.description.show_inputs(None)  # as if typed: the fields show it
                settle()

            # LoRA of Llama-3.1-8B on one A100: derived memory, the plan, the time
            describe(
                "llama-3.1-8b", {Choice.METHOD: Method.LORA}, seq_len="4096", target="64",
                tokens="100000000", price="1.8",
            )  # fmt: skip
            tab(1)
            readme(f"screenshot-planner-{language}")
            shoot_sizes(window, "planner", language)
            if with_sizes:  # the cost card without scrolling on a common laptop screen
                window.resize(*WIDE_SIZE)
                shoot(window, sizes_dir / f"planner-{language}-1366x768.png")
                window.resize(*SMALLEST_SCREEN)
                shoot(window, sizes_dir / f"planner-{language}-1280x720.png")

            # the same model trained in full on that one GPU: nothing fits, and why
            describe("llama-3.1-8b", seq_len="4096", target="512")
            tab(1)
            readme(f"screenshot-planner-nothing-fits-{language}")
            shoot_sizes(window, "planner-nothing-fits", language)

            # "Find the best setup" on 8 GPUs for it, the result listed
            describe("llama-3.1-8b", seq_len="4096", target="512", gpus="8")
            tab(1)
            window.planner.search_card.open_button.click()
            settle()
            readme(f"screenshot-search-{language}")
            shoot_sizes(window, "search", language)
            if with_sizes:  # the result's rows without scrolling on laptop screens
                window.resize(*WIDE_SIZE)
                shoot(window, sizes_dir / f"search-{language}-1366x768.png")
                window.resize(*SMALLEST_SCREEN)
                shoot(window, sizes_dir / f"search-{language}-1280x720.png")
            window.planner.show_plan()

            # the description panel scrolled to its memory figures (typed over: ↺)
            describe("qwen2.5-7b", seq_len="2048", target="128", activation="3.5")
            tab(1)
            panel = window.description
            settle()
            memory = panel.fields[TrainingField.OTHER_MEMORY]
            panel.area.ensureWidgetVisible(memory, 0, panel.area.viewport().height() // 3)
            settle()
            shoot_sizes(window, "description-memory", language)

            # the model picker open on a laptop screen: its families under headings,
            # then narrowed to what "70b" matches
            window.resize(*WIDE_SIZE)
            panel.area.verticalScrollBar().setValue(0)
            picker = panel.combos[Choice.MODEL]
            assert isinstance(picker, ModelPicker)
            for name, typed in (("picker", ""), ("picker-filtered", "70b")):
                picker.popup.open_with(typed)
                shoot_popup(window, picker.popup, sizes_dir / f"{name}-{language}-1366x768.png")
                picker.popup.hide()

            # the description panel scrolled to its parallelism: Megatron, sequence
            # parallelism beside tensor parallelism and its overlap, selective recomputation
            describe(
                "llama-3.1-8b",
                {Choice.FRAMEWORK: Framework.MEGATRON, Choice.SEQUENCE_PARALLEL: True,
                 Choice.TP_COMM_OVERLAP: True, Choice.GRAD_REDUCE_BF16: True,
                 Choice.RECOMPUTE: Recompute.SELECTIVE},
                seq_len="4096", target="512", gpus="8", tensor_parallel="2",
            )  # fmt: skip
            tab(1)
            layout = panel.sections[DescriptionSection.LAYOUT]
            column = panel.area.widget()
            assert column is not None
            panel.area.verticalScrollBar().setValue(layout.mapTo(column, QPoint(0, 0)).y())
            settle()
            shoot_sizes(window, "description-layout", language)

            # extreme values: huge counts must not break the layout
            describe(
                None, {Choice.RECOMMEND: False, Choice.CARD: CUSTOM_ID, Choice.MODEL: "@params"},
                model_params="99999999999999", target="65536", gpus="1024", micro_batch="3",
                gpu_memory="100000", activation="99999", other_memory="99999",
                seq_len="32768", dataset="99999999999", reference_lr="0.0003",
                reference_batch="65536",
            )  # fmt: skip
            tab(1)
            shoot_sizes(window, "planner-extreme", language)

            # the time per step: Llama-3-70B on 8 data x 8 tensor x 4 pipeline GPUs
            describe(
                "llama-3-70b", {Choice.CARD: "h100-80gb", Choice.ZERO: ZeroStage.OPTIMIZER},
                seq_len="4096", target="512", gpus="8", tensor_parallel="8",
                pipeline_stages="4", nodes="32", tokens="1000000000000", price="2.5",
            )  # fmt: skip
            tab(1)
            window.planner.results_area.ensureWidgetVisible(window.planner.results.time, 0, 0)
            settle()
            readme(f"screenshot-planner-time-{language}")
            shoot_sizes(window, "planner-time", language)
            time_remembered = scenarios.remembered()
            dark_time[language] = time_remembered

            # the model states behind the other memory, part by part
            states = window.open_model_states()
            settle()
            shoot_sizes(states, "model-states", language)
            states.reject()

            # trainer configs: QLoRA on 2 nodes of 8, the Hugging Face files
            from gradacc_desktop.core.frameworks.export import ExportFormat

            describe(
                "qwen2.5-7b", {Choice.METHOD: Method.QLORA, Choice.ZERO: ZeroStage.GRADIENTS},
                seq_len="2048", target="256", gpus="16", nodes="2",
            )  # fmt: skip
            tab(2)
            trainer = window.trainer
            trainer.export.set_format(ExportFormat.HF)
            settle()
            readme(f"screenshot-trainer-{language}")
            shoot_sizes(window, "trainer", language)
            # "check my config": an axolotl LoRA recipe with tensor parallelism, its
            # report, and the description it fills
            recipe = Path(tmp) / "lora-tp.yml"
            recipe.write_text(
                "base_model: Qwen/Qwen2.5-7B\nadapter: lora\nlora_r: 32\n"
                "lora_target_linear: true\nsequence_len: 4096\nmicro_batch_size: 2\n"
                "gradient_accumulation_steps: 8\ntensor_parallel_size: 2\nbf16: auto\n"
                "gradient_checkpointing: true\nflash_attention: true\nmicro_batch_sizee: 4\n",
                encoding="utf-8",
            )
            trainer.check.check(recipe)
            trainer_area = trainer.findChild(QScrollArea)
            if trainer_area is not None:
                trainer_area.ensureWidgetVisible(trainer.check.report, 0, 0)
            settle()
            shoot_sizes(window, "trainer-check", language)
            # the card's speed: the catalogue's figures, then the custom card's typed in
            speed = window.open_card_speed()
            settle()
            shoot(speed, sizes_dir / f"card-speed-{language}.png")
            training.set_choice(Choice.CARD, CUSTOM_ID)
            for field, text in (
                (TrainingField.CUSTOM_TFLOPS, f"165{point}2"),
                (TrainingField.CUSTOM_BANDWIDTH, "1008"),
                (TrainingField.CUSTOM_LINK, "32"),
                (TrainingField.CUSTOM_NETWORK, f"3{point}125"),
            ):
                training.set_text(field, text)
            window.description.show_inputs(None)
            settle()
            shoot(speed, sizes_dir / f"card-speed-custom-{language}.png")
            speed.reject()

            # the chart tab, with the time state (Llama-3-70B, TP 8, PP 4): the trade-off
            # chart, then time per step against memory for every pair
            scenarios.restore_remembered(time_remembered)
            tab(3, window.show_chart)
            readme(f"screenshot-chart-{language}")
            shoot_sizes(window, "chart", language)
            tab(3, window.show_pair_chart)
            readme(f"screenshot-chart-pairs-{language}")
            shoot_sizes(window, "chart-pairs", language)
            window.show_chart()
            scenarios.restore_remembered(empty)

            # F1 on the planner: its help, with the rule for typing numbers
            tab(1)
            window.show_help()
            assert window.help_dialog is not None
            shoot(window.help_dialog, sizes_dir / f"help-planner-{language}.png")
            window.help_dialog.close()

            def beside(
                section, card, name, w=window, panel=panel, column=column, lang=language
            ) -> None:  # type: ignore[no-untyped-def]
                """The description scrolled to ``section`` beside the plan's ``card``, at
                1366×768 and the small sizes."""

                def scroll() -> None:
                    settle()
                    top = section.mapTo(column, QPoint(0, 0)).y()
                    panel.area.verticalScrollBar().setValue(top)
                    w.planner.results_area.ensureWidgetVisible(card, 0, 0)
                    settle()

                w.resize(*WIDE_SIZE)
                scroll()
                shoot(w, sizes_dir / f"{name}-{lang}-1366x768.png")
                w.resize(*SMALL_SIZE)
                scroll()
                shoot_sizes(w, name, lang)

            # the attention kernel: FlashAttention 3 on the H100s, its time beside it
            describe(
                "llama-3.1-8b",
                {Choice.CARD: "h100-80gb", Choice.ATTENTION: AttentionKernel.FLASH,
                 Choice.ZERO: ZeroStage.WEIGHTS, Choice.RECOMPUTE: Recompute.FULL},
                seq_len="32768", target="64", gpus="8",
            )  # fmt: skip
            tab(1)
            sections = panel.sections
            beside(sections[DescriptionSection.METHOD], window.planner.results.time,
                   "description-attention")  # fmt: skip

            # the description panel scrolled to its GPUs (last of the shots beside it: the
            # panel's scroll stays where this leaves it): the Llama-3-70B on 16
            # H100s over 2 nodes (2 data x 4 tensor x 2 pipeline), the optimizer
            # offloaded, each node's CPU memory typed too small: the verdict beside it
            describe(
                "llama-3-70b",
                {Choice.CARD: "h100-80gb", Choice.ZERO: ZeroStage.OPTIMIZER,
                 Choice.OFFLOAD: Offload.OPTIMIZER},
                seq_len="2048", target="512", gpus="2", tensor_parallel="4",
                pipeline_stages="2", nodes="2", cpu_memory="1000",
            )  # fmt: skip
            tab(1)
            beside(sections[DescriptionSection.HARDWARE], window.planner.results.fit,
                   "description-hardware")  # fmt: skip

            # a refused entry: kept as typed, its message under the field
            tab(0)
            micro = window.inputs.boxes[Field.MICRO_BATCH]
            micro.set_text("0")
            shoot_sizes(window, "calculator-refused", language)
            micro.set_text("4")

            # activation estimator
            tab(0)
            activation = window.open_activation_estimator()
            activation.resize(980, 760)
            readme(f"screenshot-activation-{language}", activation)
            shoot_sizes(activation, "activation", language)
            # a model's own config.json: the sizes locked, its class, profile, parameters
            activation.vm.open_config(str(resource_path("data", "models", SHOWN_CONFIG)))
            activation.resize(980, 760)
            shoot_sizes(activation, "activation-config", language)
            # a language model with a vision tower: images per sample, their size, the
            # frozen tower, the tower's parameters and share; Whisper's locked length
            for name, config in (("vlm", VLM_CONFIG), ("whisper", WHISPER_CONFIG)):
                activation.vm.open_config(str(resource_path("data", "models", config)))
                activation.resize(980, 760)
                shoot(activation, sizes_dir / f"activation-{name}-{language}-980x760.png")
                shoot_sizes(activation, f"activation-{name}", language)
            activation.vm.select_preset("gpt2")
            activation.reject()

            window.language.uninstall()
            window.close()
            window.deleteLater()
            settle()

        # the same app on a dark desktop theme: every tab and the estimator, at 800x600,
        # with a refused entry so the theme-aware reds show
        if with_sizes:
            from gradacc_desktop.viewmodels.activation import ActivationField
            from tests.ui.palettes import dark_palette

            light = app.palette()
            app.setPalette(dark_palette())
            for language in ("pt", "en"):
                store = QSettings(
                    str(Path(tmp) / f"dark-{language}.ini"), QSettings.Format.IniFormat
                )
                window = create_window(app, Settings(store), "pt_BR" if language == "pt" else "en")
                window.show()
                window.inputs.boxes[Field.MICRO_BATCH].set_text("0")
                for index, name in (
                    (0, "calculator-refused"),
                    (1, "planner"),
                    (2, "trainer"),
                    (3, "chart"),
                    (3, "chart-pairs"),
                ):
                    window.tabs.setCurrentIndex(index)
                    if index == 1:
                        window.scenarios.vm.restore_remembered(dark_time[language])
                    if index == 3:
                        window.inputs.boxes[Field.MICRO_BATCH].set_text("4")
                        if name == "chart":
                            window.show_chart()
                        else:
                            window.show_pair_chart()
                    settle()
                    window.resize(*SMALL_SIZE)
                    shoot(window, sizes_dir / f"{name}-{language}-dark-800x600.png")
                window.tabs.setCurrentIndex(0)
                activation = window.open_activation_estimator()
                activation.resize(*SMALL_SIZE)
                # the estimate itself: the cards and the note on "Use this value"
                shoot(activation, sizes_dir / f"activation-{language}-dark-800x600.png")
                # typed into the field, so it shows the value it refuses
                activation.spins[ActivationField.HEADS].set_text("7")
                shoot(activation, sizes_dir / f"activation-refused-{language}-dark-800x600.png")
                activation.reject()
                window.language.uninstall()
                window.close()
                window.deleteLater()
                settle()
            app.setPalette(light)
    return 0


#: the config.json the estimator screenshots open (a bundled model preset)
SHOWN_CONFIG = "google__flan-t5-base.json"
VLM_CONFIG = "Qwen__Qwen2-VL-2B-Instruct.json"
WHISPER_CONFIG = "openai__whisper-small.json"


if __name__ == "__main__":
    sys.exit(main())
