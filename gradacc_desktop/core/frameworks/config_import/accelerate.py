"""Reading an ``accelerate config`` YAML: processes, machines (and the processes
``accelerate launch`` really starts on them), precision, the distributed type, its
DeepSpeed, FSDP (``fsdp``) and parallelism settings, and the keys accelerate refuses."""

from __future__ import annotations

from typing import Any

from ...memory.setup import Precision
from ...text import trans_late
from .follow import follow_deepspeed
from .fsdp import ignored_fsdp, read_accelerate_fsdp
from .reader import MAX_GPUS, MAX_NODES, MAX_STEPS, Reader

# accelerate, accelerate/commands/config/config_args.py: the dataclass fields of
# ClusterConfig (BaseConfig's and its own) and of SageMakerConfig (accelerate 1.16)
_ACCELERATE_BASE_FIELDS = frozenset(
    {"compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug"}
)
_ACCELERATE_CLUSTER_FIELDS = _ACCELERATE_BASE_FIELDS | frozenset(
    {
        "command_file",
        "commands",
        "deepspeed_config",
        "downcast_bf16",
        "dynamo_config",
        "enable_cpu_affinity",
        "fp8_config",
        "fsdp_config",
        "gpu_ids",
        "machine_rank",
        "main_process_ip",
        "main_process_port",
        "main_training_function",
        "megatron_lm_config",
        "mpirun_config",
        "num_machines",
        "num_processes",
        "parallelism_config",
        "rdzv_backend",
        "same_network",
        "tpu_env",
        "tpu_name",
        "tpu_use_cluster",
        "tpu_use_sudo",
        "tpu_vm",
        "tpu_zone",
    }
)
_ACCELERATE_SAGEMAKER_FIELDS = _ACCELERATE_BASE_FIELDS | frozenset(
    {
        "additional_args",
        "base_job_name",
        "dynamo_config",
        "ec2_instance_type",
        "enable_cpu_affinity",
        "gpu_ids",
        "iam_role_name",
        "image_uri",
        "num_machines",
        "profile",
        "py_version",
        "pytorch_version",
        "region",
        "sagemaker_inputs_file",
        "sagemaker_metrics_file",
        "transformers_version",
    }
)

# accelerate's DistributedType names
_DISTRIBUTED_TYPES = frozenset(
    {
        "NO",
        "MULTI_CPU",
        "MULTI_GPU",
        "MULTI_NPU",
        "MULTI_MLU",
        "MULTI_SDAA",
        "MULTI_MUSA",
        "MULTI_XPU",
        "MULTI_HPU",
        "MULTI_NEURON",
        "DEEPSPEED",
        "FSDP",
        "XLA",
        "TPU",
        "MEGATRON_LM",
    }
)
_DEVICES_ACCELERATE = trans_late(
    "ConfigImport", 'accelerate accepts "none", "cpu" or "nvme"'
).format()


