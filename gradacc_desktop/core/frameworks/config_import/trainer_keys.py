"""The keys each framework's argument parser knows, for naming unknown keys: Hugging
Face ``TrainingArguments`` (transformers 5.24), TRL 1.16's script dataclasses and
LLaMA-Factory 0.9.5's argument classes. Generated from the frameworks' own dataclasses
(``dataclasses.fields``, the fields with ``init=True``)."""

from __future__ import annotations

from ...text import trans_late


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# transformers 5.24, src/transformers/training_args.py: the fields of the dataclass
# TrainingArguments (dataclasses.fields(TrainingArguments), all init=True)
TRAINING_ARGS = _names(
    """
    accelerator_config activation_checkpointing activation_checkpointing_kwargs
    adam_beta1 adam_beta2 adam_epsilon auto_find_batch_size average_tokens_across_devices
    batch_eval_metrics bf16 bf16_full_eval data_seed dataloader_drop_last
    dataloader_in_order dataloader_multiprocessing_context dataloader_num_workers
    dataloader_persistent_workers dataloader_pin_memory dataloader_prefetch_factor
    ddp_backend ddp_broadcast_buffers ddp_bucket_cap_mb ddp_find_unused_parameters
    ddp_static_graph ddp_timeout debug deepspeed disable_tqdm do_eval do_predict do_train
    enable_jit_checkpoint eval_accumulation_steps eval_delay eval_do_concat_batches
    eval_on_start eval_steps eval_strategy eval_use_gather_object fp16 fp16_full_eval fsdp
    fsdp_config full_determinism gradient_accumulation_steps gradient_checkpointing
    gradient_checkpointing_kwargs greater_is_better hub_always_push hub_model_id
    hub_private_repo hub_revision hub_strategy hub_token ignore_data_skip
    include_for_metrics include_num_input_tokens_seen label_names label_smoothing_factor
    learning_rate length_column_name liger_kernel_config load_best_model_at_end local_rank
    log_level log_level_replica log_on_each_node logging_first_step logging_nan_inf_filter
    logging_steps logging_strategy lr_scheduler_kwargs lr_scheduler_type max_grad_norm
    max_steps metric_for_best_model neftune_noise_alpha num_train_epochs optim optim_args
    optim_target_modules output_dir parallelism_config per_device_eval_batch_size
    per_device_train_batch_size prediction_loss_only project push_to_hub
    remove_unused_columns report_to restore_callback_states_from_checkpoint
    resume_from_checkpoint run_name save_on_each_node save_only_model save_steps
    save_strategy save_total_limit seed skip_memory_metrics tf32 torch_compile
    torch_compile_backend torch_compile_mode torch_empty_cache_steps trackio_bucket_id
    trackio_space_id trackio_static_space_id train_sampling_strategy use_cache use_cpu
    use_liger_kernel warmup_steps weight_decay
    """
)
# transformers 5.24, training_args_seq2seq.py: Seq2SeqTrainingArguments' own fields
SEQ2SEQ_ARGS = _names(
    """
    generation_config generation_max_length generation_num_beams predict_with_generate
    sortish_sampler
    """
)
# TRL 1.16, trl/scripts/sft.py and dpo.py make_parser(): TrlParser((ScriptArguments,
# SFTConfig or DPOConfig, ModelConfig, DatasetMixtureConfig)); the fields of
# ScriptArguments (trl/scripts/utils.py) and DatasetMixtureConfig
TRL_SCRIPT = _names(
    """
    dataset_config dataset_name dataset_streaming dataset_test_split dataset_train_split
    datasets ignore_bias_buffers streaming test_split_size
    """
)
# TRL 1.16, trl/trainer/model_config.py ModelConfig
TRL_MODEL = _names(
    """
    attn_implementation bnb_4bit_quant_storage bnb_4bit_quant_type dtype load_in_4bit
    load_in_8bit lora_alpha lora_dropout lora_modules_to_save lora_r lora_target_modules
    lora_target_parameters lora_task_type model_name_or_path model_revision
    use_bnb_nested_quant use_dora use_peft use_rslora
    """
)
# TRL 1.16, trl/trainer/sft_config.py SFTConfig: its fields beyond TrainingArguments'
TRL_SFT = _names(
    """
    activation_offloading assistant_only_loss chat_template_path completion_only_loss
    dataset_kwargs dataset_num_proc dataset_text_field eos_token eval_packing loss_type
    max_length model_init_kwargs packing packing_strategy pad_to_multiple_of pad_token
    padding_free router_aux_loss_coef shuffle_dataset truncation_mode trust_remote_code
    """
)
# TRL 1.16, trl/trainer/dpo_config.py DPOConfig: its fields beyond TrainingArguments'
TRL_DPO = _names(
    """
    activation_offloading beta dataset_num_proc disable_dropout discopop_tau
    f_alpha_divergence_coef f_divergence_type label_smoothing ld_alpha loss_type
    loss_weights max_length model_init_kwargs pad_to_multiple_of pad_token padding_free
    precompute_ref_batch_size precompute_ref_log_probs ref_model_mixup_alpha
    ref_model_sync_steps router_aux_loss_coef sync_ref_model truncation_mode
    trust_remote_code use_weighting
    """
)
# TrlParser.parse_args_and_config() pops the "env" mapping before parsing
TRL_ONLY = (TRL_SCRIPT | TRL_MODEL | TRL_SFT | TRL_DPO | {"env"}) - TRAINING_ARGS


