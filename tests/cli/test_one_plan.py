"""Every command a view of the same plan, in words: for the same description flags,
``plan``, ``memory``, ``time`` and ``activation`` print their figures without a Python
repr, and ``plan --tokens`` its run as ``time`` words it (the figures themselves agree
across every door: tests/test_one_answer.py)."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from gradacc_desktop.cli import main

#: models whose layers the estimator splits over tensor-parallel ranks itself (the
#: Llama and GPT-2 families), each at a length it runs
MODELS = {"llama-3.1-8b": "2048", "qwen2.5-0.5b": "2048", "mistral-7b": "1024", "gpt2": "1024"}
#: (ZeRO stage, offload) pairs a framework runs
ZERO_OFFLOAD = [
    ("0", "none"), ("1", "none"), ("1", "optimizer"), ("2", "none"), ("2", "optimizer"),
    ("3", "none"), ("3", "optimizer"), ("3", "all"),
]  # fmt: skip
TENSOR = ("1", "2")
PIPELINE = ("1", "2")
LORA = (None, "16")
NODES = ("1", "2")

#: data-parallel GPUs, micro-batch, target batch and token budget of every row
GPUS, MICRO, TARGET, TOKENS = "2", "2", "16", "3000000"


def _table() -> list[tuple[str, str, str, str, str, str | None, str]]:
    every = list(itertools.product(MODELS, ZERO_OFFLOAD, TENSOR, PIPELINE, LORA, NODES))
    chosen = random.Random(20260603).sample(every, 60)
    return [(m, z, o, tp, pp, lora, n) for m, (z, o), tp, pp, lora, n in chosen]


TABLE = _table()


def test_the_table_covers_every_value() -> None:
    assert len(TABLE) >= 50 and len(set(TABLE)) == len(TABLE)
    for column, values in enumerate(
        [MODELS, {z for z, _ in ZERO_OFFLOAD}, {o for _, o in ZERO_OFFLOAD}, TENSOR, PIPELINE,
         LORA, NODES]
    ):  # fmt: skip
        assert {row[column] for row in TABLE} == set(values)


def description(row: tuple[str, str, str, str, str, str | None, str]) -> list[str]:
    """The description flags of one row: the same for every command."""
    model, zero, offload, tp, pp, lora, nodes = row
    flags = [
        "--model", model, "--seq-len", MODELS[model], "--gpu-card", "h100-80gb",
        "--zero-stage", zero, "--offload", offload, "--tensor-parallel", tp,
        "--pipeline-stages", pp, "--nodes", nodes, "--goodput", "0.9",
        "--price-per-gpu-hour", "2.5",
    ]  # fmt: skip
    return flags if lora is None else [*flags, "--lora-rank", lora]


def gradacc(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, str]:
    """``gradacc ARGV``: exit 0, (stdout, stderr)."""
    assert main(list(argv)) == 0, capsys.readouterr().err
    return capsys.readouterr()


def json_of(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    out, err = gradacc(capsys, *argv, "--json")
    # time reads --gpus as the data-parallel GPUs and says so once with model-parallel
    # sizes; nothing else is said
    assert err == "" or (argv[0] == "time" and err.startswith("gradacc: time --gpus "))
    assert err.count("\n") <= 1
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def commands(flags: list[str]) -> dict[str, list[str]]:
    batch = ["--gpus", GPUS, "--micro-batch", MICRO]
    return {
        "plan": ["plan", *flags, *batch, "--target-batch", TARGET, "--tokens", TOKENS],
        "time": ["time", *flags, *batch, "--target-batch", TARGET, "--tokens", TOKENS],
        "memory": ["memory", *flags, *batch],
        "activation": ["activation", *flags],
    }


#: what a Python repr looks like in a text
REPRS = ("Decimal(", "Fraction(", "{'", "['", "<", "Recompute.", "None")


@pytest.mark.parametrize("row", TABLE[::4], ids=[str(i) for i in range(len(TABLE[::4]))])
def test_no_text_output_shows_a_python_repr(
    capsys: pytest.CaptureFixture[str], row: tuple[str, str, str, str, str, str | None, str]
) -> None:
    flags = description(row)
    argv = commands([*flags, "--dataset-samples", "1000", "--epochs", "2"])
    for name, command in argv.items():
        out, _ = gradacc(capsys, *command)
        assert out, name
        for repr_ in REPRS:
            assert repr_ not in out, (name, repr_, out)


def test_plan_tokens_prints_its_run_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    argv = commands(description(TABLE[0]))["plan"]
    out, _ = gradacc(capsys, *argv)
    line = next(x for x in out.splitlines() if x.startswith("Run of "))
    data = json_of(capsys, *argv)["run"]["tokens"]
    assert line.startswith(f"Run of {TOKENS} token(s): {data['steps']} optimizer step(s), ")
    assert f"{data['seconds']} s ({data['hours']} hours, {data['days']} days)" in line
    assert line.endswith(f", cost {data['cost']}")
