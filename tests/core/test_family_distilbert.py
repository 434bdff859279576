"""DistilBERT read from its published config.json (masked-LM training)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gradacc_desktop.cli import main
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
    family_module,
    parameters,
    parse_model_config,
    read_model_config,
)
from gradacc_desktop.core.memory.families import distilbert as distilbert_family
from gradacc_desktop.core.memory.model_size import size_of
from gradacc_desktop.core.memory.models import ModelSpec, facts
from tests.configs import breakdown_parts, config_path, raw_config

BASE = "distilbert__distilbert-base-uncased.json"
# DistilBertForMaskedLM.num_parameters() in transformers 5.24 (projector tied to the word
# embeddings; the hub shows 67M): the bare DistilBertModel is 66,362,880
BASE_PARAMS = 66_985_530


def test_the_published_config_gives_the_transformers_parameter_count() -> None:
    arch = read_model_config(config_path(BASE))
    assert (arch.model_type, arch.family, arch.head) == (
        "distilbert",
        Family.DISTILBERT,
        Head.MASKED_LM,
    )
    assert parameters(arch) == BASE_PARAMS
    assert family_module(arch) is distilbert_family


def test_base_sizes_and_spec() -> None:
    arch = read_model_config(config_path(BASE))
    assert (arch.hidden, arch.layers, arch.heads, arch.kv_heads, arch.head_dim) == (
        768,
        6,
        12,
        12,
        64,
    )
    assert (arch.intermediate, arch.vocab, arch.max_positions) == (3072, 30522, 512)
    spec = arch.spec
    assert (spec.activation, spec.position_embeddings, spec.sinusoidal) == ("gelu", 512, False)
    assert spec.tie_embeddings
    assert arch.architecture == "DistilBertForMaskedLM"


def test_defaults_and_bert_style_names() -> None:
    # DistilBertConfig() is distilbert-base-uncased; the class maps BERT's key names
    assert parameters(parse_model_config({"model_type": "distilbert"})) == BASE_PARAMS
    bert_names = parse_model_config(
        {
            "model_type": "distilbert",
            "hidden_size": 256,
            "num_hidden_layers": 3,
            "num_attention_heads": 4,
        }
    )
    assert (bert_names.hidden, bert_names.layers, bert_names.heads) == (256, 3, 4)
    # hidden_dim does not follow dim: 4 × 768 whatever dim is
    assert bert_names.intermediate == 3072


def test_untied_projector_and_sinusoidal_positions() -> None:
    raw = raw_config(BASE)
    untied = parse_model_config(raw | {"tie_word_embeddings": False})
    assert parameters(untied) - BASE_PARAMS == 30522 * 768
    # the fixed sinusoids are still a table of parameters (num_parameters() counts it)
    sinusoidal = parse_model_config(raw | {"sinusoidal_pos_embds": True})
    assert parameters(sinusoidal) == BASE_PARAMS and sinusoidal.spec.sinusoidal
    assert any("Sinusoidal" in n for n in estimate(sinusoidal.inputs(seq=128)).notes)


def test_positions_are_a_table_the_tools_do_not_run_past(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert distilbert_family.LEARNED_POSITIONS == ("distilbert",)
    known = facts(ModelSpec.bundled("distilbert-base-uncased"))
    assert (known.learned_positions, known.default_seq, known.params) == (512, 512, BASE_PARAMS)
    path = str(config_path(BASE))
    assert main(["activation", "--model-config", path, "--seq-len", "512"]) == 0
    capsys.readouterr()
    assert main(["activation", "--model-config", path, "--seq-len", "513"]) == 2
    assert "512" in capsys.readouterr().err


def test_lookup_tables_are_not_compute_parameters() -> None:
    arch = read_model_config(config_path(BASE))
    assert size_of("distilbert", arch).compute_params == BASE_PARAMS - 512 * 768
    untied = parse_model_config(raw_config(BASE) | {"tie_word_embeddings": False})
    total = parameters(untied)
    assert size_of("d", untied).compute_params == total - 512 * 768 - 30522 * 768


@pytest.mark.parametrize(
    ("change", "key", "problem"),
    [
        ({"dim": -768}, "dim", ConfigProblem.BAD_VALUE),
        ({"n_heads": True}, "n_heads", ConfigProblem.BAD_VALUE),
        ({"vocab_size": "30522"}, "vocab_size", ConfigProblem.BAD_VALUE),
        ({"n_layers": 0}, "n_layers", ConfigProblem.BAD_VALUE),
        ({"sinusoidal_pos_embds": "no"}, "sinusoidal_pos_embds", ConfigProblem.BAD_VALUE),
        ({"dropout": 2}, "dropout", ConfigProblem.BAD_VALUE),
        ({"n_heads": 10}, "n_heads", ConfigProblem.UNSUPPORTED),
        ({"activation": "swiglu"}, "activation", ConfigProblem.UNSUPPORTED),
        ({"chunk_size_feed_forward": 64}, "chunk_size_feed_forward", ConfigProblem.UNSUPPORTED),
    ],
)
def test_malformed_values_name_the_key(
    change: dict[str, Any], key: str, problem: ConfigProblem
) -> None:
    with pytest.raises(ModelConfigError) as err:
        parse_model_config(raw_config(BASE) | change)
    assert (err.value.key, err.value.problem) == (key, problem)
    assert key in err.value.detail


def test_base_bytes_by_hand_cpu_sdpa() -> None:
    # one post-LN block, bf16 (p = 2), CPU (LayerNorm statistics in the dtype), SDPA:
    #   block input psh, Q K V 3psh, log-sum-exp 4as, out_lin input psh, two LayerNorms
    #   2(psh + 2ps), lin1 input psh, GELU input psi, lin2 input psi
    arch = read_model_config(config_path(BASE))
    p, s, h, i, a, v = 2, 512, 768, 3072, 12, 30522
    result = estimate(arch.inputs(seq=s, device=Device.CPU))
    layer = sum(item.bytes for item in result.breakdown if item.stack is StackKind.LAYERS)
    assert layer == 8 * p * s * h + 2 * p * s * i + 4 * a * s + 4 * p * s
    outside = breakdown_parts(result, per_layer=False)
    assert outside == {
        # the word ids (the position ids are a buffer), the embedding LayerNorm
        Part.EMBEDDINGS: 8 * s + p * s * h + 2 * p * s,
        # vocab_transform input, GELU input, vocab_layer_norm
        Part.MLM_HEAD: 3 * p * s * h + 2 * p * s,
        Part.LM_HEAD_INPUT: p * s * h,
        # the log-softmax in bf16 (no fp32 upcast), int64 labels, the bf16 total weight
        Part.LOSS: p * s * v + 8 * s + p,
    }
    assert result.saved_bytes == 6 * layer + sum(outside.values())


def test_dropout_follows_the_feed_forward_only() -> None:
    arch = read_model_config(config_path(BASE))
    inputs = arch.inputs(seq=64, dropout=True, attention=Attention.EAGER)
    parts = breakdown_parts(estimate(inputs))
    assert Part.MLP_RESID_DROPOUT in parts and Part.ATTN_RESID_DROPOUT not in parts
    # CUDA: one-byte masks; the dropped probabilities in bf16
    assert parts[Part.MLP_RESID_DROPOUT] == 64 * 768
    assert parts[Part.ATTN_DROPOUT] == 12 * 64 * 64 + 2 * 12 * 64 * 64


def test_dropout_follows_the_file() -> None:
    raw = raw_config(BASE)
    s = 64
    attention_off = parse_model_config(raw | {"attention_dropout": 0.0})
    inputs = attention_off.inputs(seq=s, dropout=True, attention=Attention.EAGER)
    parts = breakdown_parts(estimate(inputs))
    assert Part.ATTN_DROPOUT not in parts and Part.MLP_RESID_DROPOUT in parts
    # without attention dropout SDPA on CPU keeps its fused kernel
    cpu = breakdown_parts(estimate(attention_off.inputs(seq=s, dropout=True, device=Device.CPU)))
    assert Part.ATTN_FUSED in cpu
    both_off = parse_model_config(raw | {"attention_dropout": 0, "dropout": 0})
    plain = both_off.inputs(seq=s)
    assert estimate(replace(plain, dropout=True)).saved_bytes == estimate(plain).saved_bytes


def test_padding_adds_a_mask_copy_per_layer_only_under_sdpa() -> None:
    arch = read_model_config(config_path(BASE))
    s = 256
    sdpa = estimate(arch.inputs(seq=s, device=Device.CPU)).saved_bytes
    sdpa_padded = estimate(arch.inputs(seq=s, device=Device.CPU, padded=True)).saved_bytes
    assert sdpa_padded - sdpa == 6 * 2 * s * s
    eager = arch.inputs(seq=s, device=Device.CPU, attention=Attention.EAGER)
    assert estimate(eager).saved_bytes == estimate(replace(eager, padded=True)).saved_bytes
    # with full recomputation the checkpoints keep the mask once: bool (SDPA), bf16 (eager)
    for attention, mask in ((Attention.SDPA, s * s), (Attention.EAGER, 2 * s * s)):
        full = arch.inputs(seq=s, attention=attention, recompute=Recompute.FULL)
        padded = estimate(replace(full, padded=True))
        assert padded.saved_bytes - estimate(full).saved_bytes == mask
        assert breakdown_parts(padded, per_layer=False)[Part.SHARED_MASK] == mask


def test_a_classification_file_gets_its_own_head() -> None:
    raw = raw_config(BASE) | {"architectures": ["DistilBertForSequenceClassification"]}
    arch = parse_model_config(raw)
    assert arch.head is Head.MASKED_LM and arch.task_modelled
    notes = estimate(arch.inputs(seq=128)).notes
    assert notes[0].startswith("Sequence classification (DistilBertForSequenceClassification")
    assert not any("not modelled for this family" in n for n in notes)
    # num_parameters() of distilbert-base-uncased-finetuned-sst-2-english: the masked-LM
    # head (transform, LayerNorm, projector bias) gives way to pre_classifier + classifier
    assert parameters(arch) == 66_955_010
