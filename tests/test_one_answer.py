"""One answer from every door: over 240 generated descriptions (models x card x
framework x ZeRO x offload x tensor x pipeline x context x FP8 x precision x LoRA x
nodes x virtual stages, expert-parallel GPUs or sequence parallelism), ``gradacc
plan``, ``memory``, ``time``, ``activation``, ``export`` (every format, one per row in
turn) and the window's view-models agree on what the frameworks refuse
(which rule), the description's problems, the model states, the CPU memory per node, the
activation, the step time and the run time; and a search's best setup, planned as a
description of its own, is the candidate it ranked.

Where the description has a problem, ``plan`` reports it and goes on, every other command
refuses with the core's own sentence (exit 2), and the window says the same sentence (or
keeps the problem from arising and says why beside the control it switched off)."""

from __future__ import annotations

import itertools
import json
import random
import re
from dataclasses import fields, is_dataclass
from decimal import Decimal
from typing import Any

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.cli import main
from gradacc_desktop.cli.plan_json import rounded
from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.frameworks.export import ExportFormat, framework_of
from gradacc_desktop.core.memory.setup import TrainingSetup
from gradacc_desktop.core.training.figures import Missing
from gradacc_desktop.core.training.problems import FIELD, SETUP_KINDS, ProblemKind
from gradacc_desktop.viewmodels.calculator import CalculatorViewModel
from gradacc_desktop.viewmodels.planner import PlannerViewModel
from gradacc_desktop.viewmodels.training.fields import Choice
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from gradacc_desktop.viewmodels.training.model import TrainingViewModel

#: bundled models and a length each runs: dense with grouped queries, a small one with
#: 14 heads, a mixture of experts, learned positions, sliding-window attention
MODELS = {
    "llama-3.1-8b": "2048",
    "qwen2.5-0.5b": "2048",
    "mixtral-8x7b": "1024",
    "gpt2": "1024",
    "mistral-7b": "1024",
}
CARDS = ("h100-80gb", "a100-80gb")  # FP8 products, none
FRAMEWORKS = ("deepspeed", "megatron", "fsdp")
ZERO_OFFLOAD = [
    ("0", "none"), ("1", "none"), ("1", "optimizer"), ("2", "none"), ("2", "optimizer"),
    ("3", "none"), ("3", "optimizer"), ("3", "all"),
]  # fmt: skip
TENSOR = ("1", "2", "4")  # 4 does not divide the small model's 14 heads
PIPELINE = ("1", "2", "3")  # 3 does not divide 32 layers
CONTEXT = ("1", "2")
FP8 = (False, True)
PRECISION = ("bf16", "fp32")
LORA = (None, "16")
NODES = ("1", "2")
#: one more switch: virtual stages, expert-parallel GPUs or sequence parallelism
EXTRA = (None, "virtual", "experts", "sequence")

#: data-parallel GPUs, micro-batch, accumulation steps and the token budget of every row
GPUS, MICRO, STEPS, TOKENS = 2, 2, 4, "3000000"
TARGET = GPUS * MICRO * STEPS

Row = tuple[str, str, str, tuple[str, str], str, str, str, bool, str, str | None, str, str | None]
COLUMNS = (
    MODELS, CARDS, FRAMEWORKS, ZERO_OFFLOAD, TENSOR, PIPELINE, CONTEXT, FP8, PRECISION, LORA,
    NODES, EXTRA,
)  # fmt: skip
EXTRA_FLAGS = {
    None: [],
    "virtual": ["--virtual-stages", "2"],
    "experts": ["--expert-parallel", "2"],
    "sequence": ["--sequence-parallel"],
}


def _table() -> list[Row]:
    every = list(itertools.product(*COLUMNS))
    return random.Random(20261207).sample(every, 240)  # type: ignore[arg-type]


TABLE = _table()
FORMATS = list(ExportFormat)
#: models whose LoRA projections the app does not model (a mixture of experts)
UNSIZED_LORA = ("mixtral-8x7b",)


def _id(row: Row) -> str:
    model, card, framework, (zero, offload), tp, pp, cp, fp8, precision, lora, nodes, extra = row
    return (
        f"{model}-{card[:4]}-{framework}-z{zero}{offload[0]}-t{tp}p{pp}c{cp}"
        f"{'-fp8' if fp8 else ''}-{precision}{'-lora' if lora else ''}-n{nodes}"
        f"{'-' + extra if extra else ''}"
    )