# LLaMA-Factory 0.9.5, src/llamafactory/hparams/parser.py _TRAIN_ARGS: HfArgumentParser
# over ModelArguments, DataArguments, TrainingArguments, FinetuningArguments and
# GeneratingArguments (hparams/*.py, with their mixins; the init=False fields of
# ModelArguments excluded).
# hparams/model_args.py ModelArguments
_LF_MODEL = _names(
    """
    adapter_folder adapter_name_or_path add_special_tokens add_tokens audio_sampling_rate
    cache_dir crop_to_patches disable_gradient_checkpointing double_quantization
    enable_liger_kernel export_device export_dir export_hub_model_id export_legacy_format
    export_quantization_bit export_quantization_dataset export_quantization_maxlen
    export_quantization_nsamples export_size flash_attn hf_hub_token image_do_pan_and_scan
    image_max_pixels image_min_pixels infer_backend infer_dtype init_special_tokens
    kt_expert_checkpoint_path kt_lora_expert_intermediate_size kt_lora_expert_num
    kt_use_lora_experts kt_weight_path low_cpu_mem_usage mixture_of_depths
    model_name_or_path model_revision moe_aux_loss_coef ms_hub_token
    new_special_tokens_config offload_folder om_hub_token print_param_status
    quantization_bit quantization_device_map quantization_method quantization_type
    resize_vocab rope_scaling sglang_config sglang_lora_backend sglang_maxlen
    sglang_mem_fraction sglang_tp_size shift_attn split_special_tokens train_from_scratch
    trust_remote_code upcast_layernorm upcast_lmhead_output use_audio_in_video
    use_fast_tokenizer use_kt use_kv_cache use_reentrant_gc use_unsloth use_unsloth_gc
    use_v1_kernels video_fps video_max_pixels video_maxlen video_min_pixels vllm_config
    vllm_enforce_eager vllm_gpu_util vllm_max_lora_rank vllm_maxlen
    """
)
# hparams/data_args.py DataArguments
_LF_DATA = _names(
    """
    buffer_size cutoff_len data_shared_file_system dataset dataset_dir default_system
    enable_thinking eval_dataset eval_num_beams eval_on_each_dataset
    ignore_pad_token_for_loss interleave_probs mask_history max_samples media_dir
    mix_strategy neat_packing overwrite_cache packing preprocessing_batch_size
    preprocessing_num_workers preserve_thinking streaming template tokenized_path
    tool_format train_on_prompt val_size
    """
)
# hparams/training_args.py TrainingArguments: its own fields and those of
# ProfilerArguments, Fp8Arguments and RayArguments
_LF_TRAINING_OWN = _names(
    """
    enable_torch_profiler fp8 fp8_backend fp8_enable_fsdp_float8_all_gather master_addr
    master_port overwrite_output_dir profile_modules profiler_active_steps
    profiler_output_dir profiler_profile_memory profiler_record_shapes profiler_repeat
    profiler_wait_steps profiler_warmup_steps profiler_with_stack ray_init_kwargs
    ray_num_workers
    """
)
# hparams/finetuning_args.py FinetuningArguments
_LF_FINETUNING = _names(
    """
    additional_target apollo_layerwise apollo_proj apollo_proj_type apollo_rank
    apollo_scale apollo_scale_front apollo_scale_type apollo_target apollo_update_interval
    asft_alpha badam_mask_mode badam_mode badam_start_block badam_switch_interval
    badam_switch_mode badam_update_ratio badam_verbose compute_accuracy create_new_adapter
    disable_shuffling dpo_label_smoothing eaft_alpha early_stopping_steps finetuning_type
    freeze_extra_modules freeze_language_model freeze_multi_modal_projector
    freeze_trainable_layers freeze_trainable_modules freeze_vision_tower galore_layerwise
    galore_proj_type galore_rank galore_scale galore_target galore_update_interval
    hyper_parallel_args include_effective_tokens_per_second kto_chosen_weight
    kto_rejected_weight ld_alpha lora_alpha lora_dropout lora_rank lora_target
    loraplus_lr_embedding loraplus_lr_ratio module_dropout oft_block_size oft_rank
    oft_target pissa_convert pissa_init pissa_iter plot_loss ppo_buffer_size ppo_epochs
    ppo_score_norm ppo_target ppo_whiten_rewards pref_bco_weight pref_beta pref_ftx
    pref_loss pure_bf16 ref_model ref_model_adapters ref_model_quantization_bit
    reward_model reward_model_adapters reward_model_quantization_bit reward_model_type
    simpo_gamma stage swanlab_api_key swanlab_lark_secret swanlab_lark_webhook_url
    swanlab_logdir swanlab_mode swanlab_project swanlab_run_name swanlab_workspace
    use_adam_mini use_apollo use_asft_loss use_badam use_dft_loss use_dora use_eaft_loss
    use_galore use_hyper_parallel use_llama_pro use_mca use_muon use_rslora use_swanlab
    """
)
# hparams/generating_args.py GeneratingArguments
_LF_GENERATING = _names(
    """
    do_sample length_penalty max_length max_new_tokens num_beams repetition_penalty
    skip_special_tokens temperature top_k top_p
    """
)
# LLaMA-Factory's TrainingArguments subclasses transformers' Seq2SeqTrainingArguments
# (it allows transformers 4.55 to 5.6; the fields here are 5.6.0's, the newest it
# allows): 5.6 has warmup_ratio and logging_dir (removed by 5.24) and not yet the
# activation_checkpointing, activation_checkpointing_kwargs, dataloader_in_order and
# dataloader_multiprocessing_context of 5.24
_TRAINING_ARGS_5_6 = (
    TRAINING_ARGS
    - {
        "activation_checkpointing",
        "activation_checkpointing_kwargs",
        "dataloader_in_order",
        "dataloader_multiprocessing_context",
    }
) | {"logging_dir", "warmup_ratio"}
LLAMA_FACTORY_KEYS = (
    _LF_MODEL
    | _LF_DATA
    | _LF_TRAINING_OWN
    | _TRAINING_ARGS_5_6
    | SEQ2SEQ_ARGS
    | _LF_FINETUNING
    | _LF_GENERATING
)


