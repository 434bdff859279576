"""The keys a GPT-NeoX config file may hold: the dataclass fields of ``NeoXArgs``, as of
the GPT-NeoX source read (``NEOX_VERSION``).

GPT-NeoX, megatron/neox_arguments/arguments.py ``NeoXArgs.from_ymls()`` loads every file
(``yaml.load``), turns "-" into "_" in each top-level key and calls ``cls(**config)``:
``NeoXArgs`` is a dataclass made of the classes in ``BASE_CLASSES``, so a key that is not
one of their fields raises ``TypeError`` (``__init__() got an unexpected keyword
argument``) and the run does not start.

Generated from EleutherAI/gpt-neox at ``NEOX_COMMIT`` (the head of its main branch,
2026-05-19; requirements/pyproject.toml says version 2.0.0) with Python's ``ast``, not
typed in: every annotated class attribute of the twelve ``BASE_CLASSES``
(megatron/neox_arguments/deepspeed_args.py ``NeoXArgsDeepspeedRunner`` and
``NeoXArgsDeepspeedConfig``; megatron/neox_arguments/neox_args.py the ten others). Class
attributes without an annotation (``tensorboard_writer``, ``adlr_autoresume_object``,
``tokenizer``) are not fields. (Checked by building ``NeoXArgs`` from that commit's files:
318 fields. Its configs/*.yml hold only these keys, but for configs/llemma/, whose
``attention_type``, ``decay_lr_to`` and ``warmup_iters`` NeoX itself refuses.)

``NEOX_BRANCH_KEYS`` and ``NEOX_REMOVED_KEYS`` are keys main refuses that a config may
still hold: fields only unmerged branches of the repository add (AxoNN's tensor
parallelism, context parallelism), and fields main removed (the commit that removed
each). They only name why the key is refused.

To regenerate for another commit: walk the same classes the same way and replace the
tables (the names are sorted, whitespace-separated).
"""

from __future__ import annotations

