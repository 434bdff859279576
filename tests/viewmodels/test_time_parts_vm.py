"""Where one optimizer step's time goes (the "Time per step" card's breakdown) and the
description's time-model inputs that move it: virtual stages, FP8 products, the
attention kernel, the links, the goodput."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.memory.setup import Precision
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.step_results import PART_NAMES
from gradacc_desktop.viewmodels.planner import PlannerViewModel, TimePart, TimeView
from gradacc_desktop.viewmodels.training.fields import Choice
from gradacc_desktop.viewmodels.training.fields import TrainingField as F
from tests.planner_setup import pipeline, planner, timed


@pytest.fixture(autouse=True)
def english(catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("en")


def time(vm: PlannerViewModel) -> TimeView:
    results = vm.state.results
    assert results is not None, vm.state.problems
    card = results.time
    assert card is not None and card.available, card
    return card


def _figure(text: str, thousands: str = ",", point: str = ".") -> Decimal:
    """The number of "0.62 s", "2.59 ms", "71.6 %", "< 0.1 %" as a user reads it (in s)."""
    found = re.search(r"[\d" + re.escape(thousands + point) + r"]+", text)
    assert found is not None, text
    value = Decimal(found.group(0).replace(thousands, "").replace(point, "."))
    return value / 1000 if text.endswith(" ms") else value


def _part(card: TimeView, key: str) -> TimePart:
    return next(part for part in card.parts if part.key == key)


def _seconds(card: TimeView, key: str) -> Decimal:
    return _figure(_part(card, key).seconds)


def _step(card: TimeView) -> Decimal:
    return _figure(card.summary.split(" per optimizer step")[0])


def test_the_parts_add_up_to_the_step(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm.training)
    card = time(vm)
    assert card.parts_title == "Where one optimizer step's time goes"
    keys = [part.key for part in card.parts]
    assert keys == [key for key in PART_NAMES if key in keys]  # in the core's order
    # one A100 node, no model split: products, attention, memory-bound work, the
    # gradients' all-reduce, the update and the framework's own work per step; the
    # kernels outlast the host's work per layer (no wait for it)
    assert {"matmul", "attention", "memory", "data_parallel", "optimizer", "framework"} <= set(keys)
    assert not {"tensor_parallel", "pipeline", "bubble", "measured", "overhead"} & set(keys)
    assert _part(card, "matmul").name == "Matrix products"
    # the seconds shown (three significant digits each) add up to the step shown
    total = sum(_seconds(card, key) for key in keys)
    assert abs(total / _step(card) - 1) < Decimal("0.01")
    shares = sum(_figure(part.share) for part in card.parts if not part.share.startswith("<"))
    assert abs(shares - 100) <= Decimal("0.1") * len(keys)
    assert abs(sum(part.fraction for part in card.parts) - 1) < 1e-9
    # the products take most of a dense model's step
    assert max(card.parts, key=lambda part: part.fraction).key == "matmul"


def test_the_parts_in_portuguese(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    catalogue("pt_BR")
    vm = planner("pt_BR")
    pipeline(vm.training)
    card = time(vm)
    assert card.parts_title == "Para onde vai o tempo de um passo do otimizador"
    names = {part.key: part.name for part in card.parts}
    assert names["matmul"] == "Produtos de matrizes"
    assert names["bubble"] == "Bolha do pipeline"
    assert names["tensor_parallel"] == "Comunicação do paralelismo de tensor"
    bubble = _part(card, "bubble")
    assert re.fullmatch(r"\d+,\d+ s", bubble.seconds) and bubble.share.endswith(" %")
    total = sum(_figure(part.seconds, ".", ",") for part in card.parts)
    step = _figure(card.summary.split(" por passo")[0], ".", ",")
    assert abs(total / step - 1) < Decimal("0.01")
    assert re.fullmatch(
        r"2 × 32 é [\d,]+ % mais rápido: bolha do pipeline −[\d,]+\xa0s(, .+)?\.", card.difference
    ), card.difference


def test_virtual_stages_are_read_only_with_pipeline_stages(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    pipeline(training)
    vm.choose_pair(8)  # 8 × 8: the bubble is 3 micro-steps of 8
    training.set_text(F.PIPELINE_STAGES, "1")
    assert not training.editable(F.VIRTUAL_STAGES)
    training.set_text(F.VIRTUAL_STAGES, "0")  # not read: no problem, nothing changes
    assert training.state.problems == ()
    training.set_text(F.VIRTUAL_STAGES, "1")
    training.set_text(F.PIPELINE_STAGES, "4")
    assert training.editable(F.VIRTUAL_STAGES)
    plain = time(vm)
    training.set_text(F.VIRTUAL_STAGES, "2")
    interleaved = time(vm)
    description = training.description
    assert description is not None and description.layout.virtual == 2
    # the bubble halves ((p − 1)/v micro-steps), the pipeline sends double
    ratio = _seconds(interleaved, "bubble") / _seconds(plain, "bubble")
    assert abs(ratio - Decimal("0.5")) < Decimal("0.02")
    assert _seconds(interleaved, "pipeline") > _seconds(plain, "pipeline")
    assert _step(interleaved) < _step(plain)
    # interleaved 1F1B runs whole groups of 4 micro-batches: Megatron refuses the rest
    results = vm.state.results
    assert results is not None
    verdicts = {row.accumulation_steps: row.cells[4] for row in results.pairs}
    assert verdicts[8] == "Both accept" and verdicts[2] == "Refused: interleaving"
    assert all(row.accepted == (row.accumulation_steps % 4 == 0) for row in results.pairs)
    training.set_text(F.VIRTUAL_STAGES, "0")  # read now: refused
    assert training.state.problems == ("Virtual stages per GPU: enter a value from 1 to 100,000.",)


def test_fp8_products_only_where_the_precision_and_the_card_allow(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    timed(training)
    assert not training.check(Choice.FP8).enabled  # an A100: no FP8 peak
    assert training.check(Choice.FP8).hint.endswith(
        "Off now: The NVIDIA A100 SXM4 80GB has no FP8 products (FP8 Tensor Cores start with "
        "Ada and Hopper)."
    )
    training.set_choice(Choice.FP8, True)
    description = training.description
    assert description is not None and not description.fp8  # chosen, not possible here
    training.set_choice(Choice.CARD, "h100-80gb")
    assert training.check(Choice.FP8).enabled and "Off now" not in training.check(Choice.FP8).hint
    fp8 = time(vm)
    assert fp8.utilisation.endswith(" of 1,979 TFLOP/s per GPU")  # the FP8 peak
    training.set_choice(Choice.FP8, False)
    sixteen = time(vm)
    assert sixteen.utilisation.endswith(" of 989.5 TFLOP/s per GPU")
    # the products run faster in FP8; attention stays 16-bit
    assert _seconds(fp8, "matmul") < _seconds(sixteen, "matmul")
    assert _seconds(fp8, "attention") == _seconds(sixteen, "attention")
    assert _step(fp8) < _step(sixteen)
    training.set_choice(Choice.FP8, True)
    training.set_choice(Choice.PRECISION, Precision.FP32)
    assert not training.check(Choice.FP8).enabled
    assert training.check(Choice.FP8).hint.endswith(
        "Off now: FP8 products run beside 16-bit training (bf16 or fp16), not with fp32."
    )
    description = training.description
    assert description is not None and not description.fp8


def test_eager_attention_costs_memory_and_time(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    timed(training, "qwen2.5-0.5b", "2048")
    training.set_text(F.ACTIVATION, "")  # the estimate, which follows the kernel
    training.set_choice(Choice.RECOMMEND, False)  # the same pair for both kernels
    training.set_text(F.MICRO_BATCH, "4")
    assert training.options(Choice.ATTENTION) == [
        (AttentionKernel.SDPA, "Fused: SDPA / FlashAttention 2"),
        (AttentionKernel.FLASH, "FlashAttention 3/4"),
        (AttentionKernel.EAGER, "Eager (scores through memory)"),
    ]
    fused, fused_note = time(vm), training.state.notes.activation.text
    training.set_choice(Choice.ATTENTION, AttentionKernel.EAGER)
    eager, eager_note = time(vm), training.state.notes.activation.text
    assert eager_note != fused_note
    assert _seconds(eager, "attention") > _seconds(fused, "attention")
    assert _step(eager) > _step(fused)


def test_flash_attention_3_keeps_what_sdpa_keeps_and_runs_faster_on_hopper(qapp) -> None:  # type: ignore[no-untyped-def]
    """FlashAttention 3 (Hopper) keeps what any fused kernel keeps, and its attention is
    faster than the fused kernels' at 32K tokens (ml-engineering's H200 runs); before
    Hopper the package's kernel is FlashAttention 2, SDPA's speed."""
    vm = planner()
    training = vm.training
    timed(training, "llama-3.1-8b", "32768")
    training.set_text(F.ACTIVATION, "")  # the estimate, which names the kernel
    training.set_choice(Choice.RECOMMEND, False)  # the same pair for both kernels
    training.set_text(F.MICRO_BATCH, "1")
    training.set_choice(Choice.RECOMPUTE, Recompute.FULL)
    times = {}
    for card in ("a100-80gb", "h100-80gb"):
        training.set_choice(Choice.CARD, card)
        for kernel in (AttentionKernel.SDPA, AttentionKernel.FLASH):
            training.set_choice(Choice.ATTENTION, kernel)
            times[card, kernel] = (time(vm), training.state.notes.activation.text)
    sdpa, flash = (
        times["h100-80gb", AttentionKernel.SDPA],
        times["h100-80gb", AttentionKernel.FLASH],
    )
    assert "FlashAttention 3/4" in flash[1] and "SDPA" in sdpa[1]
    assert flash[1].replace("FlashAttention 3/4", "SDPA") == sdpa[1]  # the same activation
    assert _seconds(flash[0], "attention") < _seconds(sdpa[0], "attention")
    assert _step(flash[0]) < _step(sdpa[0])
    ampere = [times["a100-80gb", k][0] for k in (AttentionKernel.SDPA, AttentionKernel.FLASH)]
    assert _seconds(ampere[0], "attention") == _seconds(ampere[1], "attention")


def test_typed_links_replace_the_cards(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    pipeline(training)
    assert training.placeholder(F.LINK) == "300 (the card's)"
    assert training.placeholder(F.NETWORK) == "25 (the card's)"
    before = time(vm)
    training.set_text(F.LINK, "30")  # a tenth of NVLink: the tensor-parallel all-reduces
    slow_link = time(vm)
    assert _seconds(slow_link, "tensor_parallel") > 5 * _seconds(before, "tensor_parallel")
    training.set_text(F.LINK, "")
    training.set_text(F.NETWORK, "2.5")  # the replicas talk across nodes
    slow_network = time(vm)
    assert _seconds(slow_network, "data_parallel") > _seconds(before, "data_parallel")
    assert _seconds(slow_network, "tensor_parallel") == _seconds(before, "tensor_parallel")
    training.set_choice(Choice.CARD, "h100-80gb")
    assert training.placeholder(F.LINK) == "450 (the card's)"
    training.set_text(F.LINK, "0")
    assert training.state.run_problems == (
        "Link between GPUs (GB/s): enter a value from 0.001 to 100,000.",
    )


def test_the_goodput_stretches_the_run_not_the_step(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    training = vm.training
    timed(training)
    training.set_text(F.TOKENS, "1000000000")
    training.set_text(F.PRICE, "2")
    assert training.placeholder(F.GOODPUT) == "100"
    full, full_cost = time(vm), vm.state.results.cost  # type: ignore[union-attr]
    training.set_text(F.GOODPUT, "50")
    half, half_cost = time(vm), vm.state.results.cost  # type: ignore[union-attr]
    assert half.summary == full.summary
    assert full_cost is not None and half_cost is not None
    assert half_cost.note == (
        "The time and cost count a goodput of 50 %: the rest of the wall-clock time goes "
        "to restarts, checkpoints and lost work."
    )
    before, after = full_cost.lines[0], half_cost.lines[0]
    # "3.93 h", "31.4 (8 GPUs)", "US$62.90": each twice as much
    for old, new in ((before.time, after.time), (before.gpu_hours, after.gpu_hours)):
        ratio = Decimal(new.split()[0].replace(",", "")) / Decimal(old.split()[0].replace(",", ""))
        assert abs(ratio - 2) < Decimal("0.01"), (old, new)
    ratio = Decimal(after.total.removeprefix("US$").replace(",", "")) / Decimal(
        before.total.removeprefix("US$").replace(",", "")
    )
    assert abs(ratio - 2) < Decimal("0.01")
    training.set_text(F.GOODPUT, "0.5")
    assert training.state.run_problems == ("Goodput (%): enter a value from 1 to 100.",)


def test_the_efficiency_field_says_it_is_modelled(qapp, catalogue) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    assert vm.training.placeholder(F.EFFICIENCY) == "modelled from the model's shape"
    catalogue("pt_BR")
    vm.training.set_language(QLocale("pt_BR"))
    assert vm.training.placeholder(F.EFFICIENCY) == "modelada pelo formato do modelo"
    assert vm.training.placeholder(F.GOODPUT) == "100"
    assert vm.training.placeholder(F.LINK) == "300 (da placa)"


def test_a_generation_without_published_runs_borrows_and_says_so(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    timed(vm.training)
    assert "No published" not in time(vm).note  # Ampere was fitted
    vm.training.set_choice(Choice.CARD, "l40s-48gb")
    assert "No published Ada Lovelace runs to fit: its kernels take Ampere's shares." in (
        time(vm).note
    )


def test_the_copied_plan_carries_the_parts_and_the_difference(qapp) -> None:  # type: ignore[no-untyped-def]
    vm = planner()
    pipeline(vm.training)
    card = time(vm)
    text = vm.clipboard_text()
    assert text is not None
    lines = text.splitlines()
    start = lines.index(card.parts_title)
    rows = lines[start + 1 : start + 1 + len(card.parts)]
    for row, part in zip(rows, card.parts, strict=True):
        assert row.split() == [*part.name.split(), *part.seconds.split(), *part.share.split()]
    assert card.fastest in lines and card.difference in lines
