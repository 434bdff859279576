"""Reading Hugging Face ``TrainingArguments`` (a JSON) and TRL / alignment-handbook
recipe YAMLs (``TrainingArguments``' keys with TRL's ``ModelConfig`` and script
arguments), and the Trainer's rules that LLaMA-Factory shares (``llama_factory``).

The versions followed: transformers 5.24 and TRL 1.16. Each rule cites the framework's
source. Decisions where the frameworks leave a choice:

* a YAML with any key that only TRL's dataclasses define (``model_name_or_path``,
  ``use_peft``, ``max_length``, ...) is a TRL recipe: it is parsed as TRL's ``trl sft`` /
  ``trl dpo`` do (``TrlParser`` over ``ScriptArguments``, ``SFTConfig`` or ``DPOConfig``,
  ``ModelConfig`` and ``DatasetMixtureConfig``; ``DPOConfig`` when a key only it defines is
  present), with TRL's defaults (bf16 on unless fp16 is, gradient checkpointing on,
  ``max_length`` 1024); a key none of them defines is refused;
* anything else, and every JSON (``TrlParser`` reads only YAML), is ``TrainingArguments``
  as ``HfArgumentParser.parse_json_file`` / ``parse_dict`` gives it to a script, with
  transformers' defaults; a key it does not define is named but not refused, since the
  script's own dataclasses may define it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ...memory.setup import Precision
from ...text import trans_late
from .attention import read_implementation
from .deepspeed import deepspeed_unknown_keys, read_deepspeed
from .follow import follow_deepspeed
from .model import Adapter, UnknownKey, Unread
from .reader import MAX_MICRO, MAX_RANK, MAX_SEQ, MAX_STEPS, Bad, Reader, clean
from .trainer_keys import (
    HANDBOOK_KEY,
    HANDBOOK_KEYS,
    REMOVED_KEY,
    RENAMED,
    RENAMED_TO,
    SEQ2SEQ_ARGS,
    TRAINING_ARGS,
    TRL_DPO,
    TRL_MODEL,
    TRL_ONLY,
    TRL_SCRIPT,
    TRL_SFT,
)

# TRL 1.16, trl/scripts/_hf_argparser.py (TrlParser's copy of transformers'
# HfArgumentParser) _parse_dataclass_field(): a bool field gets type=string_to_bool, an
# int field type=int; TrlParser.set_defaults_with_config() makes the file's values the
# argparse defaults, and argparse converts a default given as text with that type
_TRUE_TEXT = frozenset({"yes", "true", "t", "y", "1"})
_FALSE_TEXT = frozenset({"no", "false", "f", "n", "0"})
_INT_TEXT = re.compile(r"\s*[+-]?\d+\s*")

_TRUE_FALSE = trans_late("ConfigImport", "must be true or false")
_PYTHON_TRUTH = trans_late(
    "ConfigImport",
    "must be true or false: the Trainer takes any other value as it is and tests its "
    'truth (the text "false" counts as true)',
)


@dataclass
class TrainerArgs:
    """What the Trainer compares with a DeepSpeed JSON (None: unreadable)."""

    micro: int | None
    steps: int | None
    bf16: bool | None
    fp16: bool | None
    # bf16_full_eval / fp16_full_eval: the Trainer matches bf16|bf16_full_eval
    bf16_eval: bool = False
    fp16_eval: bool = False
    # auto_find_batch_size: the micro-batch is not matched (fill_match must_match=False)
    auto_batch: bool = False


def read_flag(r: Reader, key: str, value: Any, cli: bool, *affected: str) -> bool | Bad | None:
    """A boolean as the parser gives it: True/False, None when absent or null, BAD."""
    if value is None or isinstance(value, bool):
        return value
    if cli and isinstance(value, str):
        if value.lower() in _TRUE_TEXT:
            return True
        if value.lower() in _FALSE_TEXT:
            return False
        # string_to_bool raises ArgumentTypeError: argparse exits with an error
        return r.refuse(key, value, _TRUE_FALSE.format(), *affected, refused=True)
    # HfArgumentParser.parse_dict() passes the value unconverted to the dataclass
    return r.refuse(key, value, (_TRUE_FALSE if cli else _PYTHON_TRUTH).format(), *affected)


def read_count(r: Reader, field: str, key: str, data: dict[Any, Any], high: int, cli: bool) -> None:
    value = data.get(key)
    if cli and isinstance(value, str) and _INT_TEXT.fullmatch(value):
        value = int(value)  # argparse applies type=int to a text default
    if value is None and key in data:
        # null reaches the Trainer as None, which it multiplies (per_device x n_gpu)
        reason = trans_late("ConfigImport", "must be a whole number").format()
        r.refuse(key, value, reason, field, refused=True)
        return
    r.integer(field, key, value, 1, high, auto=False)


def unknown_trainer_keys(
    r: Reader, data: dict[Any, Any], known: frozenset[str], refused: bool, reason: str
) -> None:
    for key in data:
        if not isinstance(key, str) or key not in known:
            if isinstance(key, str) and key in RENAMED:
                # a key an older transformers or TRL had: the versions read here refuse
                # it like any other unknown key, and say what took its place
                new = RENAMED[key]
                r.unknown.append(
                    UnknownKey(
                        r.name(key),
                        new,
                        refused,
                        (RENAMED_TO.format(new=new) if new is not None else REMOVED_KEY.format()),
                    )
                )
            elif isinstance(key, str) and key in HANDBOOK_KEYS and refused:
                r.unknown_key(key, known, False, HANDBOOK_KEY.format())
            else:
                r.unknown_key(str(key), known, refused, reason)


def _trainer_batch(r: Reader, data: dict[Any, Any], cli: bool) -> tuple[int | None, int | None]:
    """per_device_train_batch_size and gradient_accumulation_steps, or transformers'
    defaults (training_args.py TrainingArguments: 8 and 1)."""
    read_count(r, "micro_batch", "per_device_train_batch_size", data, MAX_MICRO, cli)
    read_count(r, "accumulation_steps", "gradient_accumulation_steps", data, MAX_STEPS, cli)
    if "per_device_train_batch_size" not in data:
        r.default(
            "micro_batch",
            8,
            trans_late(
                "ConfigImport",
                "micro-batch = 8: per_device_train_batch_size is not set "
                "(TrainingArguments' default)",
            ).format(),
        )
    if "gradient_accumulation_steps" not in data:
        r.default(
            "accumulation_steps",
            1,
            trans_late(
                "ConfigImport",
                "accumulation steps = 1: gradient_accumulation_steps is not set "
                "(TrainingArguments' default)",
            ).format(),
        )
    micro, steps = r.values.get("micro_batch"), r.values.get("accumulation_steps")
    return (micro if isinstance(micro, int) else None, steps if isinstance(steps, int) else None)


def _trainer_precision(
    r: Reader, data: dict[Any, Any], cli: bool, trl: bool
) -> tuple[bool | None, bool | None]:
    """bf16 / fp16 as the Trainer resolves them; returns them (None: unreadable)."""
    bf16 = read_flag(r, "bf16", data.get("bf16"), cli, "precision")
    fp16 = read_flag(r, "fp16", data.get("fp16"), cli, "precision")
    if isinstance(bf16, Bad) or isinstance(fp16, Bad):
        return None, None
    given = [k for k in ("bf16", "fp16") if data.get(k) is not None]
    fp16 = bool(fp16)
    if bf16 is None:
        # TRL 1.16, trl/trainer/base_config.py _BaseConfig.__post_init__():
        # "self.bf16 = not (self.fp16) if self.bf16 is None else self.bf16";
        # TrainingArguments' own default is False
        bf16 = not fp16 if trl else False
    if bf16 and fp16:
        # transformers, training_args.py TrainingArguments._validate_args(): ValueError
        # "At most one of fp16 and bf16 can be True, but not both"
        r.refuse(
            "fp16",
            True,
            trans_late(
                "ConfigImport", "the Trainer refuses bf16 and fp16 both on (at most one)"
            ).format(),
            "precision",
            refused=True,
        )
        return None, None
    if bf16 and "bf16" not in given:
        r.default(
            "precision",
            Precision.BF16,
            trans_late(
                "ConfigImport",
                "precision bf16: bf16 is not set and fp16 is not on (TRL's configs "
                "default bf16 to not fp16)",
            ).format(),
        )
    elif bf16 or fp16:
        r.set("precision", "bf16" if bf16 else "fp16", Precision.BF16 if bf16 else Precision.FP16)
    elif given:
        r.set("precision", "/".join(given), Precision.FP32)
    else:
        r.default(
            "precision",
            Precision.FP32,
            trans_late(
                "ConfigImport",
                "precision fp32: neither bf16 nor fp16 is set (TrainingArguments' defaults)",
            ).format(),
        )
    return bf16, fp16


def trainer_args(r: Reader, data: dict[Any, Any], cli: bool, trl: bool) -> TrainerArgs:
    """The batch values and precision of a Trainer's arguments (transformers, TRL,
    LLaMA-Factory) and what a DeepSpeed JSON is matched against."""
    micro, steps = _trainer_batch(r, data, cli)
    bf16, fp16 = _trainer_precision(r, data, cli, trl)
    evals = [read_flag(r, k, data.get(k), cli) for k in ("bf16_full_eval", "fp16_full_eval")]
    auto = read_flag(r, "auto_find_batch_size", data.get("auto_find_batch_size"), cli)
    if auto is True:
        # transformers, trainer.py _inner_training_loop via find_executable_batch_size():
        # the micro-batch is halved after each out-of-memory error
        r.unread.append(
            Unread(
                r.name("auto_find_batch_size"),
                "true",
                trans_late(
                    "ConfigImport",
                    "the Trainer halves the micro-batch after each out-of-memory error: "
                    "the micro-batch read is where it starts",
                ).format(),
            )
        )
    return TrainerArgs(micro, steps, bf16, fp16, evals[0] is True, evals[1] is True, auto is True)


def liger_flag(r: Reader, key: str, data: dict[Any, Any], cli: bool) -> bool | None:
    """The flag that turns Liger's kernels on: its value, or None when it is unreadable
    (the fused loss stays open) or absent (the default: no Liger kernels, loss unfused)."""
    on = read_flag(r, key, data.get(key), cli, "fused_loss")
    if on is None:
        r.values["fused_loss"] = False
    return None if isinstance(on, Bad) else on


def _trainer_liger(r: Reader, data: dict[Any, Any], cli: bool) -> None:
    # transformers 5, Trainer: use_liger_kernel applies Liger's kernels to the model
    # (_apply_liger_kernel_to_instance) with liger_kernel_config's keywords, whose
    # fused_linear_cross_entropy is on unless that config turns it off
    use = liger_flag(r, "use_liger_kernel", data, cli)
    if use is None:
        return
    options = data.get("liger_kernel_config")
    if use and isinstance(options, dict) and options.get("fused_linear_cross_entropy") is False:
        r.set("fused_loss", "liger_kernel_config", False)
    else:
        r.set("fused_loss", "use_liger_kernel", use)


def _trainer_checkpointing(r: Reader, data: dict[Any, Any], cli: bool, trl: bool) -> None:
    # transformers 5.24, training_args.py TrainingArguments.__post_init__():
    # gradient_checkpointing is the deprecated alias of activation_checkpointing, used
    # only when activation_checkpointing is None; both None is False. TRL's _BaseConfig
    # (trl/trainer/base_config.py) defaults gradient_checkpointing to True.
    act = read_flag(r, "activation_checkpointing", data.get("activation_checkpointing"), cli)
    grad = read_flag(r, "gradient_checkpointing", data.get("gradient_checkpointing"), cli)
    if isinstance(act, Bad) or (act is None and isinstance(grad, Bad)):
        r.unresolved.add("checkpointing")
    elif act is not None:
        r.set("checkpointing", "activation_checkpointing", act)
    elif grad is not None:
        r.set("checkpointing", "gradient_checkpointing", grad)
    else:
        r.default(
            "checkpointing",
            trl,
            trans_late(
                "ConfigImport",
                "gradient checkpointing on: gradient_checkpointing is not set (TRL's "
                "configs default it to true)",
            ).format()
            if trl
            else trans_late(
                "ConfigImport",
                "gradient checkpointing off: gradient_checkpointing is not set "
                "(TrainingArguments' default)",
            ).format(),
        )


# --------------------------------------------------------------------------- DeepSpeed

_SECTION = re.compile(r"(bfloat16|bf16|fp16)\.enabled(?=/|$)")
_MISMATCH = trans_late(
    "ConfigImport",
    'the Trainer refuses a DeepSpeed value that differs from {key} = {value} (set it to "auto")',
)


def _trainer_deepspeed(r: Reader, data: dict[Any, Any], args: TrainerArgs) -> None:
    """The DeepSpeed JSON (or mapping) of TrainingArguments' ``deepspeed``: its ZeRO
    stage and offload, checked against the Trainer's values as transformers does."""
    ref = data.get("deepspeed")
    if not ref:
        return  # TrainingArguments.__post_init__(): "if self.deepspeed:" turns it on
    if isinstance(ref, str) and ref.startswith("{"):
        # TrainingArguments.__post_init__(): a text starting with "{" in one of its
        # _VALID_DICT_FIELDS ("deepspeed" is one) is parsed with json.loads
        try:
            ref = json.loads(ref)
        except (ValueError, RecursionError):
            reason = trans_late("ConfigImport", "not valid JSON: TrainingArguments cannot parse it")
            r.refuse("deepspeed", ref, reason.format(), "zero_stage", "offload", refused=True)
            return
    inner = Reader(r.folder, prefix=r.prefix)
    if isinstance(ref, dict):
        section = Reader(None, prefix=r.name("deepspeed."))
        read_deepspeed(ref, section)
        deepspeed_unknown_keys(ref, section, top_level=True)
        inner.merge(section)
    elif isinstance(ref, str):
        # accelerate, utils/deepspeed.py HfDeepSpeedConfig.__init__() (transformers'
        # HfTrainerDeepSpeedConfig): os.path.exists(path) then open(path): relative to
        # the folder the script is launched in; next to the config is tried after it
        follow_deepspeed(inner, "deepspeed", ref, launch_folder_first=True)
    else:
        r.refuse(
            "deepspeed",
            ref,
            trans_late(
                "ConfigImport", "must be the path of a DeepSpeed JSON or a mapping"
            ).format(),
            "zero_stage",
            "offload",
            refused=True,
        )
        return
    _take_deepspeed(r, inner, args)