# The GPT-NeoX source the rules of ``neox`` and these keys are read from.
NEOX_COMMIT = "ea7aefd8f8e183256992d9fede4d7c71a46d67a5"
NEOX_VERSION = f"2.0.0 (main at {NEOX_COMMIT[:7]}, 2026-05-19)"


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# BASE_CLASSES (megatron/neox_arguments/arguments.py), in its order: class -> fields
NEOX_ARGUMENT_CLASSES: dict[str, frozenset[str]] = {
    "NeoXArgsDeepspeedRunner": _names(
        """
        account autotuning_run comment exclude force_multi hostfile include launcher
        master_addr master_port no_ssh_check num_gpus num_nodes
        """
    ),
    "NeoXArgsDeepspeedConfig": _names(
        """
        activation_checkpointing amp autotuning bf16 checkpoint comms_logger
        communication_data_type compression_training csv_monitor curriculum_learning
        curriculum_seqlen data_efficiency data_types deepspeed deepspeed_extra_args
        dump_state elasticity flops_profiler fp16 fp32_allreduce
        gradient_accumulation_steps gradient_clipping gradient_predivide_factor
        optimizer prescale_gradients scheduler sparse_attention sparse_gradients
        steps_per_print tensorboard train_batch_size train_micro_batch_size_per_gpu
        wall_clock_breakdown wandb zero_optimization
        """
    ),
    "NeoXArgsModel": _names(
        """
        activation apply_query_key_layer_scaling attention_config
        attention_softmax_in_fp32 bias_dropout_fusion bias_gelu_fusion dim_att
        expansion_factor ffn_dim fp16_lm_cross_entropy fused_kernels_build_path
        gmlp_attn_dim gpt_j_residual gpt_j_tied head_size hidden_size init_method
        init_method_std intermediate_size layernorm_epsilon layernorm_fusion
        make_vocab_size_divisible_by mamba_causal_conv_fusion mamba_inner_func_fusion
        mamba_selective_fp32_params mamba_selective_scan_fusion mamba_use_bias_in_conv
        mamba_use_bias_in_linears max_position_embeddings mlp_multiple_of
        no_weight_tying norm num_attention_heads num_kv_heads num_layers
        num_unique_layers online_dataserver_ips online_dataserver_ports
        opt_pos_emb_offset output_layer_init_method output_layer_parallelism
        param_sharing_style pos_emb precision rms_norm_epsilon rmsnorm_fusion
        rope_fusion rotary_emb_base rotary_pct rotary_save_freqs_buffer rpe_max_distance
        rpe_num_buckets scaled_masked_softmax_fusion
        scaled_upper_triang_masked_softmax_fusion scalenorm_epsilon seq_length
        serve_model_weights sliding_window_width soft_prompt_tuning sparsity_config
        te_columnparallel te_fp8_amax_compute_algo te_fp8_amax_history_len te_fp8_format
        te_fp8_margin te_fp8_mha te_fp8_wgrad te_layernorm_mlp te_mha te_rowparallel
        use_bias_in_attn_linear use_bias_in_mlp use_bias_in_norms use_cpu_initialization
        use_flashattn_swiglu use_qk_layernorm weight_server_port
        """
    ),
    "NeoXArgsMoE": _names(
        """
        moe_expert_interval moe_jitter_eps moe_lbl_in_fp32 moe_num_experts
        moe_router_type moe_top_k
        """
    ),
    "NeoXArgsLRScheduler": _names(
        """
        lr_decay_fraction lr_decay_iters lr_decay_style min_lr override_lr_scheduler
        use_checkpoint_lr_scheduler warmup
        """
    ),
    "NeoXArgsOptimizer": _names(
        """
        lr optimizer_type use_bnb_optimizer zero_allgather_bucket_size
        zero_contiguous_gradients zero_reduce_bucket_size zero_reduce_scatter zero_stage
        """
    ),
    "NeoXArgsTokenizer": _names(
        """
        padded_vocab_size tokenizer_type
        """
    ),
    "NeoXArgsTraining": _names(
        """
        allow_chopped attention_dropout base_shapes_file batch_size char_level_ppl
        checkpoint_activations checkpoint_factor checkpoint_in_cpu checkpoint_num_layers
        checkpoint_scale checkpoint_validation_with_forward_pass clip_grad config_files
        contiguous_checkpointing coord_check data_impl data_path dataset_impl
        deepspeed_activation_checkpointing dpo_beta dpo_fp32 dpo_reference_free
        dynamic_loss_scale eval_interval eval_iters exit_interval extra_save_iters
        finetune fp32_reinforce hidden_dropout hysteresis keep_last_n_checkpoints
        kl_div_beta kl_impl kto_beta kto_desirable_weight kto_fp32
        kto_undesirable_weight load loss_scale loss_scale_window merge_file min_scale
        mmap_warmup mup_attn_temp mup_embedding_mult mup_init_scale mup_output_temp
        mup_rp_embedding_mult mup_width_scale neg_test_data_paths
        neg_test_label_data_paths neg_train_data_paths neg_train_label_data_paths
        neg_valid_data_paths neg_valid_label_data_paths no_load_optim no_load_rng
        no_save_optim no_save_rng num_workers pack_impl partition_activations
        pos_test_data_paths pos_test_label_data_paths pos_train_data_paths
        pos_train_label_data_paths pos_valid_data_paths pos_valid_label_data_paths
        profile_backward reinforce_leave_one_out s3_chunk_size s3_path save
        save_base_shapes split synchronize_each_layer test_data_paths test_data_weights
        test_label_data_paths test_reward_data_paths train_data_paths train_data_weights
        train_epochs train_impl train_iters train_label_data_paths
        train_reward_data_paths use_mup use_shared_fs valid_data_paths
        valid_data_weights valid_label_data_paths valid_reward_data_paths vocab_file
        weight_by_num_documents weight_decay weighted_sampler_alpha z_loss
        """
    ),
    "NeoXArgsParallelism": _names(
        """
        is_pipe_parallel model_parallel_size pipe_parallel_size pipe_partition_method
        sequence_parallel world_size
        """
    ),
    "NeoXArgsLogging": _names(
        """
        comet_experiment comet_experiment_name comet_others comet_project comet_tags
        comet_workspace git_hash gradient_noise_scale_cpu_offload
        gradient_noise_scale_n_batches log_dir log_grad_norm log_grad_pct_zeros
        log_gradient_noise_scale log_interval log_optimizer_states log_param_norm
        memory_profiling memory_profiling_path peak_theoretical_tflops profile
        profile_step_start profile_step_stop tensorboard_dir use_comet use_wandb
        wandb_group wandb_host wandb_init_all_ranks wandb_project wandb_run_name
        wandb_team
        """
    ),
    "NeoXArgsTextgen": _names(
        """
        eval_results_prefix eval_tasks maximum_tokens num_samples precompute_model_name
        prompt_end recompute return_logits sample_input_file sample_output_file
        temperature text_gen_type top_k top_p
        """
    ),
    "NeoXArgsOther": _names(
        """
        adlr_autoresume adlr_autoresume_interval deepscale deepscale_config
        deepspeed_mpi deepspeed_slurm distributed_backend do_test do_train do_valid
        eod_mask_loss global_num_gpus iteration lazy_mpu_init local_rank onnx_safe rank
        seed short_seq_prob user_script
        """
    ),
}

