"""``gradacc check`` on the corpus's TrainingArguments JSONs, TRL recipe YAMLs and
LLaMA-Factory YAMLs, against transformers 5.24 and TRL 1.16 parsing the same files.

* TRL recipe YAML: TRL's own ``TrlParser`` over the script's dataclasses
  (``ScriptArguments``, ``SFTConfig`` or, for a DPO recipe, ``DPOConfig``, ``ModelConfig``,
  ``DatasetMixtureConfig``, as ``trl sft`` / ``trl dpo`` build it) reads the file:
  acceptance (``parse_args_and_config`` raising = refusal), the keys it does not take,
  and, where its dataclasses can be built, the micro-batch, accumulation steps,
  bf16 / fp16, gradient checkpointing, ``max_length``, ``use_peft`` / ``lora_r`` /
  ``load_in_4bit`` and the model.
* TrainingArguments JSON: ``HfArgumentParser(Seq2SeqTrainingArguments).parse_dict`` with
  ``allow_extra_keys=True`` (the script's own dataclasses take the other keys, which
  gradacc names without refusing them); its ``deepspeed`` key names a file of the
  source repository that the corpus does not hold, so it is removed here (transformers
  would refuse a path it cannot open; gradacc leaves the ZeRO stage and offload missing).
* LLaMA-Factory YAML: LLaMA-Factory cannot be installed next to transformers 5.24, so
  only its Trainer keys are parsed, with ``Seq2SeqTrainingArguments`` (the class its
  TrainingArguments extends) and ``allow_extra_keys=True``; its ``deepspeed`` paths are
  relative to a LLaMA-Factory checkout (``examples/deepspeed/...``): the corpus's copies
  of those JSONs are laid out so in the folder both are run from (the launch folder),
  and transformers' own reading of them (``hf_deepspeed_config``) is compared too.
  The file is loaded with PyYAML (LLaMA-Factory uses OmegaConf; the keys compared are
  plain numbers and booleans, read the same by both).

bf16 needs an Ampere GPU in ``TrainingArguments._validate_args``: the check is stubbed
(these machines have none), as in ``test_config_corpus``.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from gradacc_desktop.cli import main
from gradacc_desktop.core.frameworks.config_import import trainer_keys
from gradacc_desktop.core.frameworks.config_import.trainer_keys import HANDBOOK_KEYS
from tests.trainers.corpus import CORPUS, KINDS

GPUS = 4


def _files(kind: str) -> list[Any]:
    return [pytest.param(CORPUS / name, id=name) for name, k in sorted(KINDS.items()) if k == kind]


TRL_FILES = _files("TRL recipe YAML")
JSON_FILES = _files("TrainingArguments JSON")
LLAMA_FACTORY_FILES = _files("LLaMA-Factory YAML")


def test_the_corpus_has_these_kinds() -> None:
    assert len(TRL_FILES) >= 4 and len(JSON_FILES) >= 1 and len(LLAMA_FACTORY_FILES) >= 4


@pytest.fixture
def hf(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """transformers with its bf16 hardware check stubbed, run in a fresh folder."""
    import transformers.training_args as training_args

    monkeypatch.setattr(training_args, "is_torch_bf16_gpu_available", lambda *a, **k: True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["check", str(path), "--json", "--world-size", str(GPUS)])
    return code, json.loads(capsys.readouterr().out)


def _precision(args: Any) -> str:
    return "bf16" if args.bf16 else "fp16" if args.fp16 else "fp32"


def _unknown(data: dict[str, Any], refused: bool) -> set[str]:
    return {u["key"] for u in data["unknown_keys"] if u["refused"] is refused}


def _fields(cls: Any) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls) if f.init)


# --------------------------------------------------------------------------- the key sets


def test_key_sets_are_the_installed_dataclasses() -> None:
    from transformers import Seq2SeqTrainingArguments, TrainingArguments
    from trl import DatasetMixtureConfig, DPOConfig, ModelConfig, ScriptArguments, SFTConfig

    base = _fields(TrainingArguments)
    assert base == trainer_keys.TRAINING_ARGS
    assert _fields(Seq2SeqTrainingArguments) - base == trainer_keys.SEQ2SEQ_ARGS
    assert _fields(ScriptArguments) | _fields(DatasetMixtureConfig) == trainer_keys.TRL_SCRIPT
    assert _fields(ModelConfig) == trainer_keys.TRL_MODEL
    assert _fields(SFTConfig) - base == trainer_keys.TRL_SFT
    assert _fields(DPOConfig) - base == trainer_keys.TRL_DPO


# --------------------------------------------------------------------------- TRL recipes


def _trl_parser(path: Path) -> Any:
    from trl import (
        DatasetMixtureConfig,
        DPOConfig,
        ModelConfig,
        ScriptArguments,
        SFTConfig,
        TrlParser,
    )

    config = DPOConfig if "-dpo-" in path.name else SFTConfig
    return TrlParser((ScriptArguments, config, ModelConfig, DatasetMixtureConfig))


def _raw(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("path", TRL_FILES)
def test_trl_accepts_what_we_accept(path: Path, hf: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, data = _check(path, capsys)
    assert data["kind"] == "transformers"
    parser = _trl_parser(path)
    try:
        parser.parse_args_and_config(["--config", str(path), "--output_dir", str(hf / "out")])
    except (ValueError, SystemExit):
        accepted = False
    else:
        accepted = True
    # TRL's own parser refuses the handbook's keys; gradacc names them without refusing
    # (the handbook's scripts take them): only the other keys decide
    if accepted or _unknown(data, refused=True):
        assert data["framework_accepts"] is accepted
        assert code == (0 if accepted else 1)
    # the keys TrlParser cannot place are the ones we refuse
    raw = _raw(path)
    raw.pop("env", None)
    remaining = _trl_parser(path).set_defaults_with_config(**raw)
    # alignment-handbook's own keys (its scripts define them) are named, not refused:
    # TRL's own parser cannot place them either
    handbook = _unknown(data, refused=False)
    assert handbook <= HANDBOOK_KEYS
    assert set(remaining[::2]) == {f"--{k}" for k in _unknown(data, refused=True) | handbook}


@pytest.mark.parametrize("path", TRL_FILES)
def test_trl_reads_the_values_we_read(path: Path, hf: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, data = _check(path, capsys)
    values = data["values"]
    parser = _trl_parser(path)
    raw = _raw(path)
    raw.pop("env", None)
    parser.set_defaults_with_config(**raw)
    try:
        _script, args, model, _mixture = parser.parse_args_into_dataclasses(
            args=["--output_dir", str(hf / "out")]
        )
    except ValueError:
        # the dataclasses themselves refuse the file (a TrainingArguments rule gradacc
        # does not model): gradacc refuses it for its unknown keys
        assert data["framework_accepts"] is False and code == 1
        assert _unknown(data, refused=True)
        return
    assert values["micro_batch"] == args.per_device_train_batch_size
    assert values["accumulation_steps"] == args.gradient_accumulation_steps
    assert values["precision"] == _precision(args)
    assert values["checkpointing"] is args.activation_checkpointing
    if "max_seq_length" in raw:
        # TRL 1.16 does not take the old name (its max_length stays 1024): refused,
        # and gradacc does not put a default length in place of the one the file meant
        assert values["sequence_length"] is None
        assert "max_seq_length" in _unknown(data, refused=True)
    else:
        assert values["sequence_length"] == args.max_length
    assert (values["adapter"] is not None) is model.use_peft
    if model.use_peft:
        assert values["lora_rank"] == model.lora_r
        assert values["adapter"] == ("qlora" if model.load_in_4bit else "lora")
    assert bool(values["base_4bit"]) is model.load_in_4bit
    assert values["base_model"] == model.model_name_or_path


# --------------------------------------------------------------------------- TrainingArguments


@pytest.mark.parametrize("path", JSON_FILES)
def test_training_arguments_read_as_we_read_them(path: Path, hf: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from transformers import HfArgumentParser, Seq2SeqTrainingArguments

    code, data = _check(path, capsys)
    assert data["kind"] == "transformers"
    raw = _raw(path)
    raw.pop("deepspeed", None)  # a file of the source repository, not in the corpus
    raw["output_dir"] = str(hf / "out")
    (args,) = HfArgumentParser(Seq2SeqTrainingArguments).parse_dict(raw, allow_extra_keys=True)
    values = data["values"]
    assert values["micro_batch"] == args.per_device_train_batch_size
    assert values["accumulation_steps"] == args.gradient_accumulation_steps
    assert values["precision"] == _precision(args)
    assert values["checkpointing"] is args.activation_checkpointing
    # the keys the Trainer's dataclasses do not take are named, not refused (the
    # script's own dataclasses may take them), so the file is accepted
    assert _unknown(data, refused=False) == set(raw) - _fields(Seq2SeqTrainingArguments)
    assert _unknown(data, refused=True) == set()
    assert data["framework_accepts"] is True and code == 0


# --------------------------------------------------------------------------- LLaMA-Factory


@pytest.mark.parametrize("path", LLAMA_FACTORY_FILES)
def test_llama_factory_trainer_keys(path: Path, hf: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from transformers import HfArgumentParser, Seq2SeqTrainingArguments

    raw = _raw(path)
    ds = raw.get("deepspeed")
    if isinstance(ds, str):
        # relative to a LLaMA-Factory checkout, the folder llamafactory-cli is launched
        # in: the corpus holds LLaMA-Factory's examples/deepspeed JSONs, laid out here
        # as in the checkout, and this folder is the launch folder
        (hf / ds).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CORPUS / f"LLaMA-Factory__{ds.replace('/', '-')}", hf / ds)
    code, data = _check(path, capsys)
    assert data["kind"] == "llama-factory"
    raw["output_dir"] = str(hf / "out")
    (args,) = HfArgumentParser(Seq2SeqTrainingArguments).parse_dict(raw, allow_extra_keys=True)
    values = data["values"]
    assert values["micro_batch"] == args.per_device_train_batch_size
    assert values["accumulation_steps"] == args.gradient_accumulation_steps
    assert values["precision"] == _precision(args)
    if ds is not None:
        # transformers read the same file and filled its "auto" batch values
        ds_config = args.hf_deepspeed_config
        assert data["resolved_files"][0]["where"] == "launch folder"
        assert values["zero_stage"] == ds_config.config["zero_optimization"]["stage"]
        assert (values["offload"] not in (None, "none")) is ds_config.is_offload()
        assert ds_config.config["train_micro_batch_size_per_gpu"] == values["micro_batch"]
        assert ds_config.config["gradient_accumulation_steps"] == values["accumulation_steps"]
        assert data["missing"] == []
    assert (
        data["derived"]["micro_batch"] * data["derived"]["accumulation_steps"] * GPUS
        == (data["effective_batch"])
    )
    assert data["framework_accepts"] is True and code == 0
