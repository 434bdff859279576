"""DeepSpeed's own derivation of the batch triple, against ours.

``planning.deepspeed_check`` replays how DeepSpeed fills a missing ``train_batch_size``,
``train_micro_batch_size_per_gpu`` or ``gradient_accumulation_steps`` from the others
and which triples it refuses. Here DeepSpeed 0.19.8's ``DeepSpeedConfig`` itself reads
every triple of a grid (each value given or missing, zero and negative values too) for
several data-parallel world sizes (given through an ``mpu``, as in
``test_config_corpus``), and ``gradacc check --json`` reads the same triples written as
a DeepSpeed JSON. Both must accept exactly what DeepSpeed accepts, with the values it
derives, and refuse the rest.

Two differences are known and pinned here:

* ``gradacc check`` on a JSON with neither ``train_batch_size`` nor the micro-batch
  does not refuse it: it reports the micro-batch as missing (no DeepSpeed verdict, no
  setup, exit code 0), where DeepSpeed asserts "Either train_batch_size or
  train_micro_batch_size_per_gpu needs to be provided".
* ``deepspeed_check`` names the wrong reason when ``train_batch_size`` is missing and
  a given micro-batch or accumulation-steps value is 0: the derived train batch is 0 and it says
  the derived micro-batch is 0 (``DERIVED_ZERO_MICRO_BATCH``), where DeepSpeed stops at
  "Train batch size: 0 has to be greater than 0". It refuses the triple all the same.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from gradacc_desktop.cli import main
from gradacc_desktop.core.batch.planning import DeepSpeedReason, deepspeed_check

# Values that divide and values that do not, around the world sizes below.
TRAIN = (None, 1, 2, 3, 4, 6, 8, 12, 16, 24, 30, 64, 96)
MICRO = (None, 1, 2, 3, 4, 8)
STEPS = (None, 1, 2, 3, 4, 6)
WORLDS = (1, 2, 3, 4, 8)
# Values DeepSpeed refuses (or divides by): checked on a smaller grid.
BAD = (None, -2, 0, 1, 4)
KEYS = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")

Triple = tuple[int | None, int | None, int | None]


class _Mpu:
    def __init__(self, world: int) -> None:
        self.world = world

    def get_data_parallel_world_size(self) -> int:
        return self.world


@pytest.fixture(scope="module")
def deepspeed_reads() -> Any:
    """``(triple, world) -> (train, micro, steps)`` as DeepSpeed derives them, or the
    exception it raises."""
    import deepspeed.runtime.config as ds_config

    patch = pytest.MonkeyPatch()
    # DeepSpeedConfig asks torch.distributed for the rank first (no process group here)
    patch.setattr(ds_config.dist, "get_rank", lambda *a, **k: 0)

    def read(triple: Triple, world: int) -> tuple[int, int, int] | BaseException:
        config = {k: v for k, v in zip(KEYS, triple, strict=True) if v is not None}
        try:
            ds = ds_config.DeepSpeedConfig(config, mpu=_Mpu(world))
        except Exception as exc:  # AssertionError, ZeroDivisionError, ...
            return exc
        return (
            ds.train_batch_size,
            ds.train_micro_batch_size_per_gpu,
            ds.gradient_accumulation_steps,
        )

    yield read
    patch.undo()


def _grid() -> list[tuple[Triple, int]]:
    good = itertools.product(TRAIN, MICRO, STEPS, WORLDS)
    bad = itertools.product(BAD, BAD, BAD, (1, 2, 3))
    return [((t, b, a), g) for t, b, a, g in itertools.chain(good, bad)]


def _ours(triple: Triple, world: int) -> tuple[int, int, int] | DeepSpeedReason:
    check = deepspeed_check(*triple, world_size=world)
    if not check.ok:
        return check.reason
    assert check.train_batch_size and check.micro_batch and check.grad_acc
    return check.train_batch_size, check.micro_batch, check.grad_acc


def test_the_grid_has_accepted_and_refused_triples(deepspeed_reads: Any) -> None:
    outcomes = [deepspeed_reads(triple, world) for triple, world in _grid()]
    accepted = sum(not isinstance(o, BaseException) for o in outcomes)
    kinds = {type(o).__name__ for o in outcomes if isinstance(o, BaseException)}
    assert 200 < accepted < len(outcomes) - 200
    assert {"AssertionError", "ZeroDivisionError"} <= kinds


def test_deepspeed_check_derives_and_refuses_as_deepspeed(deepspeed_reads: Any) -> None:
    wrong = []
    for triple, world in _grid():
        theirs = deepspeed_reads(triple, world)
        ours = _ours(triple, world)
        if isinstance(theirs, BaseException):
            if not isinstance(ours, DeepSpeedReason):
                wrong.append(f"{triple} on {world}: DeepSpeed refuses ({theirs!r}), ours {ours}")
        elif ours != theirs:
            wrong.append(f"{triple} on {world}: DeepSpeed derives {theirs}, ours {ours}")
    assert wrong == []


def test_the_refusal_reasons_match_deepspeeds_messages(deepspeed_reads: Any) -> None:
    """Each of our reasons is the assertion (or division) DeepSpeed stops at."""
    expected = {
        DeepSpeedReason.MISSING_BATCH_SIZE: "Either train_batch_size or",
        DeepSpeedReason.NON_POSITIVE: "has to be greater than 0|division or modulo by zero",
        DeepSpeedReason.PRODUCT_MISMATCH: "train_batch_size is not equal to",
        DeepSpeedReason.NOT_DIVISIBLE: "train_batch_size is not equal to",
        DeepSpeedReason.DERIVED_ZERO_STEPS: "Gradient accumulation steps: 0",
        DeepSpeedReason.DERIVED_ZERO_MICRO_BATCH: "Micro batch size per gpu: 0",
    }
    wrong = []
    for triple, world in _grid():
        ours = _ours(triple, world)
        if not isinstance(ours, DeepSpeedReason) or _zero_product(triple):
            continue
        theirs = deepspeed_reads(triple, world)
        if not any(text in str(theirs) for text in expected[ours].split("|")):
            wrong.append(f"{triple} on {world}: ours {ours}, DeepSpeed {theirs!r}")
    assert wrong == []


def _zero_product(triple: Triple) -> bool:
    """train_batch_size missing, so DeepSpeed derives it as micro x steps x GPUs = 0."""
    t, b, a = triple
    return t is None and b is not None and b * (1 if a is None else a) == 0


@pytest.mark.parametrize("triple", [(None, 0, 1), (None, 4, 0), (None, 0, None)])
def test_a_zero_product_is_named_as_deepspeed_names_it(
    deepspeed_reads: Any, triple: Triple
) -> None:
    assert "Train batch size: 0" in str(deepspeed_reads(triple, 2))
    assert _ours(triple, 2) is DeepSpeedReason.NON_POSITIVE


def _cli(path: Path, triple: Triple, world: int, capsys: pytest.CaptureFixture[str]) -> Any:
    config = {k: v for k, v in zip(KEYS, triple, strict=True) if v is not None}
    path.write_text(json.dumps(config), encoding="utf-8")
    capsys.readouterr()
    code = main(["check", str(path), "--json", "--world-size", str(world)])
    return code, json.loads(capsys.readouterr().out)


def test_gradacc_check_reports_what_deepspeed_derives(
    deepspeed_reads: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line on the positive grid (a value below 1 is refused while reading,
    before DeepSpeed's derivation): its ``derived`` values and DeepSpeed verdict."""
    path = tmp_path / "ds_config.json"
    wrong = []
    positive = [
        ((t, b, a), g)
        for t, b, a, g in itertools.product(TRAIN, MICRO, STEPS, (1, 3, 4))
        if (t, b, a) != (None, None, None)
    ]
    for triple, world in positive:
        theirs = deepspeed_reads(triple, world)
        code, report = _cli(path, triple, world, capsys)
        verdict = (report["verdicts"] or {}).get("deepspeed")
        if isinstance(theirs, BaseException) and triple[:2] == (None, None):
            # known: reported as missing, not refused (see the module's docstring)
            if verdict or report["setup"] or "micro-batch" not in report["missing"]:
                wrong.append(f"{triple} on {world}: gradacc has a setup without a batch")
            continue
        if isinstance(theirs, BaseException):
            if code == 0 or report["framework_accepts"] or (verdict and verdict["ok"]):
                wrong.append(f"{triple} on {world}: DeepSpeed refuses, gradacc accepts")
            continue
        derived = report["derived"]
        shown = (
            derived["train_batch_size"],
            derived["micro_batch"],
            derived["accumulation_steps"],
        )
        if code != 0 or not verdict or not verdict["ok"] or shown != theirs:
            wrong.append(f"{triple} on {world}: DeepSpeed {theirs}, gradacc {code} {shown}")
        elif report["effective_batch"] != theirs[0] or derived["gpus"] != world:
            wrong.append(f"{triple} on {world}: effective batch {report['effective_batch']}")
    assert wrong == []
