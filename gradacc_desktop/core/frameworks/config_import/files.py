"""Reading a config file, parsing it as JSON or YAML, and recognising its kind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...text import trans_late
from .model import MAX_CONFIG_BYTES, ConfigImportError, ConfigKind

# --------------------------------------------------------------------------- recognising

_DEEPSPEED_KEYS = frozenset(
    {
        "train_batch_size",
        "train_micro_batch_size_per_gpu",
        "zero_optimization",
        "gradient_clipping",
        "steps_per_print",
        "wall_clock_breakdown",
        "zero_allow_untested_optimizer",
        "bfloat16",
        "amp",
        "activation_checkpointing",
        "flops_profiler",
        "prescale_gradients",
        "communication_data_type",
        "zero_force_ds_cpu_optimizer",
        "tensor_parallel",
    }
)
# DeepSpeed's only when they are sections (axolotl's bf16/fp16 are booleans, its
# optimizer a name)
_DEEPSPEED_SECTIONS = frozenset({"bf16", "fp16", "optimizer", "scheduler"})
_ACCELERATE_KEYS = frozenset(
    {
        "compute_environment",
        "distributed_type",
        "num_processes",
        "num_machines",
        "machine_rank",
        "mixed_precision",
        "use_cpu",
        "main_training_function",
        "deepspeed_config",
        "fsdp_config",
        "parallelism_config",
        "downcast_bf16",
        "rdzv_backend",
        "same_network",
        "main_process_ip",
        "main_process_port",
        "gpu_ids",
        "tpu_env",
        "dynamo_config",
        "megatron_lm_config",
        "enable_cpu_affinity",
    }
)
_AXOLOTL_KEYS = frozenset(
    {
        "base_model",
        "base_model_config",
        "micro_batch_size",
        "sequence_len",
        "adapter",
        "lora_r",
        "lora_alpha",
        "lora_dropout",
        "lora_target_modules",
        "lora_target_linear",
        "load_in_4bit",
        "load_in_8bit",
        "datasets",
        "dataset_prepared_path",
        "num_epochs",
        "sample_packing",
        "model_type",
        "tokenizer_type",
        "val_set_size",
        "deepspeed",
        "flash_attention",
        "special_tokens",
        "lr_scheduler",
        "wandb_project",
    }
)


# Keys only one kind of file has: any of them decides the kind.
_DISTINCTIVE: tuple[tuple[ConfigKind, frozenset[str]], ...] = (
    # LLaMA-Factory, src/llamafactory/hparams/finetuning_args.py and data_args.py
    (
        ConfigKind.LLAMA_FACTORY,
        frozenset({"finetuning_type", "cutoff_len", "lora_target", "stage", "template"}),
    ),
    # GPT-NeoX, megatron/neox_arguments/neox_args.py; NeoXArgs.from_ymls() turns "-"
    # into "_", so its own configs also write them with dashes (configs/125M.yml)
    (
        ConfigKind.NEOX,
        frozenset(
            {
                "pipe_parallel_size",
                "model_parallel_size",
                "seq_length",
                "pos_emb",
                "train_iters",
                "pipe-parallel-size",
                "model-parallel-size",
                "seq-length",
                "pos-emb",
                "train-iters",
            }
        ),
    ),
)
# HF TrainingArguments (transformers/training_args.py) and TRL's ModelConfig and
# ScriptArguments, as in TRL and alignment-handbook recipes
_TRAINER_KEYS = frozenset(
    {
        "per_device_train_batch_size",
        "per_device_eval_batch_size",
        "num_train_epochs",
        "lr_scheduler_type",
        "logging_steps",
        "save_strategy",
        "eval_strategy",
        "evaluation_strategy",
        "warmup_ratio",
        "gradient_checkpointing",
        "model_name_or_path",
        "dataset_name",
        "dataset_mixture",
        "max_seq_length",
        "use_peft",
        "push_to_hub",
        "hub_model_id",
        "report_to",
        "torch_dtype",
        "dtype",
        "attn_implementation",
    }
)
# torchtune: its config's top-level sections name the class they build
_TORCHTUNE_KEYS = frozenset(
    {
        "checkpointer",
        "tokenizer",
        "loss",
        "epochs",
        "max_steps_per_epoch",
        "enable_activation_checkpointing",
        "enable_activation_offloading",
        "optimizer_in_bwd",
        "metric_logger",
        "clip_grad_norm",
        "compile",
    }
)


def _torchtune_score(data: dict[Any, Any]) -> int:
    components = sum(1 for v in data.values() if isinstance(v, dict) and "_component_" in v)
    if not components:
        return 0
    return components + len({k for k in data if isinstance(k, str)} & _TORCHTUNE_KEYS)


def detect_kind(data: dict[Any, Any], is_json: bool, name: str) -> ConfigKind:
    keys = {k for k in data if isinstance(k, str)}
    torchtune = _torchtune_score(data)
    if torchtune:
        return ConfigKind.TORCHTUNE
    for kind, distinctive in _DISTINCTIVE:
        if keys & distinctive:
            return kind
    scores = {
        ConfigKind.DEEPSPEED: len(keys & _DEEPSPEED_KEYS)
        + sum(1 for k in keys & _DEEPSPEED_SECTIONS if isinstance(data[k], dict)),
        ConfigKind.ACCELERATE: len(keys & _ACCELERATE_KEYS),
        ConfigKind.AXOLOTL: len(keys & _AXOLOTL_KEYS),
        ConfigKind.TRAINER: len(keys & _TRAINER_KEYS),
    }
    order = (
        [ConfigKind.DEEPSPEED, ConfigKind.TRAINER, ConfigKind.ACCELERATE, ConfigKind.AXOLOTL]
        if is_json
        else [ConfigKind.AXOLOTL, ConfigKind.TRAINER, ConfigKind.ACCELERATE, ConfigKind.DEEPSPEED]
    )
    best = max(order, key=lambda k: scores[k])  # the first of equals
    if scores[best] > 0:
        return best
    if "gradient_accumulation_steps" in keys:  # shared by DeepSpeed and axolotl
        return ConfigKind.DEEPSPEED if is_json else ConfigKind.AXOLOTL
    raise ConfigImportError(
        trans_late(
            "ConfigImport",
            "{name}: not a config gradacc reads: none of the keys of DeepSpeed, accelerate, "
            "axolotl, the Hugging Face Trainer, TRL, LLaMA-Factory, torchtune or GPT-NeoX "
            "(such as train_batch_size, distributed_type, micro_batch_size or "
            "per_device_train_batch_size)",
        ).format(name=name)
    )


# --------------------------------------------------------------------------- parsing

NO_SUCH_FILE = trans_late("ConfigImport", "{name}: no such file")
A_FOLDER = trans_late("ConfigImport", "{name}: is a folder, not a file")
_AT_LINE = trans_late("ConfigImport", "{what} at line {line}, column {column}")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def read_file(path: Path, name: str) -> str:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigImportError(NO_SUCH_FILE.format(name=name)) from None
    except IsADirectoryError:
        raise ConfigImportError(A_FOLDER.format(name=name)) from None
    except OSError as exc:
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: cannot read it: {why}").format(
                name=name, why=exc.strerror or str(exc)
            )
        ) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigImportError(
            trans_late(
                "ConfigImport", "{name}: too large for a config file (over {megabytes} MB)"
            ).format(name=name, megabytes=MAX_CONFIG_BYTES // 1_000_000)
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: not a text file (not UTF-8)").format(name=name)
        ) from None


def parse_text(text: str, name: str) -> tuple[Any, bool]:
    """The parsed content and whether it was JSON."""
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_CONFIG_BYTES:
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: too large for a config file").format(name=name)
        )
    try:
        return json.loads(text), True
    except json.JSONDecodeError as exc:
        # json's messages such as "Unterminated string starting at" end in "at": the
        # position follows them once, not "at at line"
        what = exc.msg.removesuffix(" at").rstrip(":")
        json_error = _AT_LINE.format(what=what, line=exc.lineno, column=exc.colno)
    except (ValueError, RecursionError) as exc:  # integers too long, nesting too deep
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: cannot read it as JSON: {why}").format(
                name=name, why=_why(exc)
            )
        ) from None
    # imported here: the app pays for the YAML parser only when a config is checked
    import yaml  # type: ignore[import-untyped, unused-ignore]

    if text.lstrip().startswith(("{", "[")):
        # meant as JSON (DeepSpeed reads it with json.load): no YAML leniency, except for
        # GPT-NeoX, whose NeoXArgs.from_ymls() reads its configs (JSON-like mappings with
        # "#" comments and trailing commas) with yaml.load
        neox = _neox_yaml(text, yaml)
        if neox is not None:
            return neox, False
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: not valid JSON: {why}").format(
                name=name, why=json_error
            )
        )

    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        problem: str = _one_line(exc.problem or exc.context or "syntax error")
        mark = exc.problem_mark
        if mark is not None:
            problem = _AT_LINE.format(what=problem, line=mark.line + 1, column=mark.column + 1)
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: not valid YAML: {why}").format(
                name=name, why=problem
            )
        ) from None
    except (yaml.YAMLError, ValueError, TypeError, RecursionError, OverflowError) as exc:
        raise ConfigImportError(
            trans_late("ConfigImport", "{name}: cannot read it as YAML: {why}").format(
                name=name, why=_why(exc)
            )
        ) from None
    return data, False


def _neox_yaml(text: str, yaml: Any) -> dict[Any, Any] | None:
    """``text`` read as YAML when that gives a GPT-NeoX config, else None."""
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError, OverflowError):
        return None
    if not isinstance(data, dict):
        return None
    try:
        kind = detect_kind(data, False, "config")
    except ConfigImportError:
        return None
    return data if kind is ConfigKind.NEOX else None


def _why(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return trans_late("ConfigImport", "nested too deeply").format()
    if "integer string conversion" in str(exc):
        return trans_late("ConfigImport", "a number has too many digits").format()
    return _one_line(str(exc))[:200] or type(exc).__name__
