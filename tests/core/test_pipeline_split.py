"""Megatron's pipeline split: the first stage holds the embedding, the last the output
layer (or the tied copy), the sparse layers their experts; the plan counts the model
states of the GPU that holds the most, and DeepSpeed's parameter-balanced split stays
at an even share."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory.models import ModelSpec, facts
from gradacc_desktop.core.memory.pipeline_split import heaviest_stage
from gradacc_desktop.core.time.gpus import load_gpu_table
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.plan import plan

LLAMA_8B = facts(ModelSpec.bundled("llama-3.1-8b"))


def test_llama_8b_over_four_stages_puts_the_embedding_on_the_first() -> None:
    embedding = 128256 * 4096
    layer = Fraction(LLAMA_8B.params - 2 * embedding, 32)  # untied: two V x h matrices
    stage = heaviest_stage(LLAMA_8B, 4)
    assert stage is not None and stage.experts == 0
    assert stage.params == 8 * layer + embedding == 2_270_233_600
    assert Fraction(stage.params, LLAMA_8B.params) > Fraction(1, 4)  # 28 %, not 25 %


def test_a_tied_model_keeps_a_copy_of_the_embedding_on_the_last_stage() -> None:
    gpt2 = facts(ModelSpec.bundled("gpt2"))
    assert gpt2.tied_embeddings
    embedding = 50257 * 768
    stage = heaviest_stage(gpt2, 2)
    assert stage is not None
    assert stage.params == -(-(gpt2.params - embedding) // 2) + embedding


def test_the_sparse_layers_stage_carries_their_experts() -> None:
    lite = facts(ModelSpec.bundled("deepseek-v2-lite"))  # one dense layer, then sparse
    assert lite.experts is not None
    stage = heaviest_stage(lite, 2)
    assert stage is not None
    per_layer = lite.experts.layer_params
    layers = lite.size.layers if lite.size is not None else 0
    assert stage.experts == per_layer * (layers // 2)  # the second half: all sparse
    assert stage.params > Fraction(lite.params, 2)


@given(stages=st.integers(2, 8), virtual=st.integers(1, 2))
def test_the_heaviest_stage_holds_at_least_an_even_share(stages: int, virtual: int) -> None:
    stage = heaviest_stage(LLAMA_8B, stages, virtual)
    assert stage is not None and stage.params * stages >= LLAMA_8B.params


def test_one_stage_or_no_sizes_keeps_an_even_share() -> None:
    assert heaviest_stage(LLAMA_8B, 1) is None
    assert heaviest_stage(facts(ModelSpec.typed_params(8_000_000_000)), 4) is None


def _plan_states(framework: Framework, stages: int) -> int:
    d = TrainingDescription(
        model=ModelSpec.bundled("llama-3.1-8b"),
        seq_len=4096,
        card=load_gpu_table().by_id("h100-80gb"),
        gpus=2,
        pipeline_stages=stages,
        framework=framework,
        target_batch=64,
    )
    states = plan(d).figures.states
    assert states is not None
    return states.parameters


def test_megatron_counts_the_heaviest_stages_parameters() -> None:
    stage = heaviest_stage(LLAMA_8B, 4)
    assert stage is not None
    assert _plan_states(Framework.MEGATRON, 4) == stage.params
    assert _plan_states(Framework.MEGATRON, 1) == LLAMA_8B.params


@pytest.mark.parametrize("framework", [Framework.DEEPSPEED, Framework.FSDP])
def test_a_balanced_split_keeps_an_even_share(framework: Framework) -> None:
    assert _plan_states(framework, 4) == -(-LLAMA_8B.params // 4)
