"""Task heads named by ``architectures`` — the bare model, sequence and token
classification, question answering, multiple choice — estimated as transformers builds
them: the estimate against the bytes autograd really saves, for decoders and encoders
(BERT, RoBERTa, DistilBERT, DeBERTa-v2/v3, ModernBERT)."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.measure.harness import compare  # noqa: E402
from tests.measure.test_family_deberta import SMALL as DEBERTA  # noqa: E402
from tests.measure.test_family_distilbert import SMALL as DISTILBERT  # noqa: E402
from tests.measure.test_family_modernbert import SMALL as MODERNBERT  # noqa: E402

_ALL = ("Model", "ForSequenceClassification", "ForTokenClassification",
        "ForQuestionAnswering", "ForMultipleChoice")  # fmt: skip

_DECODER = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "intermediate_size": 128,
    "vocab_size": 500,
}
#: model_type -> (class prefix, config, tasks its classes offer)
MODELS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "llama": ("Llama", _DECODER | {"model_type": "llama", "num_key_value_heads": 2},
              ("Model", "ForSequenceClassification", "ForTokenClassification",
               "ForQuestionAnswering")),
    # a pad_token_id: the classifier looks for the last token that is not padding
    "qwen2": ("Qwen2", _DECODER | {"model_type": "qwen2", "num_key_value_heads": 2,
                                   "pad_token_id": 0, "num_labels": 5},
              ("ForSequenceClassification", "ForTokenClassification")),
    "mixtral": ("Mixtral", _DECODER | {"model_type": "mixtral", "num_key_value_heads": 2,
                                       "num_local_experts": 4},
                ("ForSequenceClassification", "ForQuestionAnswering")),
    "gemma": ("Gemma", _DECODER | {"model_type": "gemma", "num_key_value_heads": 1,
                                   "head_dim": 16},
              ("ForSequenceClassification", "ForTokenClassification")),
    "gpt2": ("GPT2", {"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4,
                      "vocab_size": 500},
             ("Model", "ForSequenceClassification", "ForTokenClassification",
              "ForQuestionAnswering")),
    "gpt_neox": ("GPTNeoX", _DECODER | {"model_type": "gpt_neox"},
                 ("ForSequenceClassification", "ForTokenClassification")),
    "falcon": ("Falcon", {"model_type": "falcon", "hidden_size": 64, "num_hidden_layers": 2,
                          "num_attention_heads": 4, "vocab_size": 500},
               ("ForSequenceClassification", "ForTokenClassification")),
    "opt": ("OPT", {"model_type": "opt", "hidden_size": 64, "num_hidden_layers": 2,
                    "num_attention_heads": 4, "ffn_dim": 128, "word_embed_proj_dim": 64,
                    "vocab_size": 500},
            ("ForSequenceClassification", "ForQuestionAnswering")),
    "bert": ("Bert", _DECODER | {"model_type": "bert"},
             ("Model", "ForSequenceClassification", "ForTokenClassification",
              "ForQuestionAnswering", "ForMultipleChoice")),
    "roberta": ("Roberta", _DECODER | {"model_type": "roberta", "max_position_embeddings": 200},
                ("Model", "ForSequenceClassification", "ForTokenClassification",
                 "ForQuestionAnswering", "ForMultipleChoice")),
    "xlm-roberta": ("XLMRoberta", _DECODER | {"model_type": "xlm-roberta", "num_labels": 3,
                                              "max_position_embeddings": 200},
                    ("ForSequenceClassification",)),
    "distilbert": ("DistilBert", DISTILBERT["distilbert"], _ALL),
    # sinusoidal positions, ReLU, an untied projector (its weight leaves with the LM head)
    "distilbert-untied": ("DistilBert", DISTILBERT["distilbert-sinusoidal-relu-untied"]
                          | {"num_labels": 3},
                          ("ForSequenceClassification", "ForTokenClassification")),
    "deberta-v3": ("DebertaV2", DEBERTA["deberta-v3"], _ALL),
    # the convolution; absolute positions, c2p only and the non-legacy head; an untied
    # legacy decoder
    "deberta-v2-conv": ("DebertaV2", DEBERTA["deberta-v2-conv"],
                        ("ForSequenceClassification", "ForMultipleChoice")),
    "deberta-c2p-absolute": ("DebertaV2", DEBERTA["deberta-c2p-absolute"] | {"num_labels": 5},
                             ("ForSequenceClassification", "ForTokenClassification",
                              "ForMultipleChoice")),
    "deberta-p2c-untied": ("DebertaV2", DEBERTA["deberta-p2c-untied"],
                           ("Model", "ForSequenceClassification", "ForMultipleChoice")),
    # ModernBERT: the bare model, the heads on every token, and the pooled heads
    # (classifier_pooling "cls", the default: the first token)
    "modernbert": ("ModernBert", MODERNBERT["modernbert"], _ALL[:-1]),
    # mean pooling: the product with the mask and the division by its sum (multiple
    # choice needs an attention mask: measured below)
    "modernbert-mean": ("ModernBert", MODERNBERT["modernbert"]
                        | {"classifier_pooling": "mean", "num_labels": 3},
                        ("ForSequenceClassification",)),
    "modernbert-biases-sparse": ("ModernBert", MODERNBERT["modernbert-biases-sparse"]
                                 | {"num_labels": 7}, ("ForTokenClassification",)),
    "modernbert-sliding-first": ("ModernBert", MODERNBERT["modernbert-sliding-first"],
                                 ("ForSequenceClassification", "ForTokenClassification",
                                  "ForQuestionAnswering")),
}  # fmt: skip

#: families transformers builds with eager attention only
EAGER_ONLY = frozenset({"deberta-v3", "deberta-v2-conv", "deberta-c2p-absolute",
                        "deberta-p2c-untied"})  # fmt: skip

CASES = [(name, suffix) for name, (_, _, suffixes) in MODELS.items() for suffix in suffixes]
#: cases measured with SDPA only (none today: ModernBERT's multiple choice, whose eager
#: batched products copy Q, K and V, is not modelled)
SDPA_ONLY: frozenset[tuple[str, str]] = frozenset()

RUNS = [
    (name, suffix, attention)
    for name, suffix in CASES
    for attention in ("eager", "sdpa")
    if (attention == "eager" or name not in EAGER_ONLY)
    and (attention == "sdpa" or (name, suffix) not in SDPA_ONLY)
]


def _config(name: str, suffix: str) -> dict[str, Any]:
    prefix, config, _ = MODELS[name]
    return config | {"architectures": [prefix + suffix]}


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("seq", [24, 72])
@pytest.mark.parametrize(
    ("name", "suffix", "attention"), RUNS, ids=[f"{n}-{s}-{a}" for n, s, a in RUNS]
)
def test_task_heads_match_what_autograd_saves(
    name: str, suffix: str, seq: int, attention: str, checkpointing: bool
) -> None:
    c = compare(_config(name, suffix), seq, attention=attention, checkpointing=checkpointing)
    assert c.measured == c.estimated
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize(
    ("name", "suffix"),
    [
        (n, s)
        for n, s in CASES
        if s != "ForMultipleChoice"
        and n
        in ("llama", "bert", "gpt2", "distilbert", "deberta-v3", "modernbert", "modernbert-mean")
    ],
)
def test_task_heads_with_a_padded_batch(name: str, suffix: str) -> None:
    # (a multiple-choice batch is padded per candidate: the harness's one-row mask is not)
    attention = "eager" if name in EAGER_ONLY else "sdpa"
    c = compare(_config(name, suffix), 40, attention=attention, padded=True)
    assert c.measured == c.estimated


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize(
    "suffix", ["Model", "ForSequenceClassification", "ForTokenClassification", "ForMultipleChoice"]
)
@pytest.mark.parametrize("name", ["bert", "roberta"])
def test_encoder_heads_with_dropout_on_cpu(name: str, suffix: str, attention: str) -> None:
    c = compare(_config(name, suffix), 32, attention=attention, dropout=True)
    assert c.measured == c.estimated


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("suffix", _ALL)
def test_distilbert_heads_with_dropout_on_cpu(
    suffix: str, attention: str, checkpointing: bool
) -> None:
    # every head dropout on: seq_classif_dropout (sequence classification, multiple
    # choice), qa_dropout, dropout (token classification)
    c = compare(
        _config("distilbert", suffix),
        32,
        attention=attention,
        checkpointing=checkpointing,
        dropout=True,
    )
    assert c.measured == c.estimated


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("suffix", ["Model", "ForTokenClassification", "ForQuestionAnswering"])
def test_deberta_heads_with_dropout_on_cpu(suffix: str, checkpointing: bool) -> None:
    # the harness turns every dropout on, pooler_dropout too (0 in the file): the heads
    # without a ContextPooler only; those with one are measured with the file's own
    # probabilities below
    c = compare(
        _config("deberta-v3", suffix),
        32,
        attention="eager",
        checkpointing=checkpointing,
        dropout=True,
    )
    assert c.measured == c.estimated


def _with_the_files_dropout(
    config: dict[str, Any], seq: int, checkpointing: bool, attention: str = "eager"
) -> tuple[int, int]:
    """(measured, estimated) with the dropout probabilities the file gives (the shared
    harness sets every one, pooler_dropout too, to at least 0.1)."""
    from gradacc_desktop.core.memory.activation import (
        Attention,
        Device,
        Precision,
        Recompute,
        estimate,
    )
    from gradacc_desktop.core.memory.families import parse_model_config
    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    model = build_model(
        dict(config), attention=attention, checkpointing=checkpointing, dropout=None
    )
    measured = measure_saved(model, random_batch(model, seq, 1)).saved_bytes
    inputs = parse_model_config(config).inputs(
        seq=seq,
        dtype=Precision.BF16,
        attention=Attention(attention),
        recompute=Recompute.FULL if checkpointing else Recompute.NONE,
        device=Device.CPU,
        dropout=True,
    )
    return measured, estimate(inputs).saved_bytes


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize(
    "change",
    [{}, {"hidden_dropout_prob": 0.0}, {"cls_dropout": None, "pooler_hidden_act": "gelu"}],
    ids=["file", "no-hidden-dropout", "explicit-defaults"],
)
@pytest.mark.parametrize("suffix", ["ForSequenceClassification", "ForMultipleChoice"])
def test_deberta_pooler_heads_with_the_files_dropout(
    suffix: str, change: dict[str, Any], checkpointing: bool
) -> None:
    # pooler_dropout 0 (the default and the published files'), cls_dropout following
    # hidden_dropout_prob (0.1)
    config = _config("deberta-v3", suffix) | change
    measured, estimated = _with_the_files_dropout(config, 32, checkpointing)
    assert measured == estimated


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize(
    "suffix",
    ["ForMaskedLM", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering"],
)
def test_modernbert_heads_with_the_files_dropout(
    suffix: str, checkpointing: bool, attention: str
) -> None:
    # the file's attention, embedding and MLP dropouts on; classifier_dropout 0 (the
    # default and the published files'; the harness would turn it on)
    config = MODERNBERT["modernbert-sliding-first"] | {"architectures": ["ModernBert" + suffix]}
    measured, estimated = _with_the_files_dropout(config, 40, checkpointing, attention)
    assert measured == estimated


def _newer_families() -> list[tuple[str, dict[str, Any]]]:
    """The first small config of each newer decoder family, with every task head
    transformers has for its model type."""
    import importlib

    from transformers.models.auto import modeling_auto as ma

    mappings = (
        ma.MODEL_MAPPING_NAMES,
        ma.MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES,
        ma.MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES,
        ma.MODEL_FOR_QUESTION_ANSWERING_MAPPING_NAMES,
    )
    found = []
    for family in ("llama_variants", "deepseek", "gpt_oss", "mamba", "jamba"):
        module = importlib.import_module(f"tests.measure.test_family_{family}")
        seen: set[str] = set()
        for config in module.SMALL.values():
            model_type = config["model_type"]
            if model_type in seen:
                continue
            seen.add(model_type)
            for mapping in mappings:
                name = mapping.get(model_type)
                if isinstance(name, str):
                    found.append((name, config | {"architectures": [name]}))
    return found


NEWER = _newer_families()


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize(("name", "config"), NEWER, ids=[n for n, _ in NEWER])
def test_newer_decoders_task_heads(name: str, config: dict[str, Any], checkpointing: bool) -> None:
    c = compare(config, 40, attention="eager", checkpointing=checkpointing)
    assert c.measured == c.estimated
    assert c.params_estimated == c.params_measured
