"""Reading an axolotl YAML: batch keys, precision, LoRA / QLoRA, sequence length, base
model, parallel sizes, the DeepSpeed JSON it names, its FSDP settings and the keys
axolotl does not know (``axolotl_keys``); the FSDP and key rules are axolotl 0.21.0's."""

from __future__ import annotations

from typing import Any

from ...batch.planning import MAX_TARGET_BATCH
from ...text import trans_late
from .attention import read_axolotl_attention
from .axolotl_keys import AXOLOTL_KEYS, AXOLOTL_PLUGIN_KEYS, BUILTIN_PLUGINS
from .follow import follow_deepspeed
from .fsdp import RESHARD, apply_fsdp, env_text, pydantic_bool
from .model import AXOLOTL_BATCH_KEYS, Adapter
from .reader import MAX_MICRO, MAX_RANK, MAX_SEQ, MAX_STEPS, TRUE_FALSE_AUTO, Reader, clean


def read_axolotl(data: dict[Any, Any], r: Reader) -> None:
    # axolotl counts a batch key as set when data.get(key) is truthy
    # (check_batch_size_fields, check_gas_bsz; see _axolotl_batch_problem)
    r.batch_keys_set = tuple(k for k in AXOLOTL_BATCH_KEYS if data.get(k))
    r.integer(
        "micro_batch", "micro_batch_size", data.get("micro_batch_size"), 1, MAX_MICRO, auto=False
    )
    r.integer(
        "accumulation_steps",
        "gradient_accumulation_steps",
        data.get("gradient_accumulation_steps"),
        1,
        MAX_STEPS,
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
            states.append((key, r.refuse(key, value, TRUE_FALSE_AUTO.format(), "precision")))
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
    r.integer("lora_rank", "lora_r", data.get("lora_r"), 1, MAX_RANK, auto=False)
    targets = data.get("lora_target_modules")
    if isinstance(targets, str) and targets.strip():
        r.set("lora_targets", "lora_target_modules", (clean(targets.strip()),))
    elif isinstance(targets, list) and all(isinstance(t, str) and t.strip() for t in targets):
        r.set("lora_targets", "lora_target_modules", tuple(clean(t.strip()) for t in targets))
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
    _checkpointing(data, r)
    read_axolotl_attention(r, data)
    _liger(data, r)
    # axolotl 0.21.0 AxolotlInputConfig sample_packing: bool | None
    r.boolean("packing", "sample_packing", data.get("sample_packing"))
    r.text(
        "base_model",
        "base_model",
        data.get("base_model"),
        trans_late("ConfigImport", "must be a model name or path").format(),
    )
    r.integer("sequence_length", "sequence_len", data.get("sequence_len"), 1, MAX_SEQ, auto=False)
    for name, key in (
        ("tensor", "tensor_parallel_size"),
        ("context", "context_parallel_size"),
        ("shard", "dp_shard_size"),
        ("replicate", "dp_replicate_size"),
    ):
        r.parallel_size(name, key, data.get(key))
    r.uses_fsdp = bool(data.get("fsdp") or data.get("fsdp_config"))
    r.uses_deepspeed = bool(data.get("deepspeed"))
    if data.get("deepspeed") is not None:
        # axolotl, src/axolotl/utils/config/__init__.py normalize_config(): "if
        # isinstance(cfg.deepspeed, str) and os.path.exists(cfg.deepspeed)" opens the
        # path as given, that is relative to the folder axolotl is launched in (the
        # current working directory); next to the YAML is tried after it
        follow_deepspeed(r, "deepspeed", data["deepspeed"], launch_folder_first=True)
    read_axolotl_fsdp(data, r)
    _unknown_keys(data, r)


_IGNORES = trans_late(
    "ConfigImport",
    "axolotl ignores it: its config schema drops keys it does not know (no warning)",
)
_OTHER_PLUGIN = trans_late(
    "ConfigImport",
    "not an axolotl key: axolotl ignores it unless a plugin it does not ship ({plugins}) reads it",
)
_PLUGIN_NOT_LISTED = trans_late(
    "ConfigImport",
    "axolotl ignores it: only the {plugin} plugin reads it, and plugins does not list it",
)


def _unknown_keys(data: dict[Any, Any], r: Reader) -> None:
    """The top-level keys axolotl does not know.

    axolotl 0.21.0, src/axolotl/utils/config/__init__.py validate_config(): the YAML is
    validated by AxolotlConfigWCapabilities (src/axolotl/utils/schemas/config.py), a
    pydantic model without ``extra`` in its model_config: pydantic ignores a key no
    field holds, without error or warning, and validate_config returns model_dump(), so
    the key has no effect. A plugin's keys are fields only when the plugin is
    registered (merge_input_args(); the built-in ones always, see axolotl_keys). A key
    left empty (null) is not named: it sets nothing in any release."""
    listed = data.get("plugins")
    plugins = {
        str(p).replace(":", ".").rsplit(".", 1)[-1]
        for p in (listed if isinstance(listed, list) else [])
        if isinstance(p, str)
    }
    known = set(AXOLOTL_KEYS)
    for plugin in plugins:
        known |= AXOLOTL_PLUGIN_KEYS.get(plugin, frozenset())
    # plugins axolotl does not ship may add keys of their own
    others = sorted(plugins - set(AXOLOTL_PLUGIN_KEYS) - set(BUILTIN_PLUGINS))
    for key, value in data.items():
        if value is None or (isinstance(key, str) and key in known):
            continue
        name = str(key)
        owner = next((p for p, keys in AXOLOTL_PLUGIN_KEYS.items() if name in keys), None)
        if owner is not None:
            reason = _PLUGIN_NOT_LISTED.format(plugin=owner)
        elif others:
            reason = _OTHER_PLUGIN.format(plugins=", ".join(others))
        else:
            reason = _IGNORES.format()
        r.unknown_key(name, AXOLOTL_KEYS, False, reason)


def _liger(data: dict[Any, Any], r: Reader) -> None:
    """liger_fused_linear_cross_entropy: a key of axolotl's LigerPlugin
    (axolotl.integrations.liger), read only when plugins lists it; pydantic's lax mode
    reads its texts as booleans."""
    listed = data.get("plugins")
    plugins = listed if isinstance(listed, list) else []
    if not any(isinstance(p, str) and p.endswith("LigerPlugin") for p in plugins):
        r.values["fused_loss"] = False  # no Liger kernels without the plugin
        return
    value = data.get("liger_fused_linear_cross_entropy")
    if isinstance(value, str) and value.strip().lower() in _PYDANTIC_BOOLS:
        value = _PYDANTIC_BOOLS[value.strip().lower()]
    r.set("fused_loss", "liger_fused_linear_cross_entropy", value is True)


def _checkpointing(data: dict[Any, Any], r: Reader) -> None:
    """gradient_checkpointing: axolotl 0.21.0, src/axolotl/utils/schemas/config.py
    AxolotlInputConfig ``gradient_checkpointing: Literal["offload", "offload_disk"] |
    bool | None = False``; "offload" also moves the kept layer inputs to the CPU (not
    modelled: read as checkpointing, which keeps them on the GPU). pydantic's lax mode
    reads the texts "true", "yes", "on", "1" (and their opposites) as booleans."""
    value = data.get("gradient_checkpointing")
    if isinstance(value, str) and value.strip().lower() in _PYDANTIC_BOOLS:
        value = _PYDANTIC_BOOLS[value.strip().lower()]
    if isinstance(value, bool):
        r.set("checkpointing", "gradient_checkpointing", value)
    elif isinstance(value, str) and value in ("offload", "offload_disk"):
        r.set("checkpointing", "gradient_checkpointing", True)
        r.refuse(
            "gradient_checkpointing",
            value,
            _OFFLOADED_CHECKPOINTS.format(),
        )
    elif value is not None:
        r.refuse(
            "gradient_checkpointing",
            value,
            trans_late("ConfigImport", 'must be true, false, "offload" or "offload_disk"').format(),
            "checkpointing",
            refused=True,
        )
    else:
        r.default("checkpointing", False, _NO_CHECKPOINTING.format())


# pydantic 2, the texts its lax mode takes for a bool
_PYDANTIC_BOOLS = {
    **dict.fromkeys(("true", "t", "yes", "y", "on", "1"), True),
    **dict.fromkeys(("false", "f", "no", "n", "off", "0"), False),
}
_OFFLOADED_CHECKPOINTS = trans_late(
    "ConfigImport",
    "the checkpointed layer inputs offloaded to the CPU (or disk) are not modelled: read "
    "as gradient checkpointing with the inputs kept on the GPU (an upper bound)",
)
_NO_CHECKPOINTING = trans_late(
    "ConfigImport",
    "activation checkpointing off: axolotl's default gradient_checkpointing is false",
)


# --------------------------------------------------------------------------- FSDP

# axolotl 0.21.0, src/axolotl/utils/schemas/fsdp.py FSDPConfig: its fields (and the
# alias "version" of fsdp_version)
_AXOLOTL_FSDP_KEYS = frozenset(
    {
        "fsdp_version",
        "version",
        "activation_checkpointing",
        "offload_params",
        "cpu_ram_efficient_loading",
        "cpu_offload_pin_memory",
        "state_dict_type",
        "final_state_dict_type",
        "auto_wrap_policy",
        "transformer_layer_cls_to_wrap",
        "min_num_params",
        "reshard_after_forward",
        "mixed_precision_policy",
    }
)
# axolotl 0.21.0, src/axolotl/utils/schemas/validation.py FSDP1_ONLY_REJECTED_KEYS and
# FSDP1_ONLY_IGNORED_KEYS
_AXOLOTL_FSDP1_REJECTED = {"sharding_strategy": "reshard_after_forward", "forward_prefetch": None}
_AXOLOTL_FSDP1_IGNORED = frozenset(
    {
        "sync_module_states",
        "backward_prefetch",
        "backward_prefetch_policy",
        "limit_all_gathers",
        "use_orig_params",
    }
)
_AXOLOTL_DEFAULT = trans_late(
    "ConfigImport",
    "ZeRO-3: axolotl runs FSDP2, and without reshard_after_forward in fsdp_config the "
    "Trainer's default is true (FULL_SHARD), which shards the parameters, gradients and "
    "optimizer states.",
)
_AXOLOTL_IGNORES = trans_late(
    "ConfigImport", "axolotl ignores it: FSDPConfig has no such setting (no warning)"
)


def read_axolotl_fsdp(data: dict[Any, Any], r: Reader) -> None:
    """axolotl's FSDP settings, as axolotl 0.21.0 validates them
    (src/axolotl/utils/schemas/validation.py DistributedValidationMixin, mode="before"
    model validators) and hands them to the Trainer (src/axolotl/core/builders/base.py:
    TrainingArguments(fsdp=True, fsdp_config=...); src/axolotl/utils/trainer.py
    setup_fsdp_envs(): FSDP_VERSION "2", FSDP_OFFLOAD_PARAMS "true" when offload_params)."""
    fsdp = data.get("fsdp")
    if fsdp:
        # check_fsdp_version(): a truthy top-level fsdp raises ValueError
        r.refuse(
            "fsdp",
            fsdp,
            trans_late(
                "ConfigImport",
                "axolotl refuses the top-level fsdp list (FSDP1 was removed): use fsdp_config",
            ).format(),
            "zero_stage",
            "offload",
            refused=True,
        )
    section = data.get("fsdp_config")
    versions = [("fsdp_version", data.get("fsdp_version"))]
    if isinstance(section, dict):
        versions += [
            (f"fsdp_config.{key}", section.get(key)) for key in ("fsdp_version", "version")
        ]
    for key, version in versions:
        # check_fsdp_version(): str(version) != "2" raises ValueError
        if version is not None and env_text(version) != "2":
            r.refuse(
                key,
                version,
                trans_late(
                    "ConfigImport",
                    "axolotl refuses FSDP versions other than 2 (FSDP1 was removed)",
                ).format(),
                "zero_stage",
                "offload",
                refused=True,
            )
    if not section:
        return
    if data.get("deepspeed"):
        # check_fsdp_deepspeed(): deepspeed and fsdp_config both set raise ValueError
        r.refuse(
            "fsdp_config",
            section,
            trans_late(
                "ConfigImport",
                "axolotl refuses deepspeed together with fsdp_config: deepspeed and fsdp "
                "cannot be used together",
            ).format(),
            refused=True,
        )
        return
    if not isinstance(section, dict):
        r.refuse(
            "fsdp_config",
            section,
            trans_late("ConfigImport", "axolotl refuses it: must be a mapping of keys").format(),
            "zero_stage",
            "offload",
            refused=True,
        )
        return
    settings: dict[str, tuple[str, Any]] = {}
    prefixed = False
    for key, item in section.items():
        written = f"fsdp_config.{clean(str(key), 80)}"
        if not isinstance(key, str):
            r.unknown_key(str(key), _AXOLOTL_FSDP_KEYS, False, _AXOLOTL_IGNORES, "fsdp_config.")
            continue
        # check_fsdp_config_kwargs_prefix(): "fsdp_" is stripped (but from fsdp_version),
        # with a deprecation warning
        name = key
        if key.startswith("fsdp_") and key != "fsdp_version":
            name, prefixed = key[len("fsdp_") :], True
        if name in _AXOLOTL_FSDP1_REJECTED:
            replacement = _AXOLOTL_FSDP1_REJECTED[name]
            r.refuse(
                written,
                item,
                trans_late(
                    "ConfigImport",
                    "axolotl refuses this FSDP1-only setting (FSDP1 was removed): use "
                    "{replacement}",
                ).format(replacement=replacement)
                if replacement
                else trans_late(
                    "ConfigImport",
                    "axolotl refuses this FSDP1-only setting (FSDP1 was removed); it has "
                    "no FSDP2 equivalent",
                ).format(),
                "zero_stage",
                "offload",
                refused=True,
            )
            continue
        if name in _AXOLOTL_FSDP1_IGNORED:
            r.warnings.append(
                trans_late(
                    "ConfigImport",
                    "axolotl warns that {key} is an FSDP1-only setting and drops it (it "
                    "runs FSDP2).",
                ).format(key=written)
            )
            continue
        if name not in _AXOLOTL_FSDP_KEYS:
            r.unknown_key(key, _AXOLOTL_FSDP_KEYS, False, _AXOLOTL_IGNORES, "fsdp_config.")
            continue
        settings[name] = (written, item)
    if prefixed:
        r.warnings.append(
            trans_late(
                "ConfigImport",
                "axolotl warns that the fsdp_ prefix of fsdp_config keys is deprecated "
                "(it reads fsdp_offload_params as offload_params).",
            ).format()
        )
    if "zero_stage" in r.unresolved:
        return  # refused above

    def boolean(name: str) -> tuple[bool | None, str | None]:
        if name not in settings or settings[name][1] is None:
            return None, None
        key, item = settings[name]
        value = pydantic_bool(item)
        if value is None:
            # FSDPConfig's bool | None field: pydantic's ValidationError
            r.refuse(
                key,
                item,
                trans_late("ConfigImport", "axolotl refuses it: must be true or false").format(),
                "zero_stage" if name == "reshard_after_forward" else "offload",
                refused=True,
            )
        return value, key

    reshard, reshard_key = boolean("reshard_after_forward")
    offload, offload_key = boolean("offload_params")
    if "zero_stage" in r.unresolved:
        return
    if reshard is None and reshard_key is not None:
        return
    if offload is None and offload_key is not None:
        offload_key = None
    replicated = r.parallel.get("replicate")
    apply_fsdp(
        r,
        2 if reshard is False else 1,
        RESHARD[reshard is not False],
        reshard_key,
        offload,
        offload_key,
        machines=1,
        replicated=replicated,
        default_note=_AXOLOTL_DEFAULT,
    )
