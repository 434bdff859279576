"""The eight tasks a new user brings, on a 1366 x 768 laptop screen, each done with real
keys through the X server and its actions counted (a key combination, a typed text or a
click is one action; what the test reads back to check the answer is not counted):
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

    def on_screen(self) -> None:
        x, y, w, h = self.app.geometry()
        assert y >= TITLE_BAR and x >= 0, (x, y, w, h)
        assert x + w <= self.width and y + h <= self.height, (x, y, w, h)

    def done(self, limit: int = LIMIT) -> None:
        self.on_screen()
        assert self.actions <= limit, f"{self.actions} actions (at most {limit})"


@pytest.fixture(scope="module")
def laptop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XServer]:
    server = XServer(tmp_path_factory.mktemp("laptop"), screen=(1366, 768)).start()
    yield server
    server.stop()


@pytest.fixture
def task(laptop: XServer, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Task]:
    lang = getattr(request, "param", "pt_BR")
    app = App(laptop, lang, home=tmp_path / "home", shots=tmp_path / "shots")
    try:
        app.start()
        yield Task(app, 1366, 768)
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
    task.app.screenshot("task-config-file-pt_BR", keep=True)
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
