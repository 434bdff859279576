"""Reading FSDP settings (accelerate's ``fsdp_config``, axolotl's ``fsdp_config``) as the
ZeRO stage and offload gradacc models.

FSDP's sharding strategies shard what the ZeRO stages shard: FULL_SHARD the parameters,
gradients and optimizer states (ZeRO-3), SHARD_GRAD_OP the gradients and optimizer
states, keeping the whole parameters from forward to backward (ZeRO-2), NO_SHARD
nothing (DDP, no ZeRO). FSDP2 has no strategy names: ``reshard_after_forward`` true is
FULL_SHARD, false SHARD_GRAD_OP. HYBRID_SHARD (and HYBRID_SHARD_ZERO2) shard within one
machine and replicate across machines: on one machine that is FULL_SHARD (SHARD_GRAD_OP);
across machines gradacc, whose ZeRO shards over all data-parallel GPUs, does not model
it. FSDP's CPU offload moves the parameters and gradients to the CPU and runs the
optimizer step there: with FULL_SHARD that is the offload of the optimizer and the
parameters (ZeRO-3's); with the other strategies it is not modelled.
"""

from __future__ import annotations

from typing import Any

from ...memory.setup import Offload
from ...memory.zero import ZeroStage
from ...text import Phrase, trans_late
from .reader import Reader, clean

# accelerate, accelerate/utils/constants.py FSDP_SHARDING_STRATEGY: the names accelerate
# takes, the n-th being torch's ShardingStrategy(n)
_STRATEGIES = ("FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD", "HYBRID_SHARD", "HYBRID_SHARD_ZERO2")
# torch, torch/distributed/fsdp/api.py ShardingStrategy: its member names (accelerate
# falls back to ShardingStrategy[name.upper()])
_TORCH_NAMES = {
    "FULL_SHARD": 1,
    "SHARD_GRAD_OP": 2,
    "NO_SHARD": 3,
    "HYBRID_SHARD": 4,
    "_HYBRID_SHARD_ZERO2": 5,
}
_STAGES = {
    1: ZeroStage.WEIGHTS,
    2: ZeroStage.GRADIENTS,
    3: ZeroStage.NONE,
    4: ZeroStage.WEIGHTS,
    5: ZeroStage.GRADIENTS,
}
_HYBRID = (4, 5)

_WHAT = {
    1: trans_late(
        "ConfigImport",
        "FSDP FULL_SHARD ({key}) shards the parameters, gradients and optimizer states "
        "over the data-parallel GPUs: read as ZeRO-3.",
    ),
    2: trans_late(
        "ConfigImport",
        "FSDP SHARD_GRAD_OP ({key}) shards the gradients and optimizer states and keeps "
        "the whole parameters from forward to backward: read as ZeRO-2.",
    ),
    3: trans_late(
        "ConfigImport",
        "FSDP NO_SHARD ({key}) shards nothing (data parallelism like DDP): read as no "
        "ZeRO (stage 0).",
    ),
    4: trans_late(
        "ConfigImport",
        "FSDP HYBRID_SHARD ({key}) shards within each machine and replicates across "
        "machines; on one machine it is FULL_SHARD: read as ZeRO-3.",
    ),
    5: trans_late(
        "ConfigImport",
        "FSDP HYBRID_SHARD_ZERO2 ({key}) shards the gradients and optimizer states within "
        "each machine; on one machine it is SHARD_GRAD_OP: read as ZeRO-2.",
    ),
}
RESHARD = {
    True: trans_late(
        "ConfigImport",
        "FSDP2 with reshard_after_forward true ({key}) frees the gathered parameters "
        "after forward, as FULL_SHARD: read as ZeRO-3.",
    ),
    False: trans_late(
        "ConfigImport",
        "FSDP2 with reshard_after_forward false ({key}) keeps the gathered parameters "
        "from forward to backward, as SHARD_GRAD_OP: read as ZeRO-2.",
    ),
}
_DEFAULT = trans_late("ConfigImport", "the default")
_OFFLOAD_NOTE = trans_late(
    "ConfigImport",
    "FSDP CPU offload ({key}) keeps the parameters and gradients on the CPU and runs "
    "the optimizer step there: read as offloading the optimizer and the parameters.",
)


