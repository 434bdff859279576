"""Reading a DeepSpeed JSON (GPT-NeoX's YAML adds its own keys in ``neox``): the batch
triple, ZeRO, precision, parallel sizes and the keys DeepSpeed does not know."""

from __future__ import annotations

from typing import Any

from ...batch.planning import MAX_TARGET_BATCH
from ...memory.zero import ZeroStage
from ...precision import MasterWeights
from ...text import trans_late
from .model import Unread
from .reader import BAD, MAX_MICRO, MAX_STEPS, TRUE_FALSE_AUTO, Reader

_DEVICES_DEEPSPEED = trans_late(
    "ConfigImport", 'DeepSpeed accepts "none", "cpu" or "nvme"'
).format()


_LEGACY_BF16_AUTO = trans_late(
    "ConfigImport",
    'the Trainer fills only bf16.enabled, and DeepSpeed drops this leftover "auto": bf16 '
    "stays off (name the section bf16)",
)

# DeepSpeed 0.19, deepspeed/runtime/config.py DeepSpeedConfig._initialize_params() and
# the get_* helpers it calls: the top-level keys DeepSpeed reads (plus
# sequence_parallel_size, read in DeepSpeedConfig.__init__, and autotuning, read by the
# launcher). Other top-level keys are ignored: nothing checks them.
_DS_TOP_KEYS = frozenset(
    {
        "activation_checkpointing",
        "aio",
        "autotuning",
        "bf16",
        "bfloat16",
        "checkpoint",
        "comet",
        "comms_logger",
        "communication_data_type",
        "compile",
        "csv_monitor",
        "data_efficiency",
        "data_types",
        "dataloader_drop_last",
        "datastates_ckpt",
        "disable_allgather",
        "disable_python_gc",
        "dump_state",
        "expert_parallel",
        "flops_profiler",
        "fp16",
        "gradient_accumulation_steps",
        "gradient_allreduce_op",
        "gradient_clipping",
        "gradient_predivide_factor",
        "hybrid_engine",
        "log_level",
        "managed_gradient_accumulation",
        "memory_breakdown",
        "optimizer",
        "pipeline",
        "prescale_gradients",
        "scheduler",
        "seq_parallel_communication_data_type",
        "sequence_parallel_size",
        "steps_per_print",
        "tensor_parallel",
        "tensorboard",
        "timers",
        "torch_autocast",
        "train_batch_size",
        "train_micro_batch_size_per_gpu",
        "use_data_before_expert_parallelism",
        "wall_clock_breakdown",
        "wandb",
        "weight_quantization",
        "zero_allow_untested_optimizer",
        "zero_force_ds_cpu_optimizer",
        "zero_optimization",
    }
)
# deepspeed/runtime/config.py _REMOVED_TOP_LEVEL_CONFIG_KEYS and
# _REMOVED_ZERO_CONFIG_KEYS: _reject_removed_config_keys() raises DeepSpeedConfigError
_DS_REMOVED_TOP_KEYS = frozenset(
    {
        "nebula",
        "compression_training",
        "amp",
        "quantize_training",
        "sparse_gradients",
        "eigenvalue",
        "sparse_attention",
        "elasticity",
        "graph_harvesting",
        "curriculum_learning",
        "progressive_layer_drop",
    }
)
_DS_REMOVED_ZERO_KEYS = frozenset(
    {"mics_shard_size", "mics_hierarchical_params_gather", "zeropp_loco_param"}
)
# deepspeed/runtime/zero/config.py DeepSpeedZeroConfig: its fields and their aliases;
# the model is a DeepSpeedConfigModel (deepspeed/runtime/config_utils.py), whose
# model_config has extra="forbid", so get_zero_config() raises a pydantic
# ValidationError on any other key
_DS_ZERO_KEYS = frozenset(
    {
        "allgather_bucket_size",
        "allgather_partitions",
        "allgather_sequential",
        "compute_grad_norm",
        "contiguous_gradients",
        "cpu_offload",
        "cpu_offload_param",
        "cpu_offload_use_pin_memory",
        "elastic_checkpoint",
        "enable_sanity_checks",
        "gather_16bit_weights_on_model_save",
        "ignore_unused_parameters",
        "leaf_module",
        "legacy_stage1",
        "load_from_fp32_weights",
        "log_trace_cache_warnings",
        "max_live_parameters",
        "max_reuse_distance",
        "memory_efficient_linear",
        "model_persistence_threshold",
        "module_granularity_threshold",
        "offload_optimizer",
        "offload_param",
        "overlap_comm",
        "override_module_apply",
        "param_persistence_threshold",
        "parameter_alignment",
        "pipeline_loading_checkpoint",
        "prefetch_bucket_size",
        "reduce_bucket_size",
        "reduce_scatter",
        "round_robin_gradients",
        "save_muon_momentum_buffer_in_memory",
        "stage",
        "stage3_allgather_sequential",
        "stage3_gather_16bit_weights_on_model_save",
        "stage3_gather_fp16_weights_on_model_save",
        "stage3_max_live_parameters",
        "stage3_max_reuse_distance",
        "stage3_model_persistence_threshold",
        "stage3_module_granularity_threshold",
        "stage3_param_persistence_threshold",
        "stage3_prefetch_bucket_size",
        "stage3_use_all_reduce_for_fetch_params",
        "sub_group_size",
        "use_all_reduce_for_fetch_params",
        "use_multi_rank_bucket_allreduce",
        "zenflow",
        "zero_hpz_partition_size",
        "zero_quantized_gradients",
        "zero_quantized_nontrainable_weights",
        "zero_quantized_weights",
    }
)
# deepspeed/runtime/zero/offload_config.py DeepSpeedZeroOffloadParamConfig and
# DeepSpeedZeroOffloadOptimizerConfig (DeepSpeedConfigModel: extra="forbid")
_DS_OFFLOAD_KEYS = {
    "offload_param": frozenset(
        {"buffer_count", "buffer_size", "device", "max_in_cpu", "nvme_path", "pin_memory"}
    ),
    "offload_optimizer": frozenset(
        {
            "buffer_count",
            "cpuadam_cores_perc",
            "device",
            "fast_init",
            "nvme_path",
            "pin_memory",
            "pipeline_read",
            "pipeline_write",
            "ratio",
            "super_offload",
        }
    ),
}


