"""The time model's ordering of (micro-batch, accumulation) pairs against this CPU.

For one global batch ``B = 16`` on one device, the pairs ``(b, a)`` with ``b · a = B``
do the same work, but a small micro-batch pays the per-micro-step fixed costs (the
products' ``tokens_half``, the launch gaps, reading the weights) more often; the planner
ranks the pairs by :class:`gradacc_desktop.core.time.steptime.StepModel`'s step time.

**Measured.** A real random-weight model (transformers, fp32, CPU, SDPA attention, no
dropout; Llama- and GPT-2-shaped, 4 layers, hidden 256, sequence 128) is timed for
every pair: one optimizer step is ``a`` forward + backward passes of ``b`` samples with
the gradients accumulating, then a plain SGD update and ``zero_grad(set_to_none=True)``.
``WARMUP_ROUNDS`` untimed rounds first, then ``ROUNDS`` timed rounds; each round times
every pair once, the order reversed every other round so a slow drift of the machine
does not favour one end; Python's garbage collector is off while timing;
``torch.set_num_threads(min(4, cpu_count))``.

The timing runs in a child process whose glibc allocator keeps the memory it frees
(``MALLOC_MMAP_THRESHOLD_``/``MALLOC_TRIM_THRESHOLD_`` of 1 GiB), as a caching
allocator does: PyTorch's CUDA allocator keeps its blocks, and PyTorch's performance
tuning guide recommends a caching allocator (jemalloc, TCMalloc) for CPU training. With
glibc's defaults the multi-megabyte activations of a large micro-batch go back to the
operating system after every step and are page-faulted in again on the next: up to
some 30 000 faults per step at ``b`` = 8 and 16 for these models on a 2-core VM,
almost none at ``b`` = 1, a host cost that grows with the micro-batch and that the time model does
not have. It made GPT-2's ``(16, 1)`` 1.06x to 1.25x slower (median) than ``(8, 2)``
or ``(4, 4)``, against the model's order (the model's step time falls with ``b`` at a
fixed ``B`` by construction). ``GRADACC_PAIR_MALLOC=default`` times with glibc's
defaults, to see it. The table shows the median minor page faults of a timed step.

**Modelled.** The same model is described to the calculator as its config
(``core.memory.families.parse_model_config`` → ``core.memory.models.facts``, what the planner reads
from an opened config.json, the workload built as ``core.training.plan.step_model``
builds it) on a custom "card" for this CPU: the peak is a 1024³ fp32 matmul's FLOP/s and
the memory bandwidth a 64 MiB tensor copy's (best of ten, measured by the child before
and after the pairs, the higher kept).

**The check.** Wherever the measurement separates two pairs clearly — the slower one's
median *and* its fastest run both more than ``CLEAR`` (15 %) above the other's (noise
on a shared CPU only adds time, so the minimum guards the median against a burst of
load, and the median guards the minimum against one lucky run) — the model must order
them the same way. At least one such clear comparison must exist, so the test cannot
pass by measuring nothing. ``pytest -s`` prints the measured and modelled table.
Skipped when torch or transformers are missing.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from gradacc_desktop.core.memory.families import parse_model_config  # noqa: E402
from gradacc_desktop.core.memory.models import ModelSpec, facts  # noqa: E402
from gradacc_desktop.core.precision import Precision  # noqa: E402
from gradacc_desktop.core.recompute import Recompute  # noqa: E402
from gradacc_desktop.core.time.compute import token_cost  # noqa: E402
from gradacc_desktop.core.time.gpus import Generation, custom_card, custom_performance  # noqa: E402
from gradacc_desktop.core.time.hardware import hardware  # noqa: E402
from gradacc_desktop.core.time.steptime import StepModel  # noqa: E402
from gradacc_desktop.core.time.workload import Workload  # noqa: E402

GLOBAL_BATCH = 16
PAIRS = ((1, 16), (2, 8), (4, 4), (8, 2), (16, 1))
SEQ = 128
WARMUP_ROUNDS = 2
ROUNDS = 7
#: two pairs are clearly separated when the slower one is more than this much slower
CLEAR = 0.15
#: glibc keeps what it frees (see the module's docstring)
CACHING_MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(2**30), "MALLOC_TRIM_THRESHOLD_": str(2**30)}
ROOT = Path(__file__).resolve().parents[2]

# A few layers, hidden 256, a small vocabulary (so the loss's logits do not swamp the
# blocks), positions for exactly SEQ tokens.
CONFIGS: dict[str, dict[str, Any]] = {
    "llama": {
        "model_type": "llama",
        "hidden_size": 256,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "intermediate_size": 704,
        "vocab_size": 1024,
        "max_position_embeddings": SEQ,
        "bos_token_id": 1,
        "eos_token_id": 2,
    },
    "gpt2": {
        "model_type": "gpt2",
        "n_embd": 256,
        "n_layer": 4,
        "n_head": 4,
        "vocab_size": 1024,
        "n_positions": SEQ,
        "bos_token_id": 1,
        "eos_token_id": 2,
    },
}


# --------------------------------------------------------------------------- the child


def _best_seconds(run: Any, repeats: int) -> float:
    run()  # warm-up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def measured_peak_flops() -> float:
    """FLOP/s of a 1024³ fp32 matmul, best of 10 (after three warm-ups)."""
    n = 1024
    a, b = torch.randn(n, n), torch.randn(n, n)
    out = torch.empty(n, n)
    for _ in range(2):
        torch.mm(a, b, out=out)
    return 2 * n**3 / _best_seconds(lambda: torch.mm(a, b, out=out), 10)


def measured_memory_bandwidth() -> float:
    """Bytes/s of copying a 64 MiB fp32 tensor (read + write), best of 10."""
    source = torch.ones(16 * 2**20)
    target = torch.empty_like(source)
    target.copy_(source)  # the pages are touched once before timing
    seconds = _best_seconds(lambda: target.copy_(source), 10)
    return 2 * source.numel() * source.element_size() / seconds


def _minor_faults() -> int:
    try:
        import resource
    except ImportError:  # not on Unix
        return 0
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def measure_pairs(config: dict[str, Any]) -> dict[str, Any]:
    """Seconds and minor page faults of one optimizer step for every pair, ROUNDS
    times each (keys ``"b,a"``)."""
    from gradacc_desktop.measure import build_model, random_batch

    torch.manual_seed(0)
    model = build_model(dict(config), dtype="fp32", attention="sdpa", dropout=False)
    model.train()
    batch = random_batch(model, SEQ, GLOBAL_BATCH)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)

    def step(b: int, a: int) -> None:
        for i in range(a):
            micro = {k: v[i * b : (i + 1) * b] for k, v in batch.items()}
            loss = model(**micro).loss / a
            loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    seconds: dict[str, list[float]] = {f"{b},{a}": [] for b, a in PAIRS}
    faults: dict[str, list[int]] = {f"{b},{a}": [] for b, a in PAIRS}
    gc.collect()
    gc.disable()  # no collection pauses inside a timed step (autograd frees by refcount)
    try:
        for rnd in range(WARMUP_ROUNDS + ROUNDS):
            for b, a in PAIRS if rnd % 2 == 0 else PAIRS[::-1]:
                before = _minor_faults()
                start = time.perf_counter()
                step(b, a)
                elapsed = time.perf_counter() - start
                if rnd >= WARMUP_ROUNDS:
                    seconds[f"{b},{a}"].append(elapsed)
                    faults[f"{b},{a}"].append(_minor_faults() - before)
    finally:
        gc.enable()
    return {"seconds": seconds, "faults": faults}


def child(name: str) -> None:
    """The measurement of ``CONFIGS[name]``, printed as one JSON line."""
    threads = min(4, os.cpu_count() or 1)
    torch.set_num_threads(threads)
    peak = measured_peak_flops()
    bandwidth = measured_memory_bandwidth()
    result = measure_pairs(CONFIGS[name])
    result["peak_flops"] = max(peak, measured_peak_flops())
    result["bandwidth"] = max(bandwidth, measured_memory_bandwidth())
    result["threads"] = threads
    print(json.dumps(result))


# -------------------------------------------------------------------------- the parent


@dataclass(frozen=True)
class Measured:
    times: tuple[float, ...]
    faults: tuple[int, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def best(self) -> float:
        return min(self.times)


@dataclass(frozen=True)
class Measurement:
    pairs: dict[tuple[int, int], Measured]
    peak_flops: float
    bandwidth: float
    threads: int
    allocator: str


def measure(name: str) -> Measurement:
    """Run :func:`child` in a fresh interpreter (its own heap, threads and allocator)."""
    env = dict(os.environ)
    allocator = "glibc default"
    if os.environ.get("GRADACC_PAIR_MALLOC", "") != "default":
        env.update(CACHING_MALLOC)
        allocator = "glibc keeping freed memory"
    code = f"from tests.measure.test_pair_ordering import child; child({name!r})"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    raw = json.loads(done.stdout.strip().splitlines()[-1])
    pairs = {
        (b, a): Measured(tuple(raw["seconds"][f"{b},{a}"]), tuple(raw["faults"][f"{b},{a}"]))
        for b, a in PAIRS
    }
    return Measurement(pairs, raw["peak_flops"], raw["bandwidth"], raw["threads"], allocator)


def _decimal(value: float) -> Decimal:
    """Three significant digits (a custom card's fields take a few decimals)."""
    return Decimal(f"{value:.3g}")


def modelled_pairs(
    config: dict[str, Any], peak_flops: float, bandwidth: float
) -> dict[tuple[int, int], Fraction]:
    """StepModel's seconds per optimizer step for every pair, with the model described
    as the planner describes an opened config (``plan.step_model``)."""
    model = facts(ModelSpec.config(parse_model_config(config), "config.json"))
    assert model.size is not None
    size = model.size
    performance = custom_performance(
        _decimal(peak_flops / 1e12),
        _decimal(bandwidth / 1e9),
        Decimal(1),
        Decimal(1),
        generation=Generation.AMPERE,
    )
    card = custom_card(Decimal(16), performance)
    hw = hardware(card, Precision.FP32, 1)
    cost = token_cost(model.compute_params, model.attention_shape, SEQ, Recompute.NONE)
    workload = Workload(
        cost=cost,
        seq_len=SEQ,
        precision=Precision.FP32,
        hidden=size.hidden,
        layers=size.layers,
        vocab=size.vocab,
        heads=size.shape.heads,
        flash_attention=True,
    )
    step_model = StepModel(workload, hw)
    return {(b, a): step_model.time(b, a).step_seconds for b, a in PAIRS}


def clearly_slower(slow: Measured, fast: Measured) -> bool:
    return slow.median > (1 + CLEAR) * fast.median and slow.best > (1 + CLEAR) * fast.best


def _table(name: str, m: Measurement, modelled: dict[tuple[int, int], Fraction]) -> str:
    fastest_measured = min(p.median for p in m.pairs.values())
    fastest_modelled = min(modelled.values())
    lines = [
        f"{name}: B={GLOBAL_BATCH}, seq {SEQ}, fp32, {m.threads} threads, {m.allocator}; "
        f"card: {m.peak_flops / 1e9:.0f} GFLOP/s (matmul), {m.bandwidth / 1e9:.1f} GB/s "
        f"(copy); median and best of {ROUNDS}",
        "  (b, a)    measured median    best   vs fastest  faults/step | modelled  vs fastest",
    ]
    for pair in PAIRS:
        p, s = m.pairs[pair], modelled[pair]
        lines.append(
            f"  {pair!s:8}  {p.median:8.3f} s  {p.best:7.3f} s    "
            f"{p.median / fastest_measured:5.2f}x  {statistics.median(p.faults):11.0f} | "
            f"{float(s):7.3f} s  "
            f"{float(s / fastest_modelled):5.2f}x"
        )
    return "\n".join(lines)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_model_orders_pairs_as_the_cpu_does(name: str) -> None:
    config = CONFIGS[name]
    m = measure(name)
    modelled = modelled_pairs(config, m.peak_flops, m.bandwidth)

    agree: list[str] = []
    disagree: list[str] = []
    for i, p in enumerate(PAIRS):
        for q in PAIRS[i + 1 :]:
            for slow, fast in ((p, q), (q, p)):
                if not clearly_slower(m.pairs[slow], m.pairs[fast]):
                    continue
                ratio = m.pairs[slow].median / m.pairs[fast].median
                verdict = f"{slow} slower than {fast}: {ratio:.2f}x measured"
                model_ratio = float(modelled[slow] / modelled[fast])
                if modelled[slow] > modelled[fast]:
                    agree.append(f"{verdict}, {model_ratio:.2f}x modelled")
                else:
                    disagree.append(f"{verdict}, but {model_ratio:.2f}x modelled")
    report = "\n".join(
        [_table(name, m, modelled), "  clearly separated, same order in the model:"]
        + [f"    {line}" for line in agree]
        + (["  ORDERED THE OTHER WAY BY THE MODEL:"] if disagree else [])
        + [f"    {line}" for line in disagree]
    )
    print("\n" + report)
    assert not disagree, report
    assert agree, "the measurement separated no two pairs clearly:\n" + report