def env_text(value: Any) -> str | None:
    """``str(value)`` as the launcher writes it into the environment (None when
    ``str`` itself fails, for an integer of thousands of digits)."""
    try:
        return str(value)
    except ValueError:
        return None


def _truth(value: Any) -> bool | None:
    """accelerate, accelerate/utils/environment.py str_to_bool() of ``str(value).lower()``
    (how the launcher exports a boolean): None when it raises ValueError."""
    text = env_text(value)
    if text is None:
        return None
    text = text.lower()
    if text in ("y", "yes", "t", "true", "on", "1"):
        return True
    if text in ("n", "no", "f", "false", "off", "0"):
        return False
    return None


def _strategy(value: Any) -> int | None:
    """The ShardingStrategy number accelerate's FullyShardedDataParallelPlugin
    (accelerate/utils/dataclasses.py ``__post_init__``, FSDP version 1) makes of the
    FSDP_SHARDING_STRATEGY text ``str(value)``: a name of FSDP_SHARDING_STRATEGY (any
    case) is its position + 1, digits ``ShardingStrategy(int(text))``, anything else
    ``ShardingStrategy[text.upper()]``; None where those raise."""
    text = env_text(value)
    if text is None:
        return None
    if text.upper() in _STRATEGIES:
        return _STRATEGIES.index(text.upper()) + 1
    if text.isdigit():
        try:
            number = int(text)
        except ValueError:  # digits int() does not read ("²")
            return None
        return number if 1 <= number <= len(_STRATEGIES) else None
    return _TORCH_NAMES.get(text.upper())


