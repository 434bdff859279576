"""Reading a LLaMA-Factory YAML (``llamafactory-cli train``), as LLaMA-Factory 0.9.5 reads
it: ``get_train_args`` (src/llamafactory/hparams/parser.py) hands the file's mapping to
``HfArgumentParser.parse_dict`` over its ModelArguments, DataArguments, TrainingArguments
(transformers' ``Seq2SeqTrainingArguments``), FinetuningArguments and GeneratingArguments,
so the Trainer's keys, defaults and DeepSpeed rules are transformers' (``trainer``)."""

from __future__ import annotations

from typing import Any

from ...memory.setup import Precision
from ...memory.zero import ZeroStage
from ...precision import MasterWeights
from ...text import trans_late
from .attention import read_llama_factory_attention
from .model import Adapter
from .reader import MAX_RANK, MAX_SEQ, Bad, Reader, clean
from .trainer import (
    liger_flag,
    read_count,
    read_flag,
    trainer_args,
    trainer_sharding,
    unknown_trainer_keys,
)
from .trainer_keys import LLAMA_FACTORY_KEYS

_KINDS = trans_late("ConfigImport", 'LLaMA-Factory accepts "lora", "oft", "freeze" or "full"')


def read_llama_factory(data: dict[Any, Any], r: Reader) -> None:
    # hparams/parser.py _parse_train_args() -> _parse_args(): parse_dict(args,
    # allow_extra_keys=is_env_enabled("ALLOW_EXTRA_ARGS")), which raises ValueError
    # "Some keys are not used by the HfArgumentParser" for a key no class defines
    unknown_trainer_keys(
        r,
        data,
        LLAMA_FACTORY_KEYS,
        True,
        trans_late(
            "ConfigImport",
            "LLaMA-Factory refuses a key that none of its argument classes defines "
            "(unless ALLOW_EXTRA_ARGS=1 is set)",
        ).format(),
    )
    # parse_dict() passes the values unconverted (no text-to-number conversion)
    args = trainer_args(r, data, False, False)
    pure = read_flag(r, "pure_bf16", data.get("pure_bf16"), False, "precision")
    if pure is True:
        # finetuning_args.py pure_bf16: the model in bf16 without AMP, no fp32 master
        # weights (the optimizer's states in bf16 too)
        r.defaults = [(f, note) for f, note in r.defaults if f != "precision"]
        r.set("precision", "pure_bf16", Precision.BF16)
        r.set("master_weights", "pure_bf16", MasterWeights.NONE)
    bits = _read_method(data, r)
    r.text(
        "base_model",
        "model_name_or_path",
        data.get("model_name_or_path"),
        trans_late("ConfigImport", "must be a model name or path").format(),
    )
    if data.get("model_name_or_path") is None:
        # model_args.py BaseModelArguments.__post_init__(): ValueError "Please provide
        # `model_name_or_path`."
        r.refuse(
            "model_name_or_path",
            None,
            trans_late("ConfigImport", "LLaMA-Factory refuses a config without it").format(),
            refused=True,
        )
    _read_length(data, r)
    _read_checkpointing(data, r)
    read_llama_factory_attention(r, data.get("flash_attn"), data.get("model_name_or_path"))
    _read_liger(data, r)
    trainer_sharding(r, data, args)
    zero3 = r.values.get("zero_stage") == ZeroStage.WEIGHTS
    if zero3 and pure is True:
        # parser.py get_train_args(): ValueError "`pure_bf16` is incompatible with
        # DeepSpeed ZeRO-3."
        r.refuse(
            "pure_bf16",
            True,
            trans_late("ConfigImport", "LLaMA-Factory refuses pure_bf16 with ZeRO-3").format(),
            refused=True,
        )
    if zero3 and bits == 8:
        # model/model_utils/quantization.py configure_quantization(): with ZeRO-3 (or
        # FSDP), ValueError "Only 4-bit quantized model can use fsdp+qlora or auto device map."
        r.refuse(
            "quantization_bit",
            8,
            trans_late(
                "ConfigImport", "LLaMA-Factory refuses an 8-bit base with ZeRO-3 (only 4-bit)"
            ).format(),
            refused=True,
        )


