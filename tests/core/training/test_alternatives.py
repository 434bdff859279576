"""What would fit when nothing does."""

from __future__ import annotations

from dataclasses import replace

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.models import ModelSpec
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.training.alternatives import Change, alternatives
from gradacc_desktop.core.training.description import Method, TrainingDescription
from gradacc_desktop.core.training.plan import plan

TABLE = load_gpu_table()
LLAMA_ON_ONE_A100 = TrainingDescription(
    model=ModelSpec.bundled("llama-3.1-8b"),
    seq_len=4096,
    card=TABLE.by_id("a100-80gb"),
    target_batch=512,
    gpus=8,
)


def test_each_alternative_fits_when_planned() -> None:
    assert plan(LLAMA_ON_ONE_A100).no_fit is not None
    found = alternatives(LLAMA_ON_ONE_A100, TABLE.cards)
    assert {a.change for a in found} >= {Change.ZERO_STAGE, Change.QLORA, Change.GPUS}
    for alternative in found:
        p = plan(alternative.description)
        assert p.fits is True, alternative.change
        assert p.fit is not None and p.fit.max_micro_batch == alternative.max_micro_batch
        assert p.figures.other.bytes == alternative.other_bytes


def test_the_least_disruptive_change_of_each_kind_comes_first() -> None:
    found = {a.change: a for a in alternatives(LLAMA_ON_ONE_A100, TABLE.cards)}
    # ZeRO-2 over the 8 GPUs is enough: ZeRO-3 is not offered first
    assert found[Change.ZERO_STAGE].description.zero_stage is ZeroStage.GRADIENTS
    assert found[Change.QLORA].description.method is Method.QLORA
    # a short sequence's activations fit once recomputed
    short = replace(LLAMA_ON_ONE_A100, model=ModelSpec.bundled("qwen2.5-0.5b"), seq_len=32768)
    assert plan(short).no_fit is not None
    recompute = {a.change: a for a in alternatives(short, TABLE.cards)}
    assert recompute[Change.RECOMPUTE].description.recompute is Recompute.FULL


def test_a_larger_card_is_offered_when_one_is_large_enough() -> None:
    d = replace(
        LLAMA_ON_ONE_A100,
        model=ModelSpec.bundled("llama-3.2-3b"),
        seq_len=1024,
        gpus=1,
        card=TABLE.by_id("rtx-4090-24gb"),
    )
    assert plan(d).no_fit is not None
    card = {a.change: a for a in alternatives(d, TABLE.cards)}[Change.CARD]
    assert card.description.card is not None
    assert card.description.card.usable_gb >= 64  # 3.2B x 20 bytes needs a big card
    smaller = [c for c in TABLE.cards if c.usable_gb < card.description.card.usable_gb]
    for other in smaller:
        if other.usable_gb > 24:
            assert plan(replace(d, card=other)).no_fit is not None


def test_fsdp_is_offered_torchtitans_per_op_recomputation_before_full() -> None:
    # Llama 3 70B at 4K tokens, FSDP2 (ZeRO-3) over 128 H100: none does not fit a sample
    d = TrainingDescription(
        model=ModelSpec.bundled("llama-3-70b"), seq_len=4096, card=TABLE.by_id("h100-80gb"),
        target_batch=1024, gpus=128, zero_stage=ZeroStage.WEIGHTS, framework=Framework.FSDP,
    )  # fmt: skip
    assert plan(d).fits is False
    found = {a.change: a for a in alternatives(d, TABLE.cards)}
    assert found[Change.RECOMPUTE].description.recompute is Recompute.SELECTIVE_OP
    # DeepSpeed offers full only
    deepspeed = {a.change: a for a in alternatives(replace(d, framework=Framework.DEEPSPEED))}
    assert deepspeed[Change.RECOMPUTE].description.recompute is Recompute.FULL


def test_tensor_parallelism_is_offered_on_the_same_gpus_and_nothing_refused() -> None:
    d = LLAMA_ON_ONE_A100
    assert plan(d).fits is False
    found = alternatives(d, TABLE.cards)
    for a in found:
        p = plan(a.description)
        assert p.refusals == () and p.problems == (), a.change
        if a.change is not Change.GPUS:  # only "more GPUs" adds GPUs
            assert a.description.world == d.world, a.change
    tp = {a.change: a for a in found}[Change.TENSOR_PARALLEL].description
    assert tp.tensor_parallel > 1 and tp.gpus * tp.tensor_parallel == 8


def test_a_recomputation_the_framework_does_not_run_is_replaced_by_one_it_does() -> None:
    # per-op selective under DeepSpeed counts none: full recomputation is offered
    d = replace(LLAMA_ON_ONE_A100, zero_stage=ZeroStage.WEIGHTS, seq_len=8192,
                recompute=Recompute.SELECTIVE_OP)  # fmt: skip
    assert plan(d).fits is False
    found = {a.change: a for a in alternatives(d, TABLE.cards)}
    assert found[Change.RECOMPUTE].description.recompute is Recompute.FULL