def _take_deepspeed(r: Reader, inner: Reader, args: TrainerArgs) -> None:
    r.auto += inner.auto
    r.unread += inner.unread
    r.unknown += inner.unknown
    r.followed += inner.followed
    r.resolved += inner.resolved
    for name, found in inner.parallel.items():
        r.parallel.setdefault(name, found)
    # transformers, integrations/deepspeed.py HfTrainerDeepSpeedConfig
    # trainer_config_process(): fill_match() replaces "auto" with the Trainer's value
    # and records any other value that differs; trainer_config_finalize() raises
    # ValueError on them ("Please correct the following DeepSpeed config values that
    # mismatch TrainingArguments values"). train_batch_size is matched against
    # world_size x micro x steps (derive checks it with the GPUs); with
    # auto_find_batch_size the micro-batch and train_batch_size are not matched.
    taken = (
        ("zero_stage", "offload")
        if args.auto_batch
        else ("zero_stage", "offload", "train_batch_size")
    )
    for field in taken:
        value = inner.values.get(field)
        if value is not None:
            r.values[field] = value
            r.keys[field] = inner.keys[field]
        elif field in inner.unresolved and field not in inner.auto_fields:
            r.unresolved.add(field)
    for field, mine, key, matched in (
        ("micro_batch", args.micro, "per_device_train_batch_size", not args.auto_batch),
        ("accumulation_steps", args.steps, "gradient_accumulation_steps", True),
    ):
        theirs = inner.values.get(field)
        if matched and theirs is not None and mine is not None and theirs != mine:
            r.unread.append(
                Unread(inner.keys[field], str(theirs), _MISMATCH.format(key=key, value=mine), True)
            )
    _match_precision(r, inner, args)