NEOX_KEYS: frozenset[str] = frozenset().union(*NEOX_ARGUMENT_CLASSES.values())

# Fields only an unmerged branch of EleutherAI/gpt-neox has (the branch's fields less
# those of its merge base with main): key -> "branch (commit at its tip)"
_AXONN_3D = "add-axonn-3d-TP (28443c6)"
_AXONN_2D = "add-axonn-2d-tensor-parr (7c4657e)"
_CONTEXT_PARALLEL = "add-context-parallel-support (5f13813)"
NEOX_BRANCH_KEYS: dict[str, str] = {
    # AxoNN's 3D tensor parallelism (NeoXArgsParallelism); its configs/125M.yml sets them
    "use_axonn_model_parallelism": _AXONN_3D,
    "row_model_parallel_size": _AXONN_3D,
    "column_model_parallel_size": _AXONN_3D,
    "depth_model_parallel_size": _AXONN_3D,
    "optimize_axonn_communication": _AXONN_3D,
    # AxoNN's 2D tensor parallelism
    "inner_model_parallel_size": _AXONN_2D,
    "outer_model_parallel_size": _AXONN_2D,
    "deepspeed_jsrun": _AXONN_2D,
    # context parallelism
    "context_parallel_size": _CONTEXT_PARALLEL,
    "is_context_parallel": _CONTEXT_PARALLEL,
    "requires_attention_mask": _CONTEXT_PARALLEL,
}

# Fields main removed: key -> (commit, date)
_DMOE = ("d11df96", "2025-05-09")  # "Dmoe integration (#1210)": MoE settings renamed
NEOX_REMOVED_KEYS: dict[str, tuple[str, str]] = {
    "gas": ("91c44bc", "2024-02-05"),
    "label_data_paths": ("c786367", "2024-08-27"),
    "mlp_type": ("adbf5d6", "2024-09-10"),
    "save_iters": ("a6d6af0", "2024-09-29"),
    "detect_nvlink_pairs": ("9107b25", "2025-02-18"),
    "expert_interval": _DMOE,
    "moe_type": _DMOE,
    "moe_glu": _DMOE,
    "moe_loss_coeff": _DMOE,
    "moe_train_capacity_factor": _DMOE,
    "moe_eval_capacity_factor": _DMOE,
    "moe_min_capacity": _DMOE,
    "moe_token_dropping": _DMOE,
    "moe_use_residual": _DMOE,
    "moe_expert_parallel_size": _DMOE,
    "create_moe_param_group": _DMOE,
    "enable_expert_tensor_parallelism": _DMOE,
    "use_tutel": _DMOE,
}