def read_accelerate(data: dict[Any, Any], r: Reader) -> None:
    # accelerate, accelerate/commands/config/config_args.py BaseConfig.from_yaml_file()
    # (and from_json_file()): after process_config() (which converts the old fp16 and
    # dynamo_backend keys), any key that is not a field of ClusterConfig (or of
    # SageMakerConfig when compute_environment is AMAZON_SAGEMAKER) raises ValueError
    # "The config file at ... had unknown keys"; accelerate launch loads the file so
    known = (
        _ACCELERATE_SAGEMAKER_FIELDS
        if data.get("compute_environment") == "AMAZON_SAGEMAKER"
        else _ACCELERATE_CLUSTER_FIELDS
    )
    for key in data:
        if isinstance(key, str) and key not in known and key not in ("fp16", "dynamo_backend"):
            r.unknown_key(
                key,
                known,
                True,
                trans_late(
                    "ConfigImport", "accelerate refuses a config file with unknown keys"
                ).format(),
            )
        elif not isinstance(key, str):
            r.unknown_key(
                str(key),
                known,
                True,
                trans_late(
                    "ConfigImport", "accelerate refuses a config file with unknown keys"
                ).format(),
            )
    r.integer("gpus", "num_processes", data.get("num_processes"), 1, MAX_GPUS, auto=False)
    if "num_processes" not in data and data.get("distributed_type") == "NO":
        # from_yaml_file(): no num_processes with distributed_type NO is one process
        r.set("gpus", "distributed_type", 1)
    r.integer("nodes", "num_machines", data.get("num_machines"), 1, MAX_NODES, auto=False)
    mixed = data.get("mixed_precision")
    if "mixed_precision" not in data and "fp16" in data:
        # process_config(): an old file's fp16 key becomes mixed_precision "fp16" when
        # true (and no mixed precision when false)
        r.set("precision", "fp16", Precision.FP16 if data["fp16"] else Precision.FP32)
    elif mixed is False or mixed == "no":  # YAML reads an unquoted no as false
        r.set("precision", "mixed_precision", Precision.FP32)
    elif isinstance(mixed, str) and mixed in ("bf16", "fp16"):
        r.set("precision", "mixed_precision", Precision(mixed))
    elif isinstance(mixed, str) and mixed == "fp8":
        r.refuse(
            "mixed_precision",
            mixed,
            trans_late("ConfigImport", "fp8 is not modelled (only no, fp16 and bf16)").format(),
            "precision",
        )
    elif mixed is not None:
        r.refuse(
            "mixed_precision",
            mixed,
            trans_late("ConfigImport", 'must be "no", "fp16", "bf16" or "fp8"').format(),
            "precision",
        )

    kind = data.get("distributed_type")
    if "distributed_type" not in data:
        # process_config(): ValueError "A `distributed_type` must be specified in the
        # config file."
        r.refuse(
            "distributed_type",
            None,
            trans_late(
                "ConfigImport", "accelerate refuses a config file without distributed_type"
            ).format(),
            refused=True,
        )
    elif kind is not None:
        if isinstance(kind, str) and kind in _DISTRIBUTED_TYPES:
            r.set("distributed_type", "distributed_type", kind)
        else:
            # ClusterConfig.__post_init__(): DistributedType(value) raises ValueError
            r.refuse(
                "distributed_type",
                kind,
                trans_late("ConfigImport", "unknown distributed type").format(),
                refused=True,
            )
    distributed = r.values.get("distributed_type")

    ds = r.mapping("deepspeed_config", data.get("deepspeed_config"), "zero_stage", "offload")
    if ds and distributed is not None and distributed != "DEEPSPEED":
        for key in sorted(str(k) for k in ds if isinstance(k, str)):
            if key in _ACCELERATE_DS_KEYS and ds[key] is not None:
                r.refuse(
                    f"deepspeed_config.{key}",
                    ds[key],
                    trans_late(
                        "ConfigImport", "ignored: distributed_type is {kind}, not DEEPSPEED"
                    ).format(kind=distributed),
                )
    elif ds is not None:
        r.integer(
            "accumulation_steps",
            "deepspeed_config.gradient_accumulation_steps",
            ds.get("gradient_accumulation_steps"),
            1,
            MAX_STEPS,
        )
        r.zero_stage("deepspeed_config.zero_stage", ds.get("zero_stage"))
        keys = (
            "deepspeed_config.offload_optimizer_device",
            "deepspeed_config.offload_param_device",
        )
        devices = tuple(r.device(k, ds.get(k.split(".")[1]), _DEVICES_ACCELERATE) for k in keys)
        r.offload(keys, (devices[0], devices[1]))
        if ds.get("deepspeed_config_file") is not None:
            follow_deepspeed(
                r, "deepspeed_config.deepspeed_config_file", ds["deepspeed_config_file"]
            )
    if distributed == "DEEPSPEED" and r.values.get("zero_stage") is None:
        # accelerate's own default stage comes from its environment, not the file
        r.unresolved.add("zero_stage")
    # accelerate config's parallelism_config section (commands/config/cluster.py writes
    # parallelism_config_<dim>_size keys; launch passes them to ParallelismConfig)
    pc = r.mapping("parallelism_config", data.get("parallelism_config"))
    if pc:
        for name, dim in (
            ("replicate", "dp_replicate"),
            ("shard", "dp_shard"),
            ("tensor", "tp"),
            ("context", "cp"),
        ):
            key = f"parallelism_config_{dim}_size"
            r.parallel_size(name, f"parallelism_config.{key}", pc.get(key))
        sp = pc.get("parallelism_config_sp_size")
        if sp is not None and sp != 1:
            r.refuse(
                "parallelism_config.parallelism_config_sp_size",
                sp,
                trans_late("ConfigImport", "sequence parallelism is not modelled").format(),
            )
            r.parallel["sequence"] = (0, r.name("parallelism_config.parallelism_config_sp_size"))
    if distributed == "FSDP":
        read_accelerate_fsdp(data.get("fsdp_config"), r, r.parallel.get("replicate"))
    elif distributed is not None:
        ignored_fsdp(data.get("fsdp_config"), distributed, r)
    if data.get("compute_environment") != "AMAZON_SAGEMAKER":
        _per_machine(r, ds if distributed == "DEEPSPEED" else None)