def _match_precision(r: Reader, inner: Reader, args: TrainerArgs) -> None:
    # fill_match("fp16.enabled", fp16 or fp16_full_eval) and fill_match("bf16.enabled",
    # bf16 or bf16_full_eval): only sections named exactly "bf16" and "fp16" (the old
    # name "bfloat16" is neither filled nor matched); the Trainer's bf16 / fp16 decide
    # the precision (accelerate's DeepSpeedPlugin.set_mixed_precision adds the section
    # when the JSON has none)
    theirs, key = inner.values.get("precision"), inner.keys.get("precision")
    if theirs is None or key is None or args.bf16 is None or args.fp16 is None:
        return
    # the key read: "<file>:bf16.enabled", "deepspeed.bf16.enabled/fp16.enabled", ...
    found = list(_SECTION.finditer(key))
    if not found:
        return
    sections = {m.group(1) for m in found}
    prefix = key[: found[0].start()]
    hf = {"bf16": args.bf16 or args.bf16_eval, "fp16": args.fp16 or args.fp16_eval}
    ds = {"bf16": theirs is Precision.BF16, "fp16": theirs is Precision.FP16}
    for name in ("bf16", "fp16"):
        if name in sections and ds[name] != hf[name]:
            hf_value = "true" if hf[name] else "false"
            r.unread.append(
                Unread(
                    f"{prefix}{name}.enabled",
                    "true" if ds[name] else "false",
                    _MISMATCH.format(key=f"{name}|{name}_full_eval", value=hf_value),
                    True,
                )
            )
            return


