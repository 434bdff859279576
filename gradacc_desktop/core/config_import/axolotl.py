"""Reading an axolotl YAML: batch keys, precision, LoRA / QLoRA, sequence length, base
model, parallel sizes and the DeepSpeed JSON it names."""

from __future__ import annotations

from typing import Any

from ..planning import MAX_TARGET_BATCH
from ..text import trans_late
from .accelerate import _fsdp
from .follow import _follow
from .model import _AXOLOTL_BATCH_KEYS, Adapter
from .reader import _MAX_MICRO, _MAX_RANK, _MAX_SEQ, _MAX_STEPS, _TRUE_FALSE_AUTO, _clean, _Reader


def _read_axolotl(data: dict[Any, Any], r: _Reader) -> None:
    # axolotl counts a batch key as set when data.get(key) is truthy
    # (check_batch_size_fields, check_gas_bsz; see _axolotl_batch_problem)
    r.batch_keys_set = tuple(k for k in _AXOLOTL_BATCH_KEYS if data.get(k))
    r.integer(
        "micro_batch", "micro_batch_size", data.get("micro_batch_size"), 1, _MAX_MICRO, auto=False
    )
    r.integer(
        "accumulation_steps",
        "gradient_accumulation_steps",
        data.get("gradient_accumulation_steps"),
        1,
        _MAX_STEPS,
        auto=False,
    )
    r.integer(
        "batch_per_gpu", "batch_size", data.get("batch_size"), 1, MAX_TARGET_BATCH, auto=False
    )
    states: list[tuple[str, Any]] = []
    for key in ("bf16", "fp16"):
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, bool):
            states.append((key, value))
        elif isinstance(value, str) and value == "auto":
            # axolotl: bf16 when the GPU supports it, else fp16
            r.mark_auto(key, "precision")
            states.append((key, "auto"))
        else:
            states.append((key, r.refuse(key, value, _TRUE_FALSE_AUTO.format(), "precision")))
    r.precision(states)

    adapter = data.get("adapter")
    if isinstance(adapter, str) and adapter in ("lora", "qlora"):
        r.set("adapter", "adapter", Adapter(adapter))
    elif adapter is not None and adapter != "":
        r.refuse(
            "adapter",
            adapter,
            trans_late(
                "ConfigImport", 'unknown adapter: gradacc reads "lora" and "qlora"'
            ).format(),
        )
    r.integer("lora_rank", "lora_r", data.get("lora_r"), 1, _MAX_RANK, auto=False)
    targets = data.get("lora_target_modules")
    if isinstance(targets, str) and targets.strip():
        r.set("lora_targets", "lora_target_modules", (_clean(targets.strip()),))
    elif isinstance(targets, list) and all(isinstance(t, str) and t.strip() for t in targets):
        r.set("lora_targets", "lora_target_modules", tuple(_clean(t.strip()) for t in targets))
    elif targets is not None:
        r.refuse(
            "lora_target_modules",
            targets,
            trans_late("ConfigImport", "must be a list of module names").format(),
        )
    # axolotl's lora_target_linear adapts every linear layer of the blocks (PEFT's
    # "all-linear"), whatever lora_target_modules adds to them
    linear = data.get("lora_target_linear")
    if linear is True:
        r.set("lora_targets", "lora_target_linear", ("all-linear",))
    elif linear is not None and linear is not False:
        r.refuse(
            "lora_target_linear",
            linear,
            trans_late("ConfigImport", "must be true or false").format(),
            "lora_targets",
        )
    r.boolean("base_4bit", "load_in_4bit", data.get("load_in_4bit"))
    # axolotl's load_in_8bit: the frozen base model in 8 bits (bitsandbytes LLM.int8)
    r.boolean("base_8bit", "load_in_8bit", data.get("load_in_8bit"))
    r.text(
        "base_model",
        "base_model",
        data.get("base_model"),
        trans_late("ConfigImport", "must be a model name or path").format(),
    )
    r.integer("sequence_length", "sequence_len", data.get("sequence_len"), 1, _MAX_SEQ, auto=False)
    for name, key in (
        ("tensor", "tensor_parallel_size"),
        ("context", "context_parallel_size"),
        ("shard", "dp_shard_size"),
        ("replicate", "dp_replicate_size"),
    ):
        r.parallel_size(name, key, data.get(key))
    r.uses_fsdp = bool(data.get("fsdp") or data.get("fsdp_config"))
    if data.get("deepspeed") is not None:
        # axolotl, src/axolotl/utils/config/__init__.py normalize_config(): "if
        # isinstance(cfg.deepspeed, str) and os.path.exists(cfg.deepspeed)" opens the
        # path as given, that is relative to the folder axolotl is launched in (the
        # current working directory); next to the YAML is tried after it
        _follow(r, "deepspeed", data["deepspeed"], launch_folder_first=True)
    elif data.get("fsdp") or data.get("fsdp_config"):
        key = "fsdp_config" if data.get("fsdp_config") else "fsdp"
        _fsdp(data[key], key, r)