def deepspeed_unknown_keys(data: dict[Any, Any], r: Reader, *, top_level: bool) -> None:
    """Name the keys DeepSpeed does not know: a note at the top level (DeepSpeed ignores
    them; only for a JSON, as GPT-NeoX's YAML has keys of its own), a refusal inside
    ``zero_optimization`` and its offload sections (pydantic, extra="forbid") and for
    the keys DeepSpeed has removed (DeepSpeedConfigError)."""
    ignored = trans_late("ConfigImport", "DeepSpeed ignores keys it does not know").format()
    removed = trans_late(
        "ConfigImport", "DeepSpeed refuses it: the feature has been removed"
    ).format()
    forbidden = trans_late(
        "ConfigImport", "DeepSpeed refuses keys its ZeRO settings do not define"
    ).format()
    for key in data:
        name = str(key)
        if name in _DS_REMOVED_TOP_KEYS:
            r.unknown_key(name, _DS_TOP_KEYS, True, removed)
        elif top_level and name not in _DS_TOP_KEYS:
            r.unknown_key(name, _DS_TOP_KEYS, False, ignored)
    zero = data.get("zero_optimization")
    if not isinstance(zero, dict):
        return
    for key, value in zero.items():
        name = str(key)
        dotted = f"zero_optimization.{name}"
        if name in _DS_REMOVED_ZERO_KEYS:
            r.unknown_key(name, frozenset(), True, removed, "zero_optimization.")
        elif name not in _DS_ZERO_KEYS:
            r.unknown_key(name, _DS_ZERO_KEYS, True, forbidden, "zero_optimization.")
        elif name in _DS_OFFLOAD_KEYS and isinstance(value, dict):
            for sub in value:
                if str(sub) not in _DS_OFFLOAD_KEYS[name]:
                    r.unknown_key(str(sub), _DS_OFFLOAD_KEYS[name], True, forbidden, f"{dotted}.")