# --------------------------------------------------------------------------- reading


def _trl_adapter(r: Reader, data: dict[Any, Any], cli: bool) -> bool:
    """TRL's ModelConfig LoRA / QLoRA keys; returns whether an adapter is trained."""
    peft = read_flag(r, "use_peft", data.get("use_peft"), cli, "adapter")
    load4 = read_flag(r, "load_in_4bit", data.get("load_in_4bit"), cli, "base_4bit")
    load8 = read_flag(r, "load_in_8bit", data.get("load_in_8bit"), cli, "base_8bit")
    if isinstance(load4, bool):
        r.set("base_4bit", "load_in_4bit", load4)
    if isinstance(load8, bool):
        r.set("base_8bit", "load_in_8bit", load8)
    if load4 is True and load8 is True:
        # trl/trainer/model_config.py ModelConfig.__post_init__(): ValueError "You
        # can't use 8 bit and 4 bit precision at the same time"
        r.refuse(
            "load_in_8bit",
            True,
            trans_late(
                "ConfigImport", "TRL refuses load_in_4bit and load_in_8bit both on"
            ).format(),
            refused=True,
        )
    if (load4 is True or load8 is True) and (peft is None or peft is False):
        # transformers, trainer_utils.py validate_quantization_for_training() (called by
        # Trainer.__init__): ValueError "You cannot perform fine-tuning on purely
        # quantized models. Please attach trainable adapters"
        r.refuse(
            "load_in_4bit" if load4 is True else "load_in_8bit",
            True,
            trans_late(
                "ConfigImport",
                "the Trainer refuses to train a quantized model without an adapter "
                "(use_peft is not true)",
            ).format(),
            refused=True,
        )
    if peft is not True:
        # trl/trainer/utils.py get_peft_config(): no LoraConfig unless use_peft
        for key in ("lora_r", "lora_target_modules"):
            if data.get(key) is not None and not isinstance(peft, Bad):
                r.refuse(
                    key,
                    data[key],
                    trans_late("ConfigImport", "ignored: use_peft is not true").format(),
                )
        return False
    r.set("adapter", "use_peft", Adapter.QLORA if load4 is True else Adapter.LORA)
    read_count(r, "lora_rank", "lora_r", data, MAX_RANK, cli)
    if "lora_r" not in data:
        r.default(
            "lora_rank",
            16,
            trans_late(
                "ConfigImport", "LoRA rank = 16: lora_r is not set (TRL's ModelConfig default)"
            ).format(),
        )
    # lora_target_modules: a list of names, or one text ("all-linear"); ModelConfig
    # turns a one-item list into its item. None leaves PEFT's default for the
    # architecture (peft TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING): not known here
    targets = data.get("lora_target_modules")
    if isinstance(targets, str) and targets.strip():
        r.set("lora_targets", "lora_target_modules", (clean(targets.strip()),))
    elif isinstance(targets, list) and targets and all(isinstance(t, str) and t for t in targets):
        r.set("lora_targets", "lora_target_modules", tuple(clean(t.strip()) for t in targets))
    elif targets is not None:
        r.refuse(
            "lora_target_modules",
            targets,
            trans_late("ConfigImport", "must be a list of module names").format(),
            "lora_targets",
        )
    return True