def flags(row: Row) -> list[str]:
    """The description flags of one row: the same for every command."""
    model, card, framework, (zero, offload), tp, pp, cp, fp8, precision, lora, nodes, extra = row
    out = [
        "--model", model, "--seq-len", MODELS[model], "--gpu-card", card,
        "--framework", framework, "--zero-stage", zero, "--offload", offload,
        "--tensor-parallel", tp, "--pipeline-stages", pp, "--context-parallel", cp,
        "--precision", precision, "--nodes", nodes, "--gpus", str(GPUS),
        "--price-per-gpu-hour", "2.5", "--goodput", "0.9",
    ]  # fmt: skip
    if fp8:
        out.append("--fp8")
    if lora is not None:
        out += ["--lora-rank", lora]
    return out + EXTRA_FLAGS[extra]


def gradacc(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def without_notice(err: str) -> str:
    """``err`` without ``time``'s one notice (it reads --gpus as the data-parallel GPUs
    now, and says so when model-parallel sizes make the world larger)."""
    if err.startswith("gradacc: time --gpus "):
        return err.split("\n", 1)[1]
    return err


def as_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = gradacc(capsys, *argv, "--json")
    assert code == 0, err
    # time reads --gpus as the data-parallel GPUs and says so once with model-parallel
    # sizes; activation says when it does not split the model per rank; nothing else
    assert without_notice(err) == "" or (
        argv[0] == "activation" and err.startswith("gradacc: note: --tensor-parallel: ")
    )
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def commands(row: Row, fmt: ExportFormat) -> dict[str, list[str]]:
    d, micro = flags(row), ["--micro-batch", str(MICRO)]
    steps = ["--accumulation-steps", str(STEPS)]
    return {
        "memory": ["memory", *d, *micro],
        "time": ["time", *d, *micro, "--target-batch", str(TARGET), "--tokens", TOKENS],
        "activation": ["activation", *d],
        "export": ["export", *d, *micro, *steps, "--format", fmt.value],
    }


def plan_argv(row: Row, framework: str | None = None) -> list[str]:
    d = flags(row)
    if framework is not None:
        d[d.index("--framework") + 1] = framework
    return ["plan", *d, "--micro-batch", str(MICRO), "--target-batch", str(TARGET),
            "--tokens", TOKENS]  # fmt: skip


def rules(items: list[dict[str, Any]]) -> list[tuple[str | None, str]]:
    return [(r["framework"], r["rule"]) for r in items]


def plain(text: str) -> str:
    """A sentence without the thousands separators the window's locale adds."""
    return re.sub(r"(?<=\d),(?=\d{3})", "", text)


def texts(view: object) -> str:
    """Every text of a view (dataclasses of texts, tuples of them), joined."""
    if isinstance(view, str):
        return view
    if is_dataclass(view) and not isinstance(view, type):
        return "\n".join(texts(getattr(view, f.name)) for f in fields(view))
    if isinstance(view, tuple | list):
        return "\n".join(texts(v) for v in view)
    return ""


def test_the_table_covers_every_value_and_every_outcome() -> None:
    assert len(TABLE) >= 200 and len(set(TABLE)) == len(TABLE)
    for column, values in enumerate(COLUMNS):
        assert {row[column] for row in TABLE} == set(values), column


def test_the_table_meets_every_refusal_and_problem_it_can(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The rows reach the rule book's entries and the description's problems that these
    columns can give (each entry's own edge cases are tests/core/test_rules.py's)."""
    rules_seen: set[str] = set()
    problems_seen: set[str] = set()
    for row in TABLE:
        if row[9] is not None and row[0] in UNSIZED_LORA:
            continue
        plan = as_json(capsys, *plan_argv(row))
        rules_seen |= {r["rule"] for r in plan["refusals"]}
        problems_seen |= {p["rule"] for p in plan["problems"]}
    assert rules_seen >= {
        "pipeline_zero", "experts_zero3", "heads", "layers", "interleaving", "fsdp_zero1",
        "fsdp_offload",
    }  # fmt: skip
    assert problems_seen >= {k.value for k in PREVENTED}


# -- the window ------------------------------------------------------------------------


def window(row: Row) -> tuple[TrainingViewModel, PlannerViewModel]:
    """The row described in the window as a user does it: choices, then fields (a field
    or box the window keeps off stays as it is: the caller checks it)."""
    model, card, framework, (zero, offload), tp, pp, cp, fp8, precision, lora, nodes, extra = row
    vm = TrainingViewModel(QLocale("en"))
    for choice, value in (
        (Choice.CARD, card), (Choice.MODEL, model), (Choice.FRAMEWORK, framework),
        (Choice.PRECISION, precision), (Choice.ZERO, int(zero)), (Choice.OFFLOAD, offload),
    ):  # fmt: skip
        options = {str(getattr(v, "value", v)): v for v, _ in vm.options(choice)}
        vm.set_choice(choice, options[str(value)])
    vm.set_choice(Choice.RECOMMEND, False)
    if lora is not None:
        options = {str(getattr(v, "value", v)): v for v, _ in vm.options(Choice.METHOD)}
        vm.set_choice(Choice.METHOD, options["lora"])
    for field, text in (
        (F.SEQ_LEN, MODELS[model]), (F.TARGET, str(TARGET)), (F.GPUS, str(GPUS)),
        (F.NODES, nodes), (F.TENSOR_PARALLEL, tp), (F.PIPELINE_STAGES, pp),
        (F.CONTEXT_PARALLEL, cp), (F.MICRO_BATCH, str(MICRO)), (F.TOKENS, TOKENS),
        (F.PRICE, "2.5"), (F.GOODPUT, "90"),
    ):  # fmt: skip
        vm.set_text(field, text)
    if lora is not None:
        vm.set_text(F.LORA_RANK, lora)
    if fp8 and vm.check(Choice.FP8).enabled:
        vm.set_choice(Choice.FP8, True)
    if extra == "virtual" and vm.editable(F.VIRTUAL_STAGES):
        vm.set_text(F.VIRTUAL_STAGES, "2")
    if extra == "experts" and vm.editable(F.EXPERT_PARALLEL):
        vm.set_text(F.EXPERT_PARALLEL, "2")
    if extra == "sequence" and vm.check(Choice.SEQUENCE_PARALLEL).enabled:
        vm.set_choice(Choice.SEQUENCE_PARALLEL, True)
    return vm, PlannerViewModel(vm, CalculatorViewModel(QLocale("en")))


@pytest.fixture
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


@pytest.mark.parametrize(
    "row,fmt",
    [(row, FORMATS[i % len(FORMATS)]) for i, row in enumerate(TABLE)],
    ids=[_id(r) for r in TABLE],
)
def test_every_door_gives_the_same_answer(
    capsys: pytest.CaptureFixture[str], english: None, row: Row, fmt: ExportFormat
) -> None:
    """``fmt``: the export format of this row (every format in turn)."""
    if row[9] is not None and row[0] in UNSIZED_LORA:
        # LoRA on a model whose projections are not known: the commands ask for the
        # adapters' parameters, the window for the same figure
        for command in (plan_argv(row), *commands(row, fmt).values()):
            code, out, err = gradacc(capsys, *command)
            err = without_notice(err)
            assert (code, out) == (2, "") and err.startswith(
                "gradacc: error: --lora-rank: this model's projections are not known: give "
                "the adapters' parameters with --trainable-params"
            ), (command[0], err)
        vm, planner = window(row)
        assert vm.state.plan is not None
        assert vm.state.plan.figures.other.missing is Missing.LORA_NOT_SIZED
        _close(vm, planner)
        return
    plan = as_json(capsys, *plan_argv(row))
    kinds = [ProblemKind(p["rule"]) for p in plan["problems"]]
    prevented = [k for k in kinds if k in PREVENTED]
    if prevented:
        # the commands refuse it with the core's sentence; the window keeps it from
        # arising: the box is off and says the same sentence, the field is read-only
        _refused(capsys, commands(row, fmt), plan)
        vm, planner = window(row)
        for kind in prevented:
            message = next(p["message"] for p in plan["problems"] if p["rule"] == kind.value)
            control = PREVENTED[kind]
            if isinstance(control, Choice):
                check = vm.check(control)
                assert not check.enabled and plain(check.hint).endswith(plain(message)), check
            else:
                assert not vm.editable(control), control
        assert vm.state.plan is not None and vm.state.plan.problems == ()
        _close(vm, planner)
        row = _without(row, prevented)
        plan = as_json(capsys, *plan_argv(row))
    argv = commands(row, fmt)
    vm, planner = window(row)
    state = vm.state
    assert state.plan is not None, state.problems
    window_plan = state.plan
    assert window_plan.description.fp8 == row[7]
    assert (window_plan.description.virtual_stages > 1) == (row[11] == "virtual")
    assert (window_plan.description.expert_parallel > 1) == (row[11] == "experts")
    assert window_plan.description.sequence_parallel == (row[11] == "sequence")

    # -- the same problems and refusals, in the same words -------------------------------
    said = [plain(text) for text in state.problems]
    for p in plan["problems"]:
        assert plain(p["message"]) in said, (p, said)
    assert [p.kind.value for p in window_plan.problems] == [p["rule"] for p in plan["problems"]]
    assert rules([r.as_dict() for r in window_plan.refusals]) == rules(plan["refusals"])
    if _refused(capsys, commands(row, fmt), plan):
        _close(vm, planner)
        return

    # -- the plan's figures in the window ------------------------------------------------
    figs = window_plan.figures
    assert (figs.states.gpu_bytes if figs.states else None) == plan["model_states_bytes"]
    assert window_plan.cpu_bytes_per_node == plan["cpu_bytes_per_node"]
    assert window_plan.cpu_fits is plan["cpu_fits"] is None
    assert figs.activation.bytes == plan["activation_bytes_per_sample"]
    step = None if window_plan.current is None else window_plan.current.time
    assert (None if step is None else rounded(step.step_seconds)) == _decimal(plan["step_seconds"])
    runs = {line.kind: line.totals for line in window_plan.run}
    if plan.get("run"):
        tokens = plan["run"]["tokens"]
        assert (runs["tokens"].steps, rounded(runs["tokens"].seconds)) == (
            tokens["steps"], _decimal(tokens["seconds"]),
        )  # fmt: skip
    else:
        assert "tokens" not in runs
    results = planner.state.results
    assert results is not None, planner.state.problems
    shown = plain(texts(results))
    for refusal in plan["refusals"]:
        assert plain(refusal["message"]) in shown, refusal

    # -- memory ----------------------------------------------------------------------------
    memory = as_json(capsys, *argv["memory"])
    for key in (
        "model_states_bytes", "activation_bytes_per_sample", "per_gpu_bytes", "usable_bytes",
        "fits", "cpu_bytes_per_node", "cpu_fits", "framework", "layout", "trainable_params",
        "max_micro_batch",
    ):  # fmt: skip
        assert memory[key] == plan[key], key
    # every parameter a GPU's shard comes from: LoRA's adapters on top of the model's
    adapters = plan["trainable_params"] if row[9] is not None else 0
    assert memory["params"] == plan["params"] + adapters
    full = "adam_mixed" if row[8] == "bf16" else "adam_fp32"
    assert memory["recipe"] == ("lora" if row[9] is not None else full)

    # -- time ------------------------------------------------------------------------------
    time = as_json(capsys, *argv["time"])
    for key in (
        "micro_batch", "accumulation_steps", "step_seconds", "tokens_per_second",
        "tokens_per_second_per_gpu", "mfu", "hfu", "parts", "fits", "per_gpu_bytes", "layout",
        "run", "gpus",
    ):  # fmt: skip
        assert time[key] == plan[key], key
    if plan["run"] is not None:
        tokens = plan["run"]["tokens"]
        assert (time["seconds"], time["steps"], time["cost"]) == (
            tokens["seconds"], tokens["steps"], tokens["cost"],
        )  # fmt: skip

    # -- activation --------------------------------------------------------------------------
    split = [r for r in plan["refusals"] if r["rule"] in ("heads", "query_groups")]
    if split:  # the estimator has no rank to count: the rule book's sentence
        code, out, err = gradacc(capsys, *argv["activation"])
        assert (code, out) == (2, "")
        assert err == f"gradacc: error: --tensor-parallel: {split[0]['message']}\n"
    else:
        activation = as_json(capsys, *argv["activation"])
        for key in ("activation_bytes_per_sample", "activation_bytes_per_gpu_per_sample"):
            assert activation[key] == plan[key], key

    # -- export: the format's framework refuses what the plan of the layout its files
    # carry refuses under that framework ----------------------------------------------------
    export = as_json(capsys, *argv["export"])
    # accelerate's file is FSDP's plugin for an FSDP plan
    framework = framework_of(fmt, TrainingSetup(1, 1, 1, framework=Framework(plan["framework"])))
    carried = export["files_layout"]
    if framework is None:
        assert export["refusals"] == []
    else:
        argv_ = plan_argv(row, framework.value)
        for flag, key in (
            ("--gpus", "data_parallel"), ("--tensor-parallel", "tensor_parallel"),
            ("--pipeline-stages", "pipeline_stages"), ("--context-parallel", "context_parallel"),
        ):  # fmt: skip
            argv_[argv_.index(flag) + 1] = str(carried[key])
        under = plan if argv_ == plan_argv(row) else as_json(capsys, *argv_)
        assert export["refusals"] == under["refusals"], (fmt, carried)
    assert export["layout"]["world_size"] == plan["layout"]["world_size"]
    _close(vm, planner)


#: problems the window keeps from arising, and the control it keeps off
PREVENTED: dict[ProblemKind, Choice | F] = {
    ProblemKind.FP8_CARD: Choice.FP8,
    ProblemKind.FP8_PRECISION: Choice.FP8,
    ProblemKind.SEQUENCE_PARALLEL: Choice.SEQUENCE_PARALLEL,
    ProblemKind.VIRTUAL_STAGES: F.VIRTUAL_STAGES,
    ProblemKind.EXPERTS_NOT_MOE: F.EXPERT_PARALLEL,
}


def _without(row: Row, prevented: list[ProblemKind]) -> Row:
    """``row`` without what the window keeps off (as the window describes it)."""
    fp8 = row[7] and not {ProblemKind.FP8_CARD, ProblemKind.FP8_PRECISION} & set(prevented)
    extra = row[11]
    if extra is not None and any(k not in (ProblemKind.FP8_CARD, ProblemKind.FP8_PRECISION)
                                 for k in prevented):  # fmt: skip
        extra = None
    return (*row[:7], fp8, *row[8:11], extra)  # type: ignore[return-value]


def _refused(
    capsys: pytest.CaptureFixture[str], argv: dict[str, list[str]], plan: dict[str, Any]
) -> bool:
    """Whether ``plan`` has a problem; then every other command refuses the description
    with its first sentence (exit 2, the flag named)."""
    first = next((p for p in plan["problems"] if ProblemKind(p["rule"]) not in SETUP_KINDS), None)
    if first is None:
        return False
    flag = FIELD[ProblemKind(first["rule"])].replace("_", "-")
    for name, command in argv.items():
        code, out, err = gradacc(capsys, *command)
        assert (code, out) == (2, ""), (name, err)
        err = without_notice(err)
        assert err == f"gradacc: error: --{flag}: {first['message']}\n", (name, err)
    return True


def _decimal(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def _close(*objects: Any) -> None:
    for o in objects:
        o.deleteLater()


# -- the search --------------------------------------------------------------------------

#: one search per (model, card, framework, FP8, LoRA, nodes) group of rows with no problem
SEARCHES = sorted(
    {
        (r[0], r[1], r[2], r[7], r[9], r[10])
        for r in TABLE
        if r[8] == "bf16" and r[6] == "1" and not (r[9] and r[0] in UNSIZED_LORA)
    },
    key=str,
)[::3]


@pytest.mark.parametrize("group", SEARCHES, ids=["-".join(map(str, g)) for g in SEARCHES])
def test_the_searchs_candidates_are_plans(
    capsys: pytest.CaptureFixture[str], group: tuple[str, str, str, bool, str | None, str]
) -> None:
    model, card, framework, fp8, lora, nodes = group
    base = [
        "--model", model, "--seq-len", MODELS[model], "--gpu-card", card,
        "--framework", framework, "--nodes", nodes, "--target-batch", "64",
    ]  # fmt: skip
    if fp8 and card == "h100-80gb":
        base.append("--fp8")
    if lora is not None:
        base += ["--lora-rank", lora]
    found = as_json(capsys, "plan", *base, "--world-size", "8", "--auto")
    assert found["ranking"], found["exclusions"]
    for ranked in found["ranking"][:3]:
        layout = [
            "--zero-stage", str(ranked["zero_stage"]), "--offload", ranked["offload"],
            "--recompute", ranked["recompute"], "--tensor-parallel",
            str(ranked["tensor_parallel"]), "--pipeline-stages", str(ranked["pipeline_stages"]),
            "--gpus", str(ranked["gpus"]), "--micro-batch", str(ranked["micro_batch"]),
        ]  # fmt: skip
        planned = as_json(capsys, "plan", *base, *layout)
        assert planned["refusals"] == [] and planned["problems"] == []
        assert planned["fits"] is True
        for key in ("step_seconds", "per_gpu_bytes", "cpu_bytes_per_node"):
            assert planned[key] == ranked[key], key
        assert planned["accumulation_steps"] == ranked["accumulation_steps"]