def _read_method(data: dict[Any, Any], r: Reader) -> int | None:
    """finetuning_type, LoRA and quantization; returns the bitsandbytes bits (or None)."""
    kind = data.get("finetuning_type", "lora")
    # finetuning_args.py FinetuningArguments.__post_init__(): assert finetuning_type in
    # ["lora", "oft", "freeze", "full"] ("lora" by default)
    if kind not in ("lora", "oft", "freeze", "full"):
        r.refuse(
            "finetuning_type",
            kind,
            _KINDS.format(),
            "adapter",
            refused=True,
        )
        return None
    bits = _read_quantization(data, r, kind)
    if kind in ("freeze", "oft"):
        what = (
            trans_late("ConfigImport", "freeze (partial-parameter) fine-tuning is not modelled")
            if kind == "freeze"
            else trans_late("ConfigImport", "OFT (orthogonal fine-tuning) is not modelled")
        )
        r.refuse("finetuning_type", kind, what.format(), "adapter")
        return bits
    if kind == "full":
        return bits
    adapter = Adapter.QLORA if bits == 4 else Adapter.LORA
    if "finetuning_type" in data:
        r.set("adapter", "finetuning_type", adapter)
    else:
        r.default(
            "adapter",
            adapter,
            trans_late(
                "ConfigImport",
                'LoRA: finetuning_type is not set (LLaMA-Factory\'s default "lora")',
            ).format(),
        )
    read_count(r, "lora_rank", "lora_rank", data, MAX_RANK, False)
    if "lora_rank" not in data:
        r.default(
            "lora_rank",
            8,
            trans_late(
                "ConfigImport", "LoRA rank = 8: lora_rank is not set (LLaMA-Factory's default)"
            ).format(),
        )
    # finetuning_args.py __post_init__(): lora_target split at commas; model/adapter.py
    # _setup_lora_tuning(): the single name "all" is every linear layer
    # (find_all_linear_modules, which leaves out the output layer, like PEFT's "all-linear")
    target = data.get("lora_target", "all")
    names = (
        [t.strip() for t in target.split(",")]
        if isinstance(target, str)
        else target
        if isinstance(target, list)
        else None
    )
    if not names or not all(isinstance(t, str) and t for t in names):
        r.refuse(
            "lora_target",
            target,
            trans_late("ConfigImport", "must be module names separated by commas").format(),
            "lora_targets",
        )
    elif names == ["all"] and "lora_target" not in data:
        r.default(
            "lora_targets",
            ("all-linear",),
            trans_late(
                "ConfigImport",
                "LoRA on every linear layer: lora_target is not set "
                '(LLaMA-Factory\'s default "all")',
            ).format(),
        )
    else:
        found = ("all-linear",) if names == ["all"] else tuple(clean(t) for t in names)
        r.set("lora_targets", "lora_target", found)
    return bits