def read_trainer(data: dict[Any, Any], r: Reader, *, is_json: bool = False) -> None:
    trl = not is_json and any(isinstance(k, str) and k in TRL_ONLY for k in data)
    # a TRL recipe goes through TrlParser's argparse (texts converted by each field's
    # type); TrainingArguments through HfArgumentParser.parse_dict (values as they are)
    cli = trl
    if trl:
        dpo = any(isinstance(k, str) and k in TRL_DPO - TRL_SFT for k in data)
        known = TRAINING_ARGS | TRL_SCRIPT | TRL_MODEL | (TRL_DPO if dpo else TRL_SFT) | {"env"}
        # TRL 1.16, trl/scripts/utils.py TrlParser.parse_args_and_config(): a config key
        # no dataclass takes is returned as a remaining "--key value"; with the default
        # fail_with_unknown_args=True it raises ValueError "Unknown arguments from config
        # file" (alignment-handbook's scripts), and the trl command line
        # (trl/cli/commands/training.py) hands it to accelerate launch's parser, which
        # exits on an option it does not know
        unknown_trainer_keys(
            r,
            data,
            frozenset(known),
            True,
            trans_late(
                "ConfigImport",
                "TRL refuses a key that none of its script's dataclasses defines",
            ).format(),
        )
    else:
        # transformers, hf_argparser.py HfArgumentParser.parse_dict() / parse_json_file():
        # ValueError "Some keys are not used by the HfArgumentParser" unless one of the
        # script's dataclasses takes the key
        unknown_trainer_keys(
            r,
            data,
            TRAINING_ARGS | SEQ2SEQ_ARGS,
            False,
            trans_late(
                "ConfigImport",
                "not a TrainingArguments field: HfArgumentParser refuses it unless the "
                "script's own dataclasses define it",
            ).format(),
        )
    args = trainer_args(r, data, cli, trl)
    _trainer_checkpointing(r, data, cli, trl)
    _trainer_liger(r, data, cli)
    if trl:
        _read_trl(data, r)
    trainer_sharding(r, data, args)


