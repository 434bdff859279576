"""Task heads named by ``architectures`` — the bare model, sequence and token
classification, question answering, multiple choice — estimated as transformers builds
them: the estimate against the bytes autograd really saves, for decoders and encoders."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.measure.harness import compare  # noqa: E402

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
}  # fmt: skip

CASES = [(name, suffix) for name, (_, _, suffixes) in MODELS.items() for suffix in suffixes]


def _config(name: str, suffix: str) -> dict[str, Any]:
    prefix, config, _ = MODELS[name]
    return config | {"architectures": [prefix + suffix]}


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("seq", [24, 72])
@pytest.mark.parametrize(("name", "suffix"), CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_task_heads_match_what_autograd_saves(
    name: str, suffix: str, seq: int, attention: str, checkpointing: bool
) -> None:
    c = compare(_config(name, suffix), seq, attention=attention, checkpointing=checkpointing)
    assert c.measured == c.estimated
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize(
    ("name", "suffix"),
    [(n, s) for n, s in CASES if s != "ForMultipleChoice" and n in ("llama", "bert", "gpt2")],
)
def test_task_heads_with_a_padded_batch(name: str, suffix: str) -> None:
    c = compare(_config(name, suffix), 40, attention="sdpa", padded=True)
    assert c.measured == c.estimated


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize(
    "suffix", ["Model", "ForSequenceClassification", "ForTokenClassification", "ForMultipleChoice"]
)
@pytest.mark.parametrize("name", ["bert", "roberta"])
def test_encoder_heads_with_dropout_on_cpu(name: str, suffix: str, attention: str) -> None:
    c = compare(_config(name, suffix), 32, attention=attention, dropout=True)
    assert c.measured == c.estimated


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