def _read_quantization(data: dict[Any, Any], r: Reader, kind: str) -> int | None:
    bits = data.get("quantization_bit")
    if bits is None:
        return None
    if isinstance(bits, bool) or not isinstance(bits, int):
        r.refuse(
            "quantization_bit",
            bits,
            trans_late("ConfigImport", "must be a whole number").format(),
            "base_4bit",
            "base_8bit",
        )
        return None
    if kind not in ("lora", "oft"):
        # parser.py _verify_model_args(): ValueError "Quantization is only compatible with
        # the LoRA or OFT method."
        r.refuse(
            "quantization_bit",
            bits,
            trans_late(
                "ConfigImport", "LLaMA-Factory quantizes the base only for LoRA or OFT"
            ).format(),
            refused=True,
        )
        return None
    method = data.get("quantization_method", "bnb")
    # model/model_utils/quantization.py configure_quantization(): on-the-fly
    # quantization compares quantization_method with QuantizationMethod.BNB, HQQ and
    # EETQ ("bnb", "hqq", "eetq"; parse_dict leaves the text as written), and does
    # nothing for any other value (the older name "bitsandbytes" included)
    if method == "bnb":
        if bits not in (4, 8):
            # ValueError "Bitsandbytes only accepts 4-bit or 8-bit quantization."
            r.refuse(
                "quantization_bit",
                bits,
                trans_late("ConfigImport", "bitsandbytes takes 4 or 8 bits").format(),
                refused=True,
            )
            return None
        r.set("base_4bit" if bits == 4 else "base_8bit", "quantization_bit", True)
        return bits
    if method in ("hqq", "eetq"):
        what = trans_late(
            "ConfigImport", "a base quantized with {method} is not modelled (only bitsandbytes)"
        )
        r.refuse("quantization_method", method, what.format(method=method))
        return None
    r.refuse(
        "quantization_method",
        method,
        trans_late(
            "ConfigImport",
            "none of LLaMA-Factory's methods (bnb, hqq, eetq): the base model is not quantized",
        ).format(),
    )
    return None


def _read_length(data: dict[Any, Any], r: Reader) -> None:
    read_count(r, "sequence_length", "cutoff_len", data, MAX_SEQ, False)
    if "cutoff_len" not in data:
        r.default(
            "sequence_length",
            2048,
            trans_late(
                "ConfigImport",
                "sequence length = 2048: cutoff_len is not set (LLaMA-Factory's default)",
            ).format(),
        )
    neat = read_flag(r, "neat_packing", data.get("neat_packing"), False)
    packing = read_flag(r, "packing", data.get("packing"), False)
    length = r.values.get("sequence_length")
    if neat is True or packing is True:
        r.set("packing", "neat_packing" if neat is True else "packing", True)
    elif packing is False:
        r.set("packing", "packing", False)
    # data_args.py DataArguments.__post_init__(): neat_packing sets packing, and
    # packing shortens cutoff_len by one ("avoid pad_to_multiple_of")
    if isinstance(length, int) and length > 1 and (neat is True or packing is True):
        r.values["sequence_length"] = length - 1
        r.defaults.append(
            (
                "sequence_length",
                trans_late(
                    "ConfigImport",
                    "sequence length = {length}: LLaMA-Factory packs the sequences and "
                    "shortens cutoff_len {cutoff} by one",
                ).format(length=length - 1, cutoff=length),
            )
        )


def _read_liger(data: dict[Any, Any], r: Reader) -> None:
    # model/model_utils/liger_kernel.py apply_liger_kernel(): enable_liger_kernel applies
    # Liger's kernels; the fused linear cross-entropy only where the stage does not need
    # the logits (require_logits is false for pt and sft, the default stage)
    on = liger_flag(r, "enable_liger_kernel", data, False)
    if on is None:
        return
    stage = data.get("stage", "sft")
    r.set("fused_loss", "enable_liger_kernel", on and stage in ("pt", "sft"))


def _read_checkpointing(data: dict[Any, Any], r: Reader) -> None:
    # model/model_utils/checkpointing.py prepare_model_for_training(): checkpointing is
    # enabled unless disable_gradient_checkpointing (model/patcher.py sets it for gemma3n);
    # the Trainer also enables it for TrainingArguments' gradient_checkpointing
    off = read_flag(
        r, "disable_gradient_checkpointing", data.get("disable_gradient_checkpointing"), False
    )
    hf = read_flag(r, "gradient_checkpointing", data.get("gradient_checkpointing"), False)
    if isinstance(off, Bad) or isinstance(hf, Bad):
        r.unresolved.add("checkpointing")
    elif hf is True:
        r.set("checkpointing", "gradient_checkpointing", True)
    elif off is not None:
        r.set("checkpointing", "disable_gradient_checkpointing", not off)
    else:
        r.default(
            "checkpointing",
            True,
            trans_late(
                "ConfigImport",
                "gradient checkpointing on: LLaMA-Factory enables it unless "
                "disable_gradient_checkpointing is true",
            ).format(),
        )