def trainer_sharding(r: Reader, data: dict[Any, Any], args: TrainerArgs) -> None:
    """DeepSpeed (followed) or FSDP (named, its settings not read: the ZeRO stage and
    offload stay open)."""
    fsdp = data.get("fsdp")
    # training_args.py TrainingArguments._process_fsdp_args(): "if not self.fsdp: return
    # None"; fsdp_config alone does not turn FSDP on
    r.uses_fsdp = bool(fsdp)
    if data.get("deepspeed"):
        _trainer_deepspeed(r, data, args)
    elif fsdp:
        r.unresolved.update(("zero_stage", "offload"))
        r.refuse(
            "fsdp",
            fsdp,
            trans_late(
                "ConfigImport",
                "FSDP settings are not read (gradacc reads DeepSpeed's ZeRO settings)",
            ).format(),
        )


def _read_trl(data: dict[Any, Any], r: Reader) -> None:
    peft = _trl_adapter(r, data, True)
    read_implementation(r, "attn_implementation", data.get("attn_implementation"))  # ModelConfig
    r.text(
        "base_model",
        "model_name_or_path",
        data.get("model_name_or_path"),
        trans_late("ConfigImport", "must be a model name or path").format(),
    )
    # SFTConfig / DPOConfig max_length (default 1024; None: no truncation). TRL 1.16
    # has no max_seq_length (the name before TRL 0.20): a file with it is refused as an
    # unknown key and gets no default length either
    if "max_length" in data:
        if data["max_length"] is not None:
            read_count(r, "sequence_length", "max_length", data, MAX_SEQ, True)
    elif "max_seq_length" not in data:
        r.default(
            "sequence_length",
            1024,
            trans_late(
                "ConfigImport",
                "sequence length = 1024: max_length is not set (the default of TRL's "
                "SFTConfig and DPOConfig)",
            ).format(),
        )
    # SFTConfig packing (default False)
    packing = read_flag(r, "packing", data.get("packing"), True)
    if isinstance(packing, bool):
        r.set("packing", "packing", packing)
    dtype = data.get("dtype")
    if (
        isinstance(dtype, str)
        and dtype in ("bfloat16", "float16")
        and not peft
        and not data.get("deepspeed")
    ):
        # trl/scripts/sft.py: the model is loaded with dtype=model_args.dtype, so its
        # weights, gradients and the optimizer's states are 16-bit
        r.refuse(
            "dtype",
            dtype,
            trans_late(
                "ConfigImport",
                "the whole model is trained in {dtype} (no fp32 master copy): gradacc's "
                "precision assumes mixed precision with fp32 master weights",
            ).format(dtype=dtype),
        )
