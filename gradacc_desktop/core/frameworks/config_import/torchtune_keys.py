"""The top-level keys torchtune's recipes read (a long list, kept apart from the
reader in ``torchtune``)."""

from __future__ import annotations

# The top-level keys torchtune's training recipes read (recipes/*.py, cfg.<key> and
# cfg.get("<key>")), and the keys of its published configs that the recipes use
# through interpolation.
RECIPE_KEYS = frozenset(
    {
        "activation_offloading_use_streams",
        "batch_size",
        "batch_size_val",
        "checkpoint_dir",
        "checkpointer",
        "clip_grad_norm",
        "collate_fn",
        "compile",
        "context_parallel_dim",
        "context_parallel_rotate_method",
        "cudnn_deterministic_mode",
        "custom_sharded_layers",
        "data_parallel_replicate_dim",
        "data_parallel_shard_dim",
        "dataset",
        "dataset_val",
        "device",
        "dtype",
        "enable_activation_checkpointing",
        "enable_activation_offloading",
        "enable_async_checkpointing",
        "enable_fp8_training",
        "epochs",
        "epochs_to_save",
        "fp8_recipe_name",
        "fsdp_cpu_offload",
        "fsdp_reshard_after_forward",
        "gradient_accumulation_steps",
        "log_every_n_steps",
        "log_level",
        "log_peak_memory_stats",
        "loss",
        "low_cpu_ram",
        "lr_scheduler",
        "max_steps_per_epoch",
        "memory_efficient_fsdp_wrap",
        "metric_logger",
        "model",
        "optimizer",
        "optimizer_in_bwd",
        "output_dir",
        "profiler",
        "resume_from_checkpoint",
        "run_val_every_n_steps",
        "save_adapter_weights_only",
        "save_every_n_steps",
        "save_last_epoch_only",
        "seed",
        "shuffle",
        "tensor_parallel_dim",
        "tensor_parallel_plan",
        "tokenizer",
    }
)
# the keys gradacc reads: a key close to one of these is named as a likely misspelling
READ_KEYS = (
    "batch_size",
    "gradient_accumulation_steps",
    "dtype",
    "enable_activation_checkpointing",
    "fsdp_cpu_offload",
    "fsdp_reshard_after_forward",
    "tensor_parallel_dim",
    "tensor_parallel_plan",
    "context_parallel_dim",
    "data_parallel_shard_dim",
    "data_parallel_replicate_dim",
)

# The parallel sizes torchtune's distributed recipes read: (name, key).
PARALLEL_KEYS = (
    ("tensor", "tensor_parallel_dim"),
    ("context", "context_parallel_dim"),
    ("shard", "data_parallel_shard_dim"),
    ("replicate", "data_parallel_replicate_dim"),
)
