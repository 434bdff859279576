"""The eight tasks a new user brings, on a 1366 x 768 and a 1280 x 720 laptop screen and
on an 800 x 600 one,
each done with real keys through the X server and its actions counted (a key
combination, a typed text or a click is one action; what the test reads back to check
the answer is not counted):
each task takes at most ten, the seed's own question at most four. The window never
leaves the screen while a task runs, so every control a task uses is on the screen (a
mnemonic scrolls its field into view).

1. plan a full fine-tune of an 8B model on 8 A100;
2. LoRA on one RTX 4090;
3. "I have this DeepSpeed file and 4 GPUs";
4. export the Hugging Face + DeepSpeed files of a plan;
5. GPU-hours and cost for 10 B tokens;
6. the seed's question (micro-batch 4, accumulation 8, 1 GPU, 0,5 GB) and copy it;
7. the best setup for a 70B model on 16 H100 over 2 nodes;
8. an axolotl QLoRA YAML.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.desktop.driver import App, Results, XServer, plain_number

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "tests" / "data" / "trainer_configs"
#: openbox's title bar above the window's inside (the frame must fit too)
TITLE_BAR = 10
LIMIT, SEED_LIMIT = 10, 4


@dataclass
class Task:
    """The user's hands: each call is one action, counted."""

    app: App
    width: int
    height: int
    actions: int = 0

    def key(self, *keys: str) -> None:
        self.actions += len(keys)
        self.app.key(*keys)

    def type(self, text: str) -> None:
        self.actions += 1
        self.app.type(text)

    def mnemonic(self, name: str) -> None:
        self.actions += 1
        self.app.mnemonic(name)

    def type_into(self, name: str, text: str) -> None:
        """Alt + the field's letter (the field's text is selected), then the text."""
        self.mnemonic(name)
        self.type(text)

    def open_file(self, path: Path) -> None:
        """In the file dialog that just opened: its name field has the focus."""
        time.sleep(1.0)
        self.type(str(path))
        self.key("Return")
        time.sleep(0.8)

    def shot(self, name: str) -> None:
        """A screenshot kept for a human look (GRADACC_SAVE_SCREENSHOTS=1)."""
        self.app.screenshot(f"{name}-{self.width}x{self.height}-{self.app.lang}", keep=True)

    def on_screen(self) -> None:
        x, y, w, h = self.app.geometry()
        assert y >= TITLE_BAR and x >= 0, (x, y, w, h)
        assert x + w <= self.width and y + h <= self.height, (x, y, w, h)

    def done(self, limit: int = LIMIT) -> None:
        time.sleep(0.5)  # a window that grew while a page was laid out is put back
        self.on_screen()
        assert self.actions <= limit, f"{self.actions} actions (at most {limit})"


#: the laptop screens people have (the window opens inside them and stays inside)
SCREENS = [(1366, 768), (1280, 720), (800, 600)]