def read_deepspeed(data: dict[Any, Any], r: Reader) -> None:
    r.integer(
        "train_batch_size", "train_batch_size", data.get("train_batch_size"), 1, MAX_TARGET_BATCH
    )
    r.integer(
        "micro_batch",
        "train_micro_batch_size_per_gpu",
        data.get("train_micro_batch_size_per_gpu"),
        1,
        MAX_MICRO,
    )
    r.integer(
        "accumulation_steps",
        "gradient_accumulation_steps",
        data.get("gradient_accumulation_steps"),
        1,
        MAX_STEPS,
    )
    read_zero(data, r)
    tp = r.mapping("tensor_parallel", data.get("tensor_parallel"))
    if tp is not None:
        r.parallel_size("autotp", "tensor_parallel.autotp_size", tp.get("autotp_size"))
    states: list[tuple[str, Any]] = []
    for names in (("bf16", "bfloat16"), ("fp16",)):
        name = next((n for n in names if data.get(n) is not None), None)
        if name is None:
            continue
        section = r.mapping(name, data[name], "precision")
        if section is None:
            states.append((f"{name}.enabled", BAD))
            continue
        _master(r, name, section)
        key = f"{name}.enabled"
        enabled = section.get("enabled", False)  # DeepSpeed's default
        if enabled is None or isinstance(enabled, bool):
            states.append((key, bool(enabled)))
        elif isinstance(enabled, str) and enabled == "auto" and name == "bfloat16":
            # the old section name: transformers' integration fills only bf16.enabled
            # (integrations/deepspeed.py trainer_config_process), and DeepSpeed's config
            # model drops a leftover "auto" (runtime/config_utils.py): bf16 stays off
            r.unread.append(Unread(r.name(key), "auto", _LEGACY_BF16_AUTO.format()))
            if r.name(key) in r.auto:  # not an "auto" anyone fills
                r.auto.remove(r.name(key))
            states.append((key, False))
        elif isinstance(enabled, str) and enabled == "auto":
            r.mark_auto(key, "precision")
            states.append((key, "auto"))
        else:
            states.append((key, r.refuse(key, enabled, TRUE_FALSE_AUTO.format(), "precision")))
    r.precision(states)


def _master(r: Reader, name: str, section: dict[Any, Any]) -> None:
    """A bf16 master copy with bf16 optimizer states (runtime/config.py's
    bf16_master_weights_and_grads and bf16_optimizer_states, both true): the master copy,
    its gradients and Adam's moments in bf16. The master copy alone keeps fp32 states,
    which the description does not say: the fp32 master copy is counted (more memory)."""
    if name != "bf16":
        return
    master = section.get("bf16_master_weights_and_grads")
    states = section.get("bf16_optimizer_states")
    if master is True and states is True:
        r.set("master_weights", "bf16.bf16_master_weights_and_grads", MasterWeights.BF16)


def read_zero(data: dict[Any, Any], r: Reader) -> None:
    value = data.get("zero_optimization")
    if value is None:
        return
    if isinstance(value, bool):  # DeepSpeed's old form: true is stage 1
        r.set("zero_stage", "zero_optimization", ZeroStage(1 if value else 0))
        return
    zero = r.mapping("zero_optimization", value, "zero_stage", "offload")
    if zero is None:
        return
    r.zero_stage("zero_optimization.stage", zero.get("stage"))
    devices: list[Any] = []
    for part, legacy in (
        ("offload_optimizer", "cpu_offload"),
        ("offload_param", "cpu_offload_param"),
    ):
        key = f"zero_optimization.{part}"
        section = zero.get(part)
        if section is not None:
            sub = r.mapping(key, section, "offload")
            if sub is None:
                devices.append(BAD)
            else:
                device = sub.get("device")
                # a section without a device is DeepSpeed's default, "none"
                devices.append(
                    "none"
                    if device is None
                    else r.device(f"{key}.device", device, _DEVICES_DEEPSPEED)
                )
        elif zero.get(legacy) is not None:  # DeepSpeed's deprecated booleans
            flag = zero[legacy]
            if isinstance(flag, bool):
                devices.append("cpu" if flag else "none")
            else:
                devices.append(
                    r.refuse(
                        f"zero_optimization.{legacy}",
                        flag,
                        trans_late("ConfigImport", "must be true or false").format(),
                        "offload",
                    )
                )
        else:
            devices.append(None)
    keys = (
        "zero_optimization.offload_optimizer.device",
        "zero_optimization.offload_param.device",
    )
    r.offload(keys, (devices[0], devices[1]))