def pydantic_bool(value: Any) -> bool | None:
    """pydantic's lax ``bool`` (axolotl's ``bool | None`` fields): None when it raises."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.lower()
        if text in ("1", "on", "t", "true", "y", "yes"):
            return True
        if text in ("0", "off", "f", "false", "n", "no"):
            return False
    return None


def apply_fsdp(
    r: Reader,
    strategy: int,
    note: Phrase,
    key: str | None,
    offload: bool | None,
    offload_key: str | None,
    *,
    machines: int,
    replicated: tuple[int, str] | None,
    default_note: Phrase,
) -> None:
    """Set the ZeRO stage ``strategy`` stands for (``key``: where the file sets it, None:
    the framework's default, said by ``default_note``) and the offload."""
    stage = _STAGES[strategy]
    if strategy in _HYBRID and machines > 1:
        r.refuse(
            key or "fsdp_config",
            _STRATEGIES[strategy - 1],
            trans_late(
                "ConfigImport",
                "FSDP {strategy} shards within each machine and replicates across the "
                "{machines} machines: not modelled (gradacc's ZeRO shards over all "
                "data-parallel GPUs)",
            ).format(strategy=_STRATEGIES[strategy - 1], machines=machines),
            "zero_stage",
            "offload",
        )
        return
    if replicated is not None and replicated[0] > 1 and stage is not ZeroStage.NONE:
        r.refuse(
            replicated[1],
            replicated[0],
            trans_late(
                "ConfigImport",
                "FSDP shards within groups and replicates them {size} times (hybrid "
                "sharding): not modelled (gradacc's ZeRO shards over all data-parallel "
                "GPUs)",
            ).format(size=replicated[0]),
            "zero_stage",
            "offload",
        )
        return
    if key is None:
        r.default("zero_stage", stage, default_note.format())
    else:
        r.set("zero_stage", key, stage)
        r.notes.append(note.format(key=key))
    if offload is None:
        return
    assert offload_key is not None
    if not offload:
        r.set("offload", offload_key, Offload.NONE)
    elif stage is ZeroStage.WEIGHTS:
        r.set("offload", offload_key, Offload.ALL)
        r.notes.append(_OFFLOAD_NOTE.format(key=offload_key))
    else:
        r.refuse(
            offload_key,
            True,
            trans_late(
                "ConfigImport",
                "FSDP CPU offload with {strategy} is not modelled (gradacc models the "
                "offload of the parameters with ZeRO-3, FULL_SHARD)",
            ).format(strategy=_STRATEGIES[strategy - 1]),
            "offload",
        )


# --------------------------------------------------------------------------- accelerate

_ACCELERATE_DEFAULT = trans_late(
    "ConfigImport",
    "ZeRO-3: accelerate launch's default FSDP sharding is FULL_SHARD (no "
    "fsdp_sharding_strategy in fsdp_config), which shards the parameters, gradients and "
    "optimizer states.",
)
_ACCELERATE_DEFAULT_V2 = trans_late(
    "ConfigImport",
    "ZeRO-3: accelerate launch's default for FSDP2 is fsdp_reshard_after_forward true "
    "(FULL_SHARD), which shards the parameters, gradients and optimizer states.",
)


def read_accelerate_fsdp(value: Any, r: Reader, replicated: tuple[int, str] | None) -> None:
    """accelerate's ``fsdp_config`` with distributed_type FSDP (``replicated``: the
    parallelism_config's dp_replicate_size and its key, FSDP2's hybrid sharding).

    accelerate, accelerate/commands/launch.py _validate_launch_command(): each key of
    the config's fsdp_config, prefixed "fsdp_" unless it starts with "fsdp", replaces the
    launch argument of that name; accelerate/utils/launch.py prepare_multi_gpu_env()
    exports them: FSDP_VERSION = str(fsdp_version) (launch default "1"),
    FSDP_SHARDING_STRATEGY = str(fsdp_sharding_strategy) ("FULL_SHARD"),
    FSDP_RESHARD_AFTER_FORWARD = str(fsdp_reshard_after_forward).lower() ("true") and
    FSDP_OFFLOAD_PARAMS = str(fsdp_offload_params).lower() ("false"), which the
    Accelerator's FullyShardedDataParallelPlugin (accelerate/utils/dataclasses.py
    ``__post_init__``) reads back."""
    section = r.mapping("fsdp_config", value) or {}
    settings: dict[str, tuple[str, Any]] = {}
    for key, item in section.items():
        if not isinstance(key, str):
            # _validate_launch_command calls key.startswith(): AttributeError
            r.refuse(
                f"fsdp_config.{clean(str(key), 80)}",
                item,
                trans_late(
                    "ConfigImport", "accelerate launch fails on a key that is not text"
                ).format(),
                "zero_stage",
                "offload",
                refused=True,
            )
            return
        name = key if key.startswith("fsdp") else f"fsdp_{key}"
        settings[name] = (f"fsdp_config.{clean(key, 80)}", item)

    # prepare_multi_gpu_env(): "if args.fsdp_cpu_ram_efficient_loading and not
    # args.fsdp_sync_module_states" raises ValueError (both launch defaults are "true";
    # the config's values are tested as written)
    ram = settings.get("fsdp_cpu_ram_efficient_loading", ("", "true"))[1]
    sync_key, sync = settings.get("fsdp_sync_module_states", ("", "true"))
    if ram and not sync:
        r.refuse(
            sync_key,
            sync,
            trans_late(
                "ConfigImport",
                "accelerate launch refuses it: with fsdp_cpu_ram_efficient_loading (true by "
                "default), fsdp_sync_module_states must be true",
            ).format(),
            refused=True,
        )
    version = 1
    if "fsdp_version" in settings:
        key, item = settings["fsdp_version"]
        text = env_text(item)
        try:
            # the plugin: int(os.environ.get("FSDP_VERSION", "1"))
            version = int(text) if text is not None else 0
        except ValueError:
            r.refuse(
                key,
                item,
                trans_late(
                    "ConfigImport", "accelerate's FSDP plugin refuses it: must be 1 or 2"
                ).format(),
                "zero_stage",
                "offload",
                refused=True,
            )
            return
        if version not in (1, 2):
            r.refuse(
                key,
                item,
                trans_late("ConfigImport", "gradacc reads FSDP versions 1 and 2").format(),
                "zero_stage",
                "offload",
            )
            return

    offload: bool | None = None
    offload_key: str | None = None
    if "fsdp_offload_params" in settings:
        offload_key, item = settings["fsdp_offload_params"]
        offload = _truth(item)
        if offload is None:
            # the plugin: str_to_bool(os.environ["FSDP_OFFLOAD_PARAMS"]) raises
            r.refuse(
                offload_key,
                item,
                trans_late(
                    "ConfigImport", "accelerate's FSDP plugin refuses it: must be true or false"
                ).format(),
                "offload",
                refused=True,
            )
    machines = r.values.get("nodes") or 1
    if version == 1:
        strategy_key, item = settings.get("fsdp_sharding_strategy", (None, "FULL_SHARD"))
        strategy = _strategy(item)
        if strategy is None:
            r.refuse(
                strategy_key or "fsdp_config",
                item,
                trans_late(
                    "ConfigImport",
                    "accelerate's FSDP plugin refuses it: FULL_SHARD, SHARD_GRAD_OP, "
                    "NO_SHARD, HYBRID_SHARD or HYBRID_SHARD_ZERO2, or 1 to 5",
                ).format(),
                "zero_stage",
                "offload",
                refused=True,
            )
            return
        if "fsdp_reshard_after_forward" in settings:
            reshard_key, reshard = settings["fsdp_reshard_after_forward"]
            if _strategy(reshard) != strategy:
                # the plugin reads reshard_after_forward only when sharding_strategy is
                # None, and with version 1 the launcher always exports
                # FSDP_SHARDING_STRATEGY
                r.warnings.append(
                    trans_late(
                        "ConfigImport",
                        "accelerate runs FSDP {strategy} ({key}): with fsdp_version 1 "
                        "the launcher always passes fsdp_sharding_strategy (FULL_SHARD "
                        "by default) and its FSDP plugin does not read {reshard_key}.",
                    ).format(
                        strategy=_STRATEGIES[strategy - 1],
                        key=strategy_key or _DEFAULT.format(),
                        reshard_key=reshard_key,
                    )
                )
        note = _WHAT[strategy]
        default_note = _ACCELERATE_DEFAULT
    else:
        if "fsdp_sharding_strategy" in settings:
            ignored_key, item = settings["fsdp_sharding_strategy"]
            r.refuse(
                ignored_key,
                item,
                trans_late(
                    "ConfigImport",
                    "not read with fsdp_version 2: accelerate's FSDP plugin takes "
                    "fsdp_reshard_after_forward",
                ).format(),
            )
        strategy_key, item = settings.get("fsdp_reshard_after_forward", (None, True))
        reshard = _truth(item)
        if reshard is None:
            r.refuse(
                strategy_key or "fsdp_config",
                item,
                trans_late(
                    "ConfigImport",
                    "accelerate's FSDP plugin refuses it with fsdp_version 2: must be "
                    "true or false",
                ).format(),
                "zero_stage",
                "offload",
                refused=True,
            )
            return
        strategy = 1 if reshard else 2
        note = RESHARD[reshard]
        default_note = _ACCELERATE_DEFAULT_V2
    apply_fsdp(
        r,
        strategy,
        note,
        strategy_key,
        offload,
        offload_key,
        machines=machines,
        replicated=replicated if version == 2 else None,
        default_note=default_note,
    )


def ignored_fsdp(value: Any, kind: str, r: Reader) -> None:
    """accelerate's fsdp_config next to a distributed_type that is not FSDP: launch
    copies it but exports no FSDP settings (prepare_multi_gpu_env: ``if
    args.use_fsdp``)."""
    if not isinstance(value, dict):
        return
    for key in sorted(k for k in value if isinstance(k, str)):
        name = key if key.startswith("fsdp") else f"fsdp_{key}"
        if name in _READ_KEYS and value[key] is not None:
            r.refuse(
                f"fsdp_config.{clean(key, 80)}",
                value[key],
                trans_late("ConfigImport", "ignored: distributed_type is {kind}, not FSDP").format(
                    kind=kind
                ),
            )


_READ_KEYS = frozenset(
    {"fsdp_version", "fsdp_sharding_strategy", "fsdp_reshard_after_forward", "fsdp_offload_params"}
)
