"""``python -m gradacc_desktop.measure`` for every model family (needs torch).

Tiny random-weight configs (hidden 32, 2 layers, vocab 128) written as files and
measured through ``main``: the right head for each family, batches per head,
``--no-dropout`` that really turns every dropout off, attention implementations a
family cannot run, parameter counts, ``--json``, and one-line errors (exit 2, never
a traceback). Nothing is downloaded. Skipped when torch or transformers are missing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import transformers  # noqa: E402

import gradacc_desktop.measure.building as measure_building  # noqa: E402
import gradacc_desktop.measure.command as measure_command  # noqa: E402
from gradacc_desktop.measure import (  # noqa: E402
    BASE,
    CAUSAL_LM,
    MASKED_LM,
    SEQ2SEQ_LM,
    SEQUENCE_CLASSIFICATION,
    build_model,
    count_parameters,
    head_kind,
    main,
    measure_activation,
    random_batch,
)

_BASE: dict[str, Any] = {
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "intermediate_size": 64,
    "vocab_size": 128,
    "max_position_embeddings": 64,
    # the families' defaults point outside a 128-token vocabulary
    "bos_token_id": 1,
    "eos_token_id": 2,
    "pad_token_id": 0,
}
_GQA = dict(_BASE, num_key_value_heads=2)
_HEAD_DIM = dict(_GQA, head_dim=8)

# model_type -> (config without model_type, class built, head)
FAMILIES: dict[str, tuple[dict[str, Any], str, str]] = {
    "gpt2": (
        {"n_embd": 32, "n_layer": 2, "n_head": 4, "vocab_size": 128, "n_positions": 64,
         "bos_token_id": 1, "eos_token_id": 2},
        "GPT2LMHeadModel", CAUSAL_LM,
    ),
    "llama": (_GQA, "LlamaForCausalLM", CAUSAL_LM),
    "mistral": (_GQA, "MistralForCausalLM", CAUSAL_LM),
    "qwen2": (_GQA, "Qwen2ForCausalLM", CAUSAL_LM),
    "qwen3": (_HEAD_DIM, "Qwen3ForCausalLM", CAUSAL_LM),
    "gemma": (dict(_BASE, num_key_value_heads=1, head_dim=8), "GemmaForCausalLM", CAUSAL_LM),
    "gemma2": (_HEAD_DIM, "Gemma2ForCausalLM", CAUSAL_LM),
    "gemma3_text": (_HEAD_DIM, "Gemma3ForCausalLM", CAUSAL_LM),
    "gemma3": (
        {"text_config": _HEAD_DIM, "mm_tokens_per_image": 4, "image_token_index": 100,
         "vision_config": {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
                           "intermediate_size": 32, "image_size": 16, "patch_size": 4,
                           "vision_use_head": False}},
        "Gemma3ForConditionalGeneration", CAUSAL_LM,
    ),
    "phi3": (dict(_BASE, num_key_value_heads=4), "Phi3ForCausalLM", CAUSAL_LM),
    "gpt_neox": (_BASE, "GPTNeoXForCausalLM", CAUSAL_LM),
    "falcon": (
        {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
         "vocab_size": 128, "bos_token_id": 1, "eos_token_id": 2},
        "FalconForCausalLM", CAUSAL_LM,
    ),
    "opt": (
        {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "ffn_dim": 64,
         "word_embed_proj_dim": 32, "vocab_size": 128, "max_position_embeddings": 64,
         "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0},
        "OPTForCausalLM", CAUSAL_LM,
    ),
    "mixtral": (dict(_GQA, num_local_experts=4, num_experts_per_tok=2), "MixtralForCausalLM",
                CAUSAL_LM),
    "qwen2_moe": (
        dict(_GQA, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
             shared_expert_intermediate_size=32),
        "Qwen2MoeForCausalLM", CAUSAL_LM,
    ),
    "qwen3_moe": (
        dict(_HEAD_DIM, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32),
        "Qwen3MoeForCausalLM", CAUSAL_LM,
    ),
    "bert": (_BASE, "BertForMaskedLM", MASKED_LM),
    "roberta": (dict(_BASE, pad_token_id=1, bos_token_id=0), "RobertaForMaskedLM", MASKED_LM),
    "t5": (
        {"d_model": 32, "d_kv": 8, "d_ff": 64, "num_layers": 2, "num_heads": 4,
         "vocab_size": 128, "pad_token_id": 0, "eos_token_id": 1,
         "decoder_start_token_id": 0},
        "T5ForConditionalGeneration", SEQ2SEQ_LM,
    ),
}  # fmt: skip


def _config(model_type: str, **more: Any) -> dict[str, Any]:
    return dict(FAMILIES[model_type][0], model_type=model_type, **more)


def _write(tmp_path: Path, config: Any, name: str = "config.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(config), encoding="utf-8")
    return str(path)


def _attention(model_type: str) -> str:
    return "eager" if model_type == "gemma2" else "sdpa"


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    lines: list[str] = []
    rc = main(list(argv), out=lines.append)
    return rc, lines, capsys.readouterr().err


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    rc, lines, err = _main(capsys, *argv, "--json")
    assert rc == 0, err
    result: dict[str, Any] = json.loads(lines[0])
    return result


def _refused(rc: int, err: str) -> None:
    assert rc == 2
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("error: ")


def _dropout_on(model: Any) -> list[str]:
    return [
        name
        for name, m in model.named_modules()
        if isinstance(m, torch.nn.modules.dropout._DropoutNd) and m.p > 0
    ]


@pytest.mark.parametrize("model_type", sorted(FAMILIES))
def test_every_family_measures(
    model_type: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, cls, head = FAMILIES[model_type]
    path = _write(tmp_path, _config(model_type))
    rc, lines, err = _main(
        capsys, "--model-config", path, "--seq", "16", "--micro-batch", "2",
        "--attention", _attention(model_type), "--no-dropout",
    )  # fmt: skip
    assert rc == 0, err
    assert f"model: {cls} ({head})" in lines
    assert f"attention: {_attention(model_type)}" in lines
    per_sample = [line for line in lines if line.startswith("saved bytes per sample: ")]
    assert len(per_sample) == 1 and int(per_sample[0].split(": ")[1]) > 0
    assert any(line.startswith("parameters: ") for line in lines)


@pytest.mark.parametrize("model_type", ["t5", "bert", "gemma3", "mixtral"])
def test_checkpointing_works_for(model_type: str, tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, _config(model_type))
    args = ("--model-config", path, "--seq", "32", "--no-dropout")
    plain = _json(capsys, *args)["saved_bytes"]
    ckpt = _json(capsys, *args, "--checkpointing")["saved_bytes"]
    assert 0 < ckpt < plain


def test_gemma3_is_measured_with_its_vision_tower(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, _config("gemma3"))
    rc, lines, err = _main(capsys, "--model-config", path, "--seq", "8")
    assert rc == 0, err
    assert "model: Gemma3ForConditionalGeneration (causal-lm)" in lines
    text = build_model(FAMILIES["gemma3"][0]["text_config"] | {"model_type": "gemma3_text"})
    whole = _json(capsys, "--model-config", path, "--seq", "8")["parameters"]
    assert whole > text.num_parameters()  # the SigLIP tower and the projector


def test_head_kinds() -> None:
    assert head_kind(_config("bert")) == MASKED_LM
    assert head_kind(_config("roberta")) == MASKED_LM
    assert head_kind(_config("t5")) == SEQ2SEQ_LM
    assert head_kind(_config("llama")) == CAUSAL_LM
    assert head_kind(_config("gemma3")) == CAUSAL_LM
    # a task head: built as named (the estimate models it too)
    assert head_kind(_config("bert", architectures=["BertForSequenceClassification"])) == (
        SEQUENCE_CLASSIFICATION
    )
    assert head_kind(_config("bert", architectures=["BertModel"])) == BASE
    # an encoder-decoder's task head is not modelled: its LM head is built instead
    assert head_kind(_config("t5", architectures=["T5ForSequenceClassification"])) == SEQ2SEQ_LM
    assert head_kind(_config("gpt2", architectures=["GPT2LMHeadModel"])) == CAUSAL_LM


def test_architectures_names_the_class(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, _config("bert", architectures=["BertLMHeadModel"], is_decoder=True))
    assert _json(capsys, "--model-config", path, "--seq", "8")["model_class"] == ("BertLMHeadModel")
    path = _write(tmp_path, _config("bert", architectures=["BertForSequenceClassification"]))
    rc, lines, err = _main(capsys, "--model-config", path, "--seq", "8")
    assert rc == 0, err
    assert "model: BertForSequenceClassification (sequence-classification)" in lines
    path = _write(tmp_path, _config("t5", architectures=["T5ForSequenceClassification"]))
    rc, lines, err = _main(capsys, "--model-config", path, "--seq", "8")
    assert rc == 0, err
    assert any("T5ForSequenceClassification" in line for line in lines if "note" in line)


def test_batches_follow_the_head() -> None:
    bert = build_model(_config("bert"), dropout=False)
    batch = random_batch(bert, 8, 2)
    assert set(batch) == {"input_ids", "labels", "token_type_ids"}
    assert torch.equal(batch["labels"], batch["input_ids"])  # every position labelled
    assert not batch["token_type_ids"].any()
    t5 = build_model(_config("t5"), dropout=False)
    batch = random_batch(t5, 8, 2, target_seq=4)
    assert batch["input_ids"].shape == (2, 8) and batch["labels"].shape == (2, 4)
    assert random_batch(t5, 8)["labels"].shape == (1, 8)
    llama = build_model(_config("llama"))
    assert set(random_batch(llama, 8)) == {"input_ids", "labels"}


def test_bert_no_dropout_is_the_model_with_every_dropout_zero(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, _config("bert"))
    args = ("--model-config", path, "--seq", "32", "--micro-batch", "2")
    off = _json(capsys, *args, "--no-dropout")["saved_bytes"]
    on = _json(capsys, *args)["saved_bytes"]

    cfg = transformers.AutoConfig.for_model(
        **_config(
            "bert", hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
            classifier_dropout=0.0,
        )
    )  # fmt: skip
    model = transformers.BertForMaskedLM(cfg).to(torch.bfloat16)
    assert not _dropout_on(model)
    ids = torch.randint(0, 128, (2, 32))
    by_hand = measure_activation(
        model, {"input_ids": ids, "labels": ids.clone(), "token_type_ids": torch.zeros_like(ids)}
    )
    assert off == by_hand
    assert on > off


@pytest.mark.parametrize("model_type", ["opt", "t5", "bert", "gpt2", "falcon"])
def test_no_dropout_leaves_no_dropout(model_type: str) -> None:
    config = _config(model_type)
    if model_type == "falcon":
        config.update(hidden_dropout=0.1, attention_dropout=0.1)
    if model_type == "opt":
        config.update(attention_dropout=0.1, layerdrop=0.1)
    assert _dropout_anywhere(build_model(config)), "the config should start with dropout on"
    model = build_model(config, dropout=False)
    assert not _dropout_on(model)
    assert not _dropout_anywhere(model)


def _dropout_anywhere(model: Any) -> list[str]:
    """Dropout modules with p > 0 and the probabilities families pass to F.dropout."""
    found = _dropout_on(model)
    for name, module in model.named_modules():
        for attr, value in vars(module).items():
            if "drop" in attr and isinstance(value, float) and value > 0:
                found.append(f"{name}.{attr}")
    return found


def test_dropout_true_turns_dropout_on() -> None:
    model = build_model(_config("bert", hidden_dropout_prob=0.0), dropout=True)
    assert model.config.hidden_dropout_prob == 0.1
    assert model.config.attention_probs_dropout_prob == 0.1
    t5 = build_model(_config("t5", dropout_rate=0.2), dropout=True)
    assert t5.config.dropout_rate == 0.2


def test_dropout_that_stays_on_is_refused(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(measure_building, "_set_dropout", lambda cfg, dropout: None)
    path = _write(tmp_path, _config("opt"))
    rc, lines, err = _main(capsys, "--model-config", path, "--seq", "8", "--no-dropout")
    _refused(rc, err)
    assert "cannot turn dropout off" in err and not lines
    # dropout no attribute names: only the two training forwards can tell
    monkeypatch.setattr(measure_building, "_dropout_left", lambda model: [])
    rc, _, err = _main(capsys, "--model-config", path, "--seq", "8", "--no-dropout")
    _refused(rc, err)
    assert "two training forwards" in err


def test_gemma2_sdpa_is_refused_naming_eager(tmp_path: Path, capsys: Any) -> None:
    # transformers 5.24: Gemma2ForCausalLM has _supports_sdpa = False (soft-capping) and
    # raises ValueError for attn_implementation="sdpa"; it does not fall back.
    path = _write(tmp_path, _config("gemma2"))
    rc, lines, err = _main(capsys, "--model-config", path, "--seq", "8", "--attention", "sdpa")
    _refused(rc, err)
    assert "Gemma2ForCausalLM" in err and "sdpa" in err and "supported: eager" in err
    assert not lines
    assert (
        _json(capsys, "--model-config", path, "--seq", "8", "--attention", "eager")["attention"]
        == "eager"
    )
    with pytest.raises(ValueError, match="supported: eager"):
        build_model(_config("gemma2"), attention="sdpa")


def test_t5_target_seq(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, _config("t5"))
    short = _json(capsys, "--model-config", path, "--seq", "16", "--target-seq", "4")
    assert short["head"] == SEQ2SEQ_LM and short["model_class"] == "T5ForConditionalGeneration"
    assert (short["seq"], short["target_seq"]) == (16, 4)
    same = _json(capsys, "--model-config", path, "--seq", "16")
    assert same["target_seq"] == 16
    assert short["saved_bytes"] < same["saved_bytes"]


def test_json_output(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, _config("llama"))
    result = _json(capsys, "--model-config", path, "--seq", "16", "--micro-batch", "2")
    assert {
        "model_class", "head", "attention", "parameters", "saved_bytes",
        "saved_bytes_per_sample", "micro_batch", "seq", "target_seq",
    } <= set(result)  # fmt: skip
    assert result["model_class"] == "LlamaForCausalLM" and result["head"] == CAUSAL_LM
    assert result["attention"] == "sdpa" and result["target_seq"] is None
    assert result["saved_bytes_per_sample"] == result["saved_bytes"] // 2
    assert (result["micro_batch"], result["seq"]) == (2, 16)
    assert result["parameters"] == count_parameters(_config("llama"))


@pytest.mark.parametrize(
    ("model_type", "auto"),
    [
        ("gpt2", "AutoModelForCausalLM"),  # tied embeddings: counted once
        ("llama", "AutoModelForCausalLM"),
        ("qwen3_moe", "AutoModelForCausalLM"),
        ("bert", "AutoModelForMaskedLM"),
        ("t5", "AutoModelForSeq2SeqLM"),
    ],
)
def test_count_parameters(model_type: str, auto: str) -> None:
    config = _config(model_type)
    model = getattr(transformers, auto).from_config(transformers.AutoConfig.for_model(**config))
    assert count_parameters(config) == model.num_parameters()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("{not json", "not a JSON file"),
        ("[1, 2]", "not a JSON object"),
        ('{"hidden_size": 32}', "no model_type"),
        ('{"model_type": "no-such-model"}', "unknown model_type"),
        ('{"model_type": "dinov2"}', "no language-model head"),
        (
            '{"model_type": "llama", "hidden_size": 30, "num_attention_heads": 4,'
            ' "num_hidden_layers": 1, "intermediate_size": 8, "vocab_size": 64}',
            "not a multiple",
        ),
        (
            '{"model_type": "llama", "hidden_size": -32, "num_attention_heads": 4,'
            ' "num_hidden_layers": 1, "intermediate_size": 8, "vocab_size": 64}',
            "negative dimension",
        ),
    ],
    ids=["missing", "not-json", "not-object", "no-type", "unknown", "no-lm-head",
         "rejected", "negative"],
)  # fmt: skip
def test_bad_config_is_one_line_error(
    content: str | None, message: str, tmp_path: Path, capsys: Any
) -> None:
    path = tmp_path / "config.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    rc, lines, err = _main(capsys, "--model-config", str(path), "--seq", "8")
    _refused(rc, err)
    assert message in err and not lines
    if message == "unknown model_type":
        assert "llama" in err and "t5" in err  # the supported model types are listed


@pytest.mark.parametrize(
    "argv",
    [
        ["--seq", "0"],
        ["--seq", "8", "--micro-batch", "0"],
        ["--seq", "8", "--target-seq", "0"],
        ["--seq", "65"],  # beyond BERT's 64 learned positions
    ],
)
def test_bad_sizes_exit_2(argv: list[str], tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, _config("bert"))
    rc, lines, err = _main(capsys, "--model-config", path, *argv)
    _refused(rc, err)
    assert not lines


@pytest.mark.parametrize(
    "exc", [MemoryError(), RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")]
)
def test_out_of_memory_is_one_line_error(
    exc: BaseException, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(model: Any, batch: Any) -> Any:
        raise exc

    monkeypatch.setattr(measure_command, "measure_saved", boom)
    path = _write(tmp_path, _config("llama"))
    rc, _, err = _main(capsys, "--model-config", path, "--seq", "8")
    _refused(rc, err)
    assert "out of memory" in err


@pytest.mark.parametrize("frozen", [False, True], ids=["trained", "frozen"])
def test_images_on_the_command_line_match_the_estimate(
    tmp_path: Path, capsys: Any, frozen: bool
) -> None:
    """What the estimator's dialog tells the user to run for a VLM measures the same
    images the estimate assumes."""
    from gradacc_desktop.cli import main as gradacc
    from tests.measure.test_family_vlm import SMALL as VLM

    config, seq, (width, height) = VLM["qwen2_vl"]
    path = _write(tmp_path, config)
    flags = ["--images", "1", "--image-size", f"{width}x{height}"]
    flags += ["--freeze-vision"] if frozen else []
    measured = _json(capsys, "--model-config", path, "--seq", str(seq), "--no-dropout", *flags)
    argv = ["activation", "--model-config", path, "--seq", str(seq), "--device", "cpu"]
    assert gradacc([*argv, *flags, "--json"]) == 0
    estimate = json.loads(capsys.readouterr().out)
    assert measured["saved_bytes_per_sample"] == estimate["saved_bytes_per_sample"]


def test_image_flags_need_a_vision_tower(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, _config("llama"))
    rc, _lines, err = _main(capsys, "--model-config", path, "--seq", "8", "--images", "1")
    _refused(rc, err)
    assert "vision tower" in err