# Keys older releases had and transformers 5.24 / TRL 1.16 do not, with the key that
# replaced them (None: removed): transformers' TrainingArguments lost
# evaluation_strategy (4.46: eval_strategy), warmup_ratio (5.0: warmup_steps takes a
# ratio below 1), overwrite_output_dir, no_cuda (use_cpu) and logging_dir in 5.0; TRL's
# ModelConfig says dtype (no longer torch_dtype) and SFTConfig max_length (no longer
# max_seq_length); use_flash_attention_2 became attn_implementation
RENAMED: dict[str, str | None] = {
    "evaluation_strategy": "eval_strategy",
    "warmup_ratio": "warmup_steps",
    "overwrite_output_dir": None,
    "no_cuda": "use_cpu",
    "logging_dir": None,
    "torch_dtype": "dtype",
    "max_seq_length": "max_length",
    "use_flash_attention_2": "attn_implementation",
}
RENAMED_TO = trans_late(
    "ConfigImport",
    "an older name: transformers 5.24 and TRL 1.16 call it {new} and refuse the old one",
)
REMOVED_KEY = trans_late(
    "ConfigImport", "removed from transformers 5 (TRL 1.16 and transformers 5.24 refuse it)"
)
# alignment-handbook, src/alignment/configs.py: the handbook's own ScriptArguments
# (dataset_mixture; dataset_mixer and its companions in older releases) and SFTConfig /
# DPOConfig (chat_template, hub_model_revision) define these for its scripts; TRL's own
# scripts do not know them
HANDBOOK_KEYS = frozenset(
    {
        "dataset_mixture",
        "dataset_mixer",
        "dataset_splits",
        "dataset_configs",
        "chat_template",
        "text_column",
        "truncation_side",
        "auto_insert_empty_system_msg",
        "preprocessing_num_workers",
        "model_code_revision",
        "base_model_revision",
        "hub_model_revision",
    }
)
HANDBOOK_KEY = trans_late(
    "ConfigImport",
    "alignment-handbook's scripts define it; TRL's own scripts (trl sft, trl dpo) refuse it",
)