# accelerate, accelerate/commands/launch.py launch_command(): DEEPSPEED goes to
# deepspeed_launcher, FSDP, MEGATRON_LM and the multi-device types (the MULTI_* of
# _validate_launch_command) to multi_gpu_launcher; NO, MULTI_CPU and XLA to launchers
# that do not split num_processes over the machines
_SPLIT_TYPES = _DISTRIBUTED_TYPES - {"NO", "MULTI_CPU", "XLA", "TPU"}


def _per_machine(r: Reader, ds: dict[Any, Any] | None) -> None:
    """The processes accelerate launch starts on several machines.

    accelerate, accelerate/utils/launch.py prepare_multi_gpu_env() (multi_gpu_launcher)
    and prepare_deepspeed_cmd_env() with deepspeed_multinode_launcher "standard": torchrun
    with nproc_per_node = str(num_processes // num_machines) and nnodes = num_machines,
    so (num_processes // num_machines) x num_machines processes in all; torchrun refuses
    0 per machine (torch/distributed/elastic/agent/server/api.py WorkerSpec
    ``__post_init__``: local_world_size <= 0 raises). prepare_deepspeed_cmd_env() with
    the other launchers (pdsh by default): deepspeed --hostfile ... --num_gpus
    num_processes // num_machines, each host of the hostfile taking that many
    (deepspeed/launcher/runner.py apply_num_nodes_and_gpus()); with
    deepspeed_inclusion_filter / deepspeed_exclusion_filter it passes no --num_gpus, and
    --num_gpus 0 keeps every slot: the hostfile decides."""
    n, m, kind = r.values.get("gpus"), r.values.get("nodes"), r.values.get("distributed_type")
    if n is None or m is None or m <= 1 or kind not in _SPLIT_TYPES:
        return
    per = n // m
    launcher = ds.get("deepspeed_multinode_launcher") if ds else None
    if kind == "DEEPSPEED" and launcher != "standard":
        filters = [
            key
            for key in ("deepspeed_inclusion_filter", "deepspeed_exclusion_filter")
            if ds and ds.get(key) is not None
        ]
        if filters or per == 0:
            del r.values["gpus"]
            r.keys.pop("gpus", None)
            r.refuse(
                "num_processes",
                n,
                trans_late(
                    "ConfigImport",
                    "not the process count: accelerate's DeepSpeed launcher on several "
                    "machines starts the processes the DeepSpeed hostfile lists "
                    "({why}); give the GPUs in all (--world-size)",
                ).format(
                    why=trans_late("ConfigImport", "deepspeed_config.{key} is set").format(
                        key=filters[0]
                    )
                    if filters
                    else trans_late(
                        "ConfigImport", "num_processes // num_machines = {n} // {m} = 0"
                    ).format(n=n, m=m)
                ),
                "gpus",
            )
            return
    if per == 0:
        r.refuse(
            "num_machines",
            m,
            trans_late(
                "ConfigImport",
                "accelerate launch starts num_processes // num_machines = {n} // {m} = 0 "
                "processes per machine: torchrun refuses that",
            ).format(n=n, m=m),
            refused=True,
        )
        return
    if per * m != n:
        r.started_gpus = per * m


_ACCELERATE_DS_KEYS = frozenset(
    {
        "gradient_accumulation_steps",
        "zero_stage",
        "offload_optimizer_device",
        "offload_param_device",
        "deepspeed_config_file",
    }
)
