"""Context parallelism end to end in the core: each sequence split over ``CP`` GPUs of a
replica — the world it adds, the activations and model states per GPU, ring attention's
key/value sends and their overlap with the attention, the data-parallel collectives
over dp · cp, the search and the exports."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

from gradacc_desktop.core.frameworks.export import ExportFormat, export, megatron_arguments
from gradacc_desktop.core.memory.model_states import model_states
from gradacc_desktop.core.memory.models import ModelSpec, facts
from gradacc_desktop.core.memory.zero import ZeroStage
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.time.communication import (
    CollectiveKind,
    What,
    When,
    exposed,
    ring_attention,
)
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.time.layout import ParallelLayout
from gradacc_desktop.core.time.step_results import PART_NAMES
from gradacc_desktop.core.time.steptime import BUS_EFFICIENCY
from gradacc_desktop.core.training.description import (
    ContextProblem,
    TrainingDescription,
    context_problem,
)
from gradacc_desktop.core.training.figures import Missing, figures
from gradacc_desktop.core.training.plan import TimeMissing, plan, step_model
from gradacc_desktop.core.training.search import Unsearchable, search

H100 = load_gpu_table().by_id("h100-80gb")
LLAMA = TrainingDescription(
    model=ModelSpec.bundled("llama-3.1-8b"), seq_len=32768, card=H100, gpus=2,
    tensor_parallel=2, target_batch=16, micro_batch=1, zero_stage=ZeroStage.OPTIMIZER,
)  # fmt: skip


def _model(d: TrainingDescription):  # type: ignore[no-untyped-def]
    found, missing, _ = step_model(d, figures(d))
    assert found is not None, missing
    return found


def test_the_world_grows_by_cp_and_gpus_stays_the_data_parallel_size() -> None:
    d = replace(LLAMA, context_parallel=4)
    assert d.world == 2 * 2 * 4
    assert d.layout == ParallelLayout(2, 2, 1, 1, 4)
    assert d.layout.gradient_ranks == 8
    setup = d.setup(1, 8)
    assert setup.world == 16 and setup.effective_batch == 16
    assert setup.context_parallel == 4


def test_the_sequence_must_split_into_two_cp_chunks() -> None:
    assert context_problem(1, 4097) is None
    assert context_problem(4, None) is None
    assert context_problem(4, 32768) is None
    assert context_problem(3, 32768) is ContextProblem.SEQUENCE
    assert context_problem(4, 4100) is ContextProblem.SEQUENCE  # 4 | 4100, 8 does not
    bad = replace(LLAMA, context_parallel=3)
    assert figures(bad).states is None and figures(bad).other.missing is Missing.LAYOUT
    assert step_model(bad, figures(bad))[1] is TimeMissing.LAYOUT


def test_each_gpu_keeps_one_cp_th_of_the_activations() -> None:
    one, four = figures(LLAMA), figures(replace(LLAMA, context_parallel=4))
    assert one.activation.bytes == four.activation.bytes  # one sample, the whole model
    assert one.activation_per_gpu is not None and four.activation_per_gpu is not None
    assert four.activation_per_gpu == one.activation_per_gpu / 4


def test_zero_partitions_over_dp_times_cp() -> None:
    # ZeRO-1 (Megatron's distributed optimizer): the optimizer states over dp · cp ranks
    one = model_states(1_000_000, 8, ZeroStage.OPTIMIZER)
    split = model_states(1_000_000, 2, ZeroStage.OPTIMIZER, context_parallel=4)
    assert split.gpu_bytes == one.gpu_bytes
    assert split.context_parallel == 4 and not split.from_deepspeed
    plain = model_states(1_000_000, 2, ZeroStage.OPTIMIZER)
    assert split.gpu_bytes < plain.gpu_bytes
    a = figures(replace(LLAMA, context_parallel=4)).states
    b = figures(replace(LLAMA, gpus=8)).states
    assert a is not None and b is not None and a.gpu_bytes == b.gpu_bytes


def test_ring_attention_volume() -> None:
    block = 2 * 1 * (32768 // 4) * 8 * 128 * 2 // 2  # 2·b·s/cp·kv_heads·head_dim·bytes / tp
    (ring,) = ring_attention(16, block, 4, Fraction(10**11), True, recompute=False)
    assert ring.kind is CollectiveKind.SEND_RECV and ring.what is What.KEYS_VALUES
    assert ring.when is When.MICRO_STEP
    # (cp − 1) sends in the forward, 2·(cp − 1) in the backward (K, V and dK, dV)
    assert ring.volume == 3 * 3 * 16 * block
    (again,) = ring_attention(16, block, 4, Fraction(10**11), True, recompute=True)
    assert again.volume == 4 * 3 * 16 * block
    assert ring_attention(16, block, 1, Fraction(10**11), True, recompute=False) == ()


def test_the_step_model_sends_each_layers_keys_and_values() -> None:
    d = replace(LLAMA, context_parallel=4)
    m = _model(d)
    (ring,) = [c for c in m.model_collectives(1) if c.what is What.KEYS_VALUES]
    # Llama 3.1 8B: 8 key/value heads of 128, 32 layers; a TP rank sends its half
    assert ring.size == Fraction(2 * 1 * 32768 * 8 * 128 * 2, 4 * 2)
    assert ring.count == 3 * 3 * 32 and ring.ranks == 4
    assert ring.intra_node  # tp · cp = 8 GPUs of the node
    assert ring.bandwidth == m.hardware.link_bandwidth * BUS_EFFICIENCY
    assert not [c for c in _model(LLAMA).model_collectives(1) if c.what is What.KEYS_VALUES]


def test_only_what_exceeds_the_attention_shows() -> None:
    assert exposed(Fraction(3), Fraction(5), None) == 0
    assert exposed(Fraction(7), Fraction(5), None) == 2
    d = replace(LLAMA, context_parallel=4)
    step = _model(d).time(1, 8)
    assert step.parts.context_parallel == 0  # 32K tokens: the attention hides the sends
    slow = replace(d, seq_len=1024, link_gbps=None, network_gbps=None, nodes=8)
    # one GPU per node... the ring crosses the network and short sequences barely hide it
    slow = replace(slow, gpus=8, tensor_parallel=1, nodes=32, network_gbps=Decimal("0.5"))
    m = _model(slow)
    t = m.time(1, 2)
    ring = sum(c.seconds for c in m.model_collectives(1) if c.what is What.KEYS_VALUES)
    assert t.parts.context_parallel == 2 * max(Fraction(0), ring - t.slot.attention)
    assert t.parts.context_parallel > 0
    assert "context_parallel" in PART_NAMES
    assert t.parts.total == t.step_seconds


def test_per_gpu_work_divides_by_cp() -> None:
    one = _model(replace(LLAMA, seq_len=8192)).time(1, 8)
    four = _model(replace(LLAMA, seq_len=8192, context_parallel=4)).time(1, 8)
    assert four.parts.matmul < one.parts.matmul / 3
    # a quarter of the attention's FLOPs, on blocks a quarter as long (the kernel runs
    # shorter blocks less well)
    assert four.parts.attention < one.parts.attention / 2
    assert four.parts.memory < one.parts.memory / 3
    assert four.world == 4 * one.world
    # the same batch on four times the GPUs: more tokens per second in all
    assert four.tokens_per_second > one.tokens_per_second


def test_the_data_parallel_collectives_run_over_dp_times_cp() -> None:
    m = _model(replace(LLAMA, context_parallel=4))
    grads = [c for c in m.collectives(1) if c.what is What.GRADIENTS]
    assert grads and all(c.ranks == 8 for c in grads)


def test_plan_and_search_keep_the_context_parallel_size() -> None:
    d = replace(LLAMA, context_parallel=2, micro_batch=None)
    p = plan(d)
    assert p.pairs and all(pair.time is not None for pair in p.pairs)
    assert p.pairs[0].time is not None and p.pairs[0].time.world == 8
    found = search(d, 16)
    assert found.unsearchable is None
    assert all(c.context_parallel == 2 for c in found.ranking)
    best = found.best
    assert best is not None and best.gpus * best.tensor_parallel * best.pipeline_stages == 8
    assert search(d, 15).unsearchable is Unsearchable.CONTEXT_PARALLEL
    assert search(replace(d, seq_len=4098), 16).unsearchable is Unsearchable.CONTEXT_PARALLEL


def test_megatron_carries_the_context_parallel_size_and_the_rest_say_why_not() -> None:
    setup = replace(LLAMA, context_parallel=4).setup(1, 8)
    assert "--context-parallel-size 4" in megatron_arguments(setup)
    assert "--context-parallel-size" not in " ".join(megatron_arguments(LLAMA.setup(1, 8)))
    mega = export(ExportFormat.MEGATRON, setup)
    assert any("4 GPUs (--context-parallel-size" in n for n in mega.english_notes)
    hf = export(ExportFormat.HF, setup)
    assert any("leave context parallelism out" in n for n in hf.english_notes)
    assert "context_parallel" not in hf.text or "asked for" in hf.text
    ds = export(ExportFormat.DEEPSPEED, setup)
    assert any("4-way context parallelism" in n for n in ds.english_notes)


def test_cp_one_is_the_plan_as_before() -> None:
    a, b = plan(replace(LLAMA, context_parallel=1)), plan(LLAMA)
    assert a.figures == b.figures and a.pairs == b.pairs
    assert facts(ModelSpec.bundled("llama-3.1-8b")).kv_heads == 8
    assert Recompute.NONE is LLAMA.recompute