@pytest.fixture(scope="module", params=SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])
def laptop(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[tuple[XServer, int, int]]:
    width, height = request.param
    server = XServer(tmp_path_factory.mktemp("laptop"), screen=(width, height)).start()
    yield server, width, height
    server.stop()


@pytest.fixture
def task(laptop: tuple[XServer, int, int], tmp_path: Path) -> Iterator[Task]:
    server, width, height = laptop
    app = App(server, "pt_BR", home=tmp_path / "home", shots=tmp_path / "shots")
    try:
        app.start()
        yield Task(app, width, height)
    finally:
        app.stop()
        output = app.output().strip()
        if output:
            print(f"--- app output ---\n{output}")
        assert not app.crash_log(), app.crash_log()


def _field(task: Task, name: str) -> str | None:
    """What a field shows (read back, not counted)."""
    return plain_number(task.app.field_text(name), task.app.lang)


def test_the_seeds_question(task: Task) -> None:
    """Micro-batch 4, 8 accumulation steps, 1 GPU, 0,5 GB: the defaults the app opens
    with; the user reads E and M and copies them."""
    task.key("ctrl+c")
    copied = task.app.clipboard()
    assert copied is not None
    results = Results(task.app.lang, copied)
    assert results["effective_batch"].startswith("E = 4 × 8 × 1 = 32")
    assert results["peak_memory"].endswith("= 2 GB")
    task.done(SEED_LIMIT)


def test_i_have_this_deepspeed_file_and_4_gpus(task: Task, tmp_path: Path) -> None:
    path = tmp_path / "ds_config.json"
    path.write_text(
        json.dumps({"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 8}),
        encoding="utf-8",
    )
    task.key("ctrl+o")  # File → Open training config…
    task.open_file(path)
    task.type_into("gpus", "4")
    time.sleep(0.5)
    # the file's pair held, the effective batch follows the GPUs: 4 × 8 × 4
    assert _field(task, "target_batch") == "128"
    assert _field(task, "plan_micro_batch") == "4"
    task.shot("task-config-file")
    task.done()


def test_an_axolotl_qlora_yaml(task: Task) -> None:
    path = CONFIGS / "axolotl__examples-gemma3-gemma-3-1b-qlora.yml"
    task.key("ctrl+o")
    task.open_file(path)
    # 1 × 4 on the description's one GPU, QLoRA of Gemma 3 1B, 2 048 tokens
    assert _field(task, "target_batch") == "4"
    assert _field(task, "plan_micro_batch") == "1"
    assert _field(task, "seq_len") == "2048"
    task.done()


def _plan(task: Task) -> str:
    """The planner's plan as the clipboard gets it (read back, not counted)."""
    task.app.key("Escape")  # out of a field or a page, nothing chosen
    copied = task.app.copy("ctrl+c")
    assert copied is not None
    return copied


def _pick_model(task: Task, typed: str) -> None:
    task.mnemonic("model")
    task.type(typed)  # the picker's filter
    time.sleep(0.3)
    task.key("Return")
    time.sleep(0.5)


def test_full_fine_tune_of_an_8b_model_on_8_a100(task: Task) -> None:
    task.key("ctrl+Tab")  # the planner, the description beside it
    _pick_model(task, "llama 3.1 8b")
    task.type_into("gpus", "8")
    time.sleep(0.5)
    task.mnemonic("find_best")  # nothing fits as described: the best setup that does
    time.sleep(2.0)
    task.mnemonic("use_selected")
    time.sleep(1.0)
    plan = _plan(task)
    assert "Modelo: Llama 3.1 8B" in plan and "GPUs em paralelismo de dados: 8" in plan
    assert "Cabe na memória da GPU" in plan, plan
    task.shot("task-8b-on-8-a100")
    task.done()


def test_lora_on_one_rtx_4090(task: Task) -> None:
    task.key("ctrl+Tab")
    _pick_model(task, "llama 3.1 8b")
    task.mnemonic("seq_len")  # the method follows the sequence length
    task.key("Tab")
    task.type("Adaptadores LoRA")
    task.mnemonic("gpus")  # the GPU model is just above the GPUs
    task.key("shift+Tab")
    task.type("NVIDIA GeForce RTX 4090")
    time.sleep(0.8)
    plan = _plan(task)
    assert "O que é treinado: Adaptadores LoRA" in plan, plan
    assert "Modelo da GPU: NVIDIA GeForce RTX 4090" in plan, plan
    # a verdict, never a placeholder: it fits, or it says what would
    assert "Cabe na memória da GPU" in plan or "O que caberia" in plan, plan
    task.done()


def test_export_the_hugging_face_and_deepspeed_files(task: Task, tmp_path: Path) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    task.key("ctrl+Tab", "ctrl+Tab")  # the trainer configs, the description beside them
    _pick_model(task, "llama 3.2 1b")
    task.mnemonic("export_format")
    task.type("Hugging Face Trainer +")
    time.sleep(0.5)
    task.mnemonic("save_files")
    task.open_file(folder)
    if not (folder / "ds_config.json").exists():  # the dialog entered the folder first
        task.key("Return")
        time.sleep(0.8)
    saved = sorted(p.name for p in folder.iterdir())
    assert saved == ["ds_config.json", "launch.sh", "train.py"], saved
    config = json.loads((folder / "ds_config.json").read_text(encoding="utf-8"))
    assert config["train_batch_size"] == "auto"  # the Trainer fills it from its arguments
    assert 'deepspeed="ds_config.json"' in (folder / "train.py").read_text(encoding="utf-8")
    task.done()


def test_gpu_hours_and_cost_for_10_billion_tokens(task: Task) -> None:
    task.key("ctrl+Tab")
    _pick_model(task, "llama 3.2 1b")
    task.type_into("tokens", "10000000000")
    task.key("Tab")  # the price per GPU-hour follows the tokens
    task.type("2")
    time.sleep(0.8)
    plan = _plan(task)
    assert "10.000.000.000 tokens" in plan, plan
    assert "GPU-horas" in plan and "R$" in plan, plan
    task.shot("task-cost")
    task.done()


def test_the_best_setup_for_70b_on_16_h100_over_2_nodes(task: Task) -> None:
    task.key("ctrl+Tab")
    _pick_model(task, "llama 3.1 70b")
    task.type_into("gpus", "16")  # 2 nodes of 8: the nodes the description assumes
    task.key("shift+Tab")  # the GPU model, above the GPUs
    task.type("NVIDIA H100")
    time.sleep(0.5)
    task.mnemonic("find_best")
    time.sleep(3.0)
    task.shot("task-best-70b")
    task.mnemonic("use_selected")
    time.sleep(1.0)
    plan = _plan(task)
    assert "Modelo da GPU: NVIDIA H100 SXM 80GB" in plan, plan
    assert "Cabe na memória da GPU" in plan, plan
    task.done()
