"""BERT and RoBERTa read from their published config.json files (masked-LM training)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gradacc_desktop.core.memory.activation import (
    Attention,
    Device,
    Family,
    Part,
    Recompute,
    StackKind,
    estimate,
)
from gradacc_desktop.core.memory.families import (
    ConfigProblem,
    Head,
    ModelConfigError,
    Task,
    parameters,
    parse_model_config,
    read_model_config,
)
from tests.configs import config_path, raw_config

# BertForMaskedLM / RobertaForMaskedLM num_parameters() (tied decoder, no pooler), as
# transformers 5.24 counts them on the meta device. The hub's safetensors totals differ
# because the checkpoints also hold the pooler and (BERT) the next-sentence head.
PUBLISHED = {
    "google-bert__bert-base-uncased.json": ("bert", 109_514_298),
    "google-bert__bert-large-uncased.json": ("bert", 335_174_458),
    "FacebookAI__roberta-base.json": ("roberta", 124_697_433),
    "FacebookAI__roberta-large.json": ("roberta", 355_412_057),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_the_transformers_parameter_count(name: str) -> None:
    model_type, count = PUBLISHED[name]
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (model_type, Family.BERT, Head.MASKED_LM)
    assert parameters(arch) == count


def test_bert_base_sizes_and_spec() -> None:
    arch = read_model_config(config_path("google-bert__bert-base-uncased.json"))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        768,
        12,
        12,
        12,
        64,
    )
    assert (arch.intermediate, arch.vocab, arch.max_positions) == (3072, 30522, 512)
    spec = arch.spec
    assert (spec.activation, spec.head_activation, spec.position_embeddings) == (
        "gelu",
        "gelu",
        512,
    )
    assert spec.type_vocab == 2 and spec.tie_embeddings and not spec.positions_from_ids
    assert arch.task is Task.LM and arch.architecture == "BertForMaskedLM"


def test_roberta_positions_start_after_the_padding_index() -> None:
    arch = read_model_config(config_path("FacebookAI__roberta-large.json"))
    assert (arch.hidden, arch.layers, arch.heads, arch.head_dim) == (1024, 24, 16, 64)
    # 514 rows, padding_idx 1: positions 2..513, so 512 usable tokens
    assert arch.spec.position_embeddings == 514 and arch.max_positions == 512
    assert arch.default_seq == 512
    assert arch.spec.type_vocab == 1 and arch.spec.positions_from_ids


def test_defaults_are_the_transformers_configuration_defaults() -> None:
    # BertConfig() is bert-base-uncased; RobertaConfig() only differs in the vocabulary
    # (50265), the padding index (1) and position rows (512 -> 510 usable)
    bert = parse_model_config({"model_type": "bert"})
    assert parameters(bert) == PUBLISHED["google-bert__bert-base-uncased.json"][1]
    roberta = parse_model_config({"model_type": "roberta"})
    assert (roberta.vocab, roberta.max_positions, roberta.spec.type_vocab) == (50265, 510, 2)


def test_an_untied_decoder_adds_its_weight_and_bias() -> None:
    raw = raw_config("google-bert__bert-base-uncased.json")
    tied = parameters(parse_model_config(raw))
    untied = parameters(parse_model_config(raw | {"tie_word_embeddings": False}))
    assert untied - tied == 30522 * 768 + 30522


def test_a_classification_file_is_estimated_with_its_classifier() -> None:
    raw = raw_config("FacebookAI__roberta-base.json") | {
        "architectures": ["RobertaForSequenceClassification"]
    }
    arch = parse_model_config(raw)
    assert arch.head is Head.MASKED_LM and arch.task is Task.SEQUENCE_CLASSIFICATION
    # no masked-LM head (transform 768·768 + 768, LayerNorm, output bias 50 265); the
    # classification head (dense 768·768 + 768, out_proj 768·2 + 2)
    mlm = PUBLISHED["FacebookAI__roberta-base.json"][1]
    assert parameters(arch) == mlm - (768 * 768 + 768 + 2 * 768 + 50_265) + (
        768 * 768 + 768 + 768 * 2 + 2
    )
    result = estimate(arch.inputs(seq=128))
    assert any(
        "Sequence classification (RobertaForSequenceClassification" in n for n in result.notes
    )
    assert not any("masked language model" in n for n in result.notes)
    plain = estimate(
        read_model_config(config_path("FacebookAI__roberta-base.json")).inputs(seq=128)
    )
    # the masked-LM loss's log-softmax (s × 50 265 in bf16) is gone
    assert plain.saved_bytes - result.saved_bytes > 2 * 128 * 50_265


@pytest.mark.parametrize(
    ("change", "key", "problem"),
    [
        ({"hidden_size": -768}, "hidden_size", ConfigProblem.BAD_VALUE),
        ({"num_attention_heads": True}, "num_attention_heads", ConfigProblem.BAD_VALUE),
        ({"vocab_size": "30522"}, "vocab_size", ConfigProblem.BAD_VALUE),
        ({"num_hidden_layers": 0}, "num_hidden_layers", ConfigProblem.BAD_VALUE),
        ({"tie_word_embeddings": "yes"}, "tie_word_embeddings", ConfigProblem.BAD_VALUE),
        ({"architectures": "BertForMaskedLM"}, "architectures", ConfigProblem.BAD_VALUE),
        ({"num_attention_heads": 10}, "num_attention_heads", ConfigProblem.UNSUPPORTED),
        ({"hidden_act": "swiglu"}, "hidden_act", ConfigProblem.UNSUPPORTED),
        ({"is_decoder": True}, "is_decoder", ConfigProblem.UNSUPPORTED),
        ({"add_cross_attention": True}, "add_cross_attention", ConfigProblem.UNSUPPORTED),
        ({"architectures": ["BertLMHeadModel"]}, "architectures", ConfigProblem.UNSUPPORTED),
        ({"chunk_size_feed_forward": 64}, "chunk_size_feed_forward", ConfigProblem.UNSUPPORTED),
    ],
)
def test_malformed_bert_values_name_the_key(
    change: dict[str, Any], key: str, problem: ConfigProblem
) -> None:
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw_config("google-bert__bert-base-uncased.json") | change)
    assert (err.value.key, err.value.problem) == (key, problem)
    assert key in err.value.detail


def test_roberta_needs_room_after_its_padding_index() -> None:
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(
            raw_config("FacebookAI__roberta-base.json") | {"max_position_embeddings": 2}
        )
    assert (err.value.key, err.value.problem) == (
        "max_position_embeddings",
        ConfigProblem.UNSUPPORTED,
    )
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw_config("FacebookAI__roberta-base.json") | {"pad_token_id": None})
    assert err.value.key == "pad_token_id"


def test_no_model_type_is_refused() -> None:
    raw = raw_config("google-bert__bert-base-uncased.json")
    del raw["model_type"]
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw)
    assert (err.value.problem, err.value.key) == (ConfigProblem.NO_MODEL_TYPE, "model_type")


@pytest.mark.parametrize("attention", list(Attention))
@pytest.mark.parametrize("device", list(Device))
def test_estimate_grows_with_the_sequence_and_full_recomputation_keeps_less(
    attention: Attention, device: Device
) -> None:
    arch = read_model_config(config_path("google-bert__bert-base-uncased.json"))
    saved = [
        estimate(arch.inputs(seq=s, attention=attention, device=device)).saved_bytes
        for s in (64, 128, 256, 512)
    ]
    assert saved == sorted(saved) and len(set(saved)) == 4
    for padded in (False, True):
        none = estimate(arch.inputs(seq=512, attention=attention, device=device, padded=padded))
        full = estimate(
            arch.inputs(
                seq=512,
                attention=attention,
                device=device,
                padded=padded,
                recompute=Recompute.FULL,
            )
        )
        assert full.saved_bytes < none.saved_bytes


def test_bert_base_layer_bytes_by_hand_cpu_sdpa() -> None:
    # one post-LN layer, bf16 (p = 2), CPU (LayerNorm statistics in the dtype), SDPA:
    #   layer input 1·psh, Q K V 3·psh, log-sum-exp 4·a·s, attention output 1·psh,
    #   two LayerNorms 2·(psh + 2ps), MLP input 1·psh, GELU input psi, dense input psi
    #   = 8·psh + 2·psi + 4·a·s + 4·ps
    arch = read_model_config(config_path("google-bert__bert-base-uncased.json"))
    p, s, h, i, a = 2, 512, 768, 3072, 12
    result = estimate(arch.inputs(seq=s, device=Device.CPU))
    layer = sum(item.bytes for item in result.breakdown if item.stack is StackKind.LAYERS)
    assert layer == 8 * p * s * h + 2 * p * s * i + 4 * a * s + 4 * p * s == 12_611_584
    assert all(item.count == 12 for item in result.breakdown if item.stack is StackKind.LAYERS)
    outside = {item.key: item.bytes for item in result.breakdown if item.stack is None}
    v = 30522
    # word and token-type ids (int64), embedding LayerNorm
    assert outside[Part.EMBEDDINGS] == 2 * 8 * s + p * s * h + 2 * p * s
    # head transform: dense input, GELU input, LayerNorm
    assert outside[Part.MLM_HEAD] == 3 * p * s * h + 2 * p * s
    assert outside[Part.LM_HEAD_INPUT] == p * s * h
    # bf16 log-softmax (no fp32 upcast), int64 labels, bf16 total weight
    assert outside[Part.LOSS] == p * s * v + 8 * s + p


def test_padding_adds_a_mask_copy_per_layer_only_under_sdpa() -> None:
    arch = read_model_config(config_path("FacebookAI__roberta-base.json"))
    s = 256
    sdpa = estimate(arch.inputs(seq=s, device=Device.CPU)).saved_bytes
    sdpa_padded = estimate(arch.inputs(seq=s, device=Device.CPU, padded=True)).saved_bytes
    assert sdpa_padded - sdpa == 12 * 2 * s * s
    eager = arch.inputs(seq=s, device=Device.CPU, attention=Attention.EAGER)
    # eager adds the padding mask to the scores: nothing more is kept
    assert estimate(eager).saved_bytes == estimate(replace(eager, padded=True)).saved_bytes
    # with full recomputation the checkpoints keep the (boolean) mask once
    full = arch.inputs(seq=s, device=Device.CPU, recompute=Recompute.FULL)
    full_padded = arch.inputs(seq=s, device=Device.CPU, recompute=Recompute.FULL, padded=True)
    assert estimate(full_padded).saved_bytes - estimate(full).saved_bytes == s * s


def test_roberta_keeps_its_position_ids() -> None:
    bert = parse_model_config(
        raw_config("google-bert__bert-base-uncased.json") | {"vocab_size": 50265}
    )
    roberta = parse_model_config(
        raw_config("FacebookAI__roberta-base.json") | {"max_position_embeddings": 512}
    )

    def embeddings(arch: Any) -> int:
        result = estimate(arch.inputs(seq=100, device=Device.CPU))
        return next(i.bytes for i in result.breakdown if i.key is Part.EMBEDDINGS)

    assert embeddings(roberta) - embeddings(bert) == 8 * 100
