"""Published training runs against the time model: ``make time-table``.

Reads ``benchmarks/published_runs.json`` (every run's source, layout and published
throughput), describes each run as a user would — the model's shape, the card, the
layout, the batch — plans it with the one planning entry (``core.training.plan``) and
compares the predicted tokens per second per GPU with the published figure. Writes the
table, the fit's error and the held-out error into ``docs/TIME.md`` between the
``time-table`` markers (``--check``: fail if the page is not up to date).

The step model's constants are fitted on measured runs (``make measured-fit``,
``benchmarks/measured_table.py``), not on these: this table checks them on
throughputs published for whole runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.batch.planning import Rounding
from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.lora import Family
from gradacc_desktop.core.memory.models import ModelSpec, TypedShape
from gradacc_desktop.core.memory.setup import Precision
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.time.steptime import StepModel
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.plan import plan

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "benchmarks" / "published_runs.json"
PAGE = ROOT / "docs" / "TIME.md"
START = "<!-- time-table:start (make time-table writes this part) -->"
END = "<!-- time-table:end -->"

#: the goal the issue set: from the card and the layout alone
GOAL_MEDIAN = Decimal("0.10")
GOAL_WORST = Decimal("0.25")


class Skipped(Exception):
    """A run the model cannot describe (its reason goes in the table)."""


@dataclass(frozen=True)
class Row:
    run: dict[str, Any]
    published: Fraction
    predicted: Fraction | None
    skipped: str = ""

    @property
    def counted(self) -> bool:
        """In the goal: confirmed figures on a catalogue card, and the runs the goal
        names whatever their figures (``in_goal``)."""
        if self.predicted is None:
            return False
        if self.run.get("in_goal"):
            return True
        return not self.run.get("unconfirmed") and not self.run.get("card_note")

    @property
    def ratio(self) -> Fraction | None:
        return None if self.predicted is None else self.predicted / self.published

    @property
    def error(self) -> Fraction | None:
        ratio = self.ratio
        return None if ratio is None else abs(ratio - 1)


def _recompute(run: dict[str, Any]) -> Recompute:
    """The run's recomputation: Megatron's selective recomputation (Korthikanti et al.
    2022, eager attention) recomputes the attention core, as the time model prices
    ``Recompute.SELECTIVE`` (with a fused attention there are no scores to drop:
    described as none); torchtitan's "selective op" checkpointing is
    ``Recompute.SELECTIVE_OP``."""
    if run["recompute"] in ("full", "selective-op"):
        return Recompute(run["recompute"])
    if run["recompute"] == "selective" and not run["flash_attention"]:
        return Recompute.SELECTIVE
    return Recompute.NONE


def load_runs(path: Path = RUNS) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != "gradacc-published-runs":
        raise SystemExit(f"{path}: not a published-runs file")
    runs: list[dict[str, Any]] = data["runs"]
    return runs


def _shape(run: dict[str, Any]) -> TypedShape:
    m = run["model"]
    if m.get("experts"):
        raise Skipped("a mixture of experts (no run of one is in the table)")
    gated = bool(m.get("gated_mlp"))
    return TypedShape(
        family=Family.LLAMA if gated else Family.GPT2,
        hidden=m["hidden"],
        layers=m["layers"],
        heads=m["heads"],
        kv_heads=m.get("kv_heads") or m["heads"],
        intermediate=m["ffn_hidden"],
        vocab=m["vocab"],
        max_positions=max(run["seq_len"], 1),
    )


def describe(run: dict[str, Any]) -> TrainingDescription:
    """The run as a user describes it in the window or on the command line."""
    if run.get("expert_parallel", 1) != 1:
        raise Skipped("expert parallelism is not described")
    precision = run["precision"]
    fp8 = precision == "fp8"
    if fp8:
        precision = Precision.BF16.value  # FP8 products around bf16 training
    card = load_gpu_table().by_id(run["card"])
    tp, pp = run["tensor_parallel"], run["pipeline_parallel"]
    dp, cp = run["data_parallel"], run.get("context_parallel", 1)
    if dp * tp * pp * cp != run["gpus"]:
        raise Skipped(f"dp·tp·pp·cp = {dp * tp * pp * cp} is not the {run['gpus']} GPUs")
    per_node = run["gpus_per_node"]
    nodes = max(1, run["gpus"] // per_node)
    network = run.get("network_gbps")
    return TrainingDescription(
        model=ModelSpec.typed_shape(_shape(run)),
        precision=Precision(precision),
        fp8=fp8,
        seq_len=run["seq_len"],
        attention=AttentionKernel.SDPA if run["flash_attention"] else AttentionKernel.EAGER,
        card=card,
        gpus=dp,
        nodes=nodes,
        tensor_parallel=tp,
        pipeline_stages=pp,
        virtual_stages=run.get("virtual_stages", 1),
        context_parallel=cp,
        zero_stage=ZeroStage(run.get("zero_stage", 0)),
        recompute=_recompute(run),
        framework=Framework(run["framework"]),
        sequence_parallel=bool(run.get("sequence_parallel")),
        tp_comm_overlap=bool(run.get("tp_comm_overlap")),
        grad_reduce_bf16=bool(run.get("grad_reduce_bf16")),
        target_batch=run["global_batch"],
        rounding=Rounding.CEIL,
        micro_batch=run["micro_batch"],
        network_gbps=None if network is None else Decimal(network),
    )


def _time(run: dict[str, Any]) -> tuple[StepModel, int, int]:
    p = plan(describe(run))
    if p.step_model is None or p.current is None:
        raise Skipped(f"no time: {p.time_missing}")
    pair = p.current
    if pair.effective_batch != run["global_batch"]:
        raise Skipped(f"the batch {run['global_batch']} is not reached exactly")
    return p.step_model, pair.micro_batch, pair.accumulation_steps


def rows(runs: list[dict[str, Any]]) -> list[Row]:
    found = []
    for run in runs:
        published = Fraction(Decimal(run["tokens_per_second_per_gpu"]))
        try:
            model, b, a = _time(run)
        except Skipped as why:
            found.append(Row(run, published, None, str(why)))
            continue
        step = model.time(b, a)
        found.append(Row(run, published, step.tokens_per_second_per_gpu))
    return found


def _pct(value: Fraction) -> str:
    return f"{float(value) * 100:+.1f} %"


def _layout(run: dict[str, Any]) -> str:
    text = f"TP{run['tensor_parallel']} PP{run['pipeline_parallel']}"
    if run.get("virtual_stages", 1) > 1:
        text += f" V{run['virtual_stages']}"
    if run.get("context_parallel", 1) > 1:
        text += f" CP{run['context_parallel']}"
    text += f" DP{run['data_parallel']}"
    if run.get("zero_stage"):
        text += f" ZeRO-{run['zero_stage']}"
    return text


def summary(
    found: list[Row], held_out: bool | None, counted: bool = True
) -> tuple[int, Fraction, Fraction] | None:
    errors = [
        r.error
        for r in found
        if r.error is not None
        and r.counted is counted
        and (held_out is None or bool(r.run.get("held_out")) is held_out)
    ]
    if not errors:
        return None
    return len(errors), Fraction(statistics.median(errors)), max(errors)


def sources(path: Path = RUNS) -> str:
    data = json.loads(path.read_text(encoding="utf-8"))
    return "\n".join(f"- [{s['citation']}]({s['url']})" for s in data["sources"])


def table(found: list[Row]) -> str:
    lines = [
        "| run | card | GPUs | layout | b × a | published tokens/s/GPU | predicted | error |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in found:
        run = r.run
        a = run["global_batch"] // (run["micro_batch"] * run["data_parallel"])
        held = " (held out)" if run.get("held_out") else ""
        if run.get("unconfirmed"):
            held += " (unconfirmed, in the goal)" if run.get("in_goal") else " (unconfirmed)"
        if run.get("card_note"):
            held += " (other card)"
        predicted = "—" if r.predicted is None else f"{float(r.predicted):,.0f}"
        error = f"not modelled: {r.skipped}" if r.ratio is None else _pct(r.ratio - 1)
        lines.append(
            f"| [{run['label']}]({run['url']}){held} | {run['card']} | "
            f"{run['gpus']} | {_layout(run)} | {run['micro_batch']} × {a} | "
            f"{float(r.published):,.0f} | {predicted} | {error} |"
        )
    lines.append("")
    for name, flag, counted in (
        ("fitted on", False, True),
        ("held out", True, True),
        ("all confirmed runs", None, True),
        ("unconfirmed figures or another card (not fitted, not in the goal)", None, False),
    ):
        s = summary(found, flag, counted)
        if s is not None:
            n, median, worst = s
            lines.append(
                f"- **{name}** ({n} runs): median error {float(median) * 100:.1f} %, "
                f"worst {float(worst) * 100:.1f} %"
            )
    skipped = sum(1 for r in found if r.predicted is None)
    if skipped:
        lines.append(f"- not modelled: {skipped} runs (the reason is in the table)")
    lines += ["", "Sources:", "", sources()]
    return "\n".join(lines)


def write_page(text: str, page: Path = PAGE) -> bool:
    """Put ``text`` between the markers; True when the page changed."""
    old = page.read_text(encoding="utf-8")
    if START not in old or END not in old:
        raise SystemExit(f"{page}: the time-table markers are missing")
    head, rest = old.split(START, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{START}\n{text}\n{END}{tail}"
    if new == old:
        return False
    page.write_text(new, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if docs/TIME.md is stale")
    parser.add_argument("--print", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    runs = load_runs()
    text = table(rows(runs))
    if args.print:
        print(text)
        return 0
    if args.check:
        current = PAGE.read_text(encoding="utf-8")
        if f"{START}\n{text}\n{END}" not in current:
            print(
                "docs/TIME.md: the published-runs table is stale: run make time-table",
                file=sys.stderr,
            )
            return 1
        return 0
    changed = write_page(text)
    print("docs/TIME.md " + ("updated" if changed else "already up to date"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
