"""The notes an export adds: what each framework's files do with the parallel layout
they cannot carry, and the model facts they leave to the user (English; context
"Export" where ``trans_late`` marks them).
"""

from __future__ import annotations

import textwrap
from dataclasses import replace

from ...memory.setup import TrainingSetup
from ...text import trans_late

# --------------------------------------------------------------------------- layout notes

# What each framework does with the parallel layout, in English (context "Export").
# Each is a sentence the app shows as it is; the numbers are in the files.
NOTE_MEGATRON = trans_late(
    "Export",
    "Megatron carries the whole layout: the tensor-parallel size (with sequence "
    "parallelism), the pipeline stages and the world size; it derives the data-parallel "
    "size as world / (tensor parallel x pipeline stages).",
)
NOTE_DEEPSPEED_AUTOTP = trans_late(
    "Export",
    "Tensor parallelism is DeepSpeed AutoTP (tensor_parallel.autotp_size). DeepSpeed then "
    "checks train_batch_size against every process, tensor-parallel ranks included, so "
    "ds_config.json leaves it out and gives the micro-batch and the accumulation steps; "
    "the effective batch is unchanged, as a tensor-parallel group shares its samples.",
)
NOTE_DEEPSPEED_PIPELINE = trans_late(
    "Export",
    "DeepSpeed's pipeline stages are set in code, not in ds_config.json: build the model "
    "as deepspeed.pipe.PipelineModule(layers, num_stages=P) and train with "
    "engine.train_batch(); its accumulation steps are the micro-batches of each "
    "pipeline step.",
)
NOTE_DEEPSPEED_PIPELINE_TP = trans_late(
    "Export",
    "With pipeline stages DeepSpeed takes tensor parallelism from the PipelineModule's "
    "topology (PipeModelDataParallelTopology with your own tensor-parallel layers), not "
    "from AutoTP, so ds_config.json has no tensor_parallel section.",
)
NOTE_DEEPSPEED_INTERLEAVED = trans_late(
    "Export",
    "DeepSpeed's pipeline engine runs plain 1F1B: it has no virtual stages, so its "
    "pipeline idles longer than the interleaved schedule planned. Use the megatron export "
    "for interleaved 1F1B.",
)
NOTE_HF_TENSOR = trans_late(
    "Export",
    "Tensor parallelism goes through DeepSpeed AutoTP (tensor_parallel.autotp_size in "
    "ds_config.json), which the Trainer reads; it counts world / tensor-parallel size "
    "data-parallel ranks.",
)
NOTE_HF_PIPELINE = trans_late(
    "Export",
    "The Hugging Face Trainer has no pipeline stages: these files leave them out and run "
    "the rest of the layout on fewer GPUs. Use the megatron or deepspeed export for "
    "pipeline stages.",
)
NOTE_ACCELERATE_TENSOR = trans_late(
    "Export",
    "Tensor parallelism is not in these files: Accelerate's config file composes it only "
    "with FSDP2 (parallelism_config needs fsdp_version 2, which shards the data-parallel "
    "replicas like ZeRO-3), so the files run the data-parallel part alone on fewer GPUs.",
)
NOTE_ACCELERATE_PIPELINE = trans_late(
    "Export",
    "Accelerate has no pipeline stages for training: these files leave them out and run "
    "the rest of the layout on fewer GPUs. Use the megatron or deepspeed export for "
    "pipeline stages.",
)
NOTE_LIGHTNING_TENSOR = trans_late(
    "Export",
    "Tensor parallelism is Lightning's ModelParallelStrategy: apply your tensor-parallel "
    "plan (and fully_shard over the data-parallel mesh for ZeRO) in your LightningModule's "
    "configure_model() with self.device_mesh; it replaces the DeepSpeed strategy.",
)
NOTE_LIGHTNING_PIPELINE = trans_late(
    "Export",
    "Lightning has no pipeline stages: these files leave them out and run the rest of the "
    "layout on fewer GPUs. Use the megatron or deepspeed export for pipeline stages.",
)
NOTE_TORCH_TENSOR = trans_late(
    "Export",
    "Tensor parallelism is not in this loop: plain PyTorch needs a tensor-parallel plan "
    'for your model (init_device_mesh with "dp" and "tp", then parallelize_module), so '
    "the files run the data-parallel part alone on fewer GPUs.",
)
NOTE_TORCH_PIPELINE = trans_late(
    "Export",
    "Pipeline stages are not in this loop: torch.distributed.pipelining needs your model "
    "split into stages, so the files leave them out and run the rest of the layout on "
    "fewer GPUs. Use the megatron or deepspeed export for pipeline stages.",
)


NOTE_MEGATRON_EXPERTS = trans_late(
    "Export",
    "Megatron spreads each MoE layer's routed experts over {expert_parallel} GPUs of the "
    "data-parallel group (--expert-model-parallel-size); give the experts themselves "
    "(--num-experts, --moe-router-topk) with your model's arguments.",
)
NOTE_DEEPSPEED_EXPERTS = trans_late(
    "Export",
    "DeepSpeed's expert parallelism is set in code, not in ds_config.json: build each MoE "
    "layer as deepspeed.moe.layer.MoE(..., ep_size={expert_parallel}); DeepSpeed then "
    "reduces and partitions each GPU's experts over the GPUs that hold the same ones.",
)
NOTE_MEGATRON_CONTEXT = trans_late(
    "Export",
    "Megatron splits each sequence over {context_parallel} GPUs (--context-parallel-size, "
    "ring attention through Transformer Engine): the data-parallel size is world / "
    "(tensor parallel x pipeline stages x context parallel), and the sequence length must "
    "be divisible by 2 x {context_parallel}.",
)
NOTE_NO_CONTEXT = trans_late(
    "Export",
    "These files leave context parallelism out: this framework has no setting that splits "
    "a sequence over GPUs (ring attention), so they run the rest of the layout on fewer "
    "GPUs and each GPU holds whole sequences, more activation memory than the plan's "
    "{context_parallel}-way context parallelism counts. Use the megatron export for it.",
)
NOTE_NO_EXPERTS = trans_late(
    "Export",
    "These files leave expert parallelism out: this framework has no setting that spreads "
    "a model's experts over GPUs, so every data-parallel GPU holds all the routed experts, "
    "more memory than the plan's {expert_parallel}-way expert parallelism counts. Use the "
    "megatron export to spread them.",
)


NOTE_SCRIPT_SEQ = trans_late(
    "Export",
    "The model and the sequence length live in your training script, not in "
    "ds_config.json: your samples should be {seq_len} tokens long.",
)
NOTE_SCRIPT_LORA = trans_late(
    "Export",
    "LoRA lives in your training script, not in ds_config.json: adapter_config.json is "
    "PEFT's own file (LoraConfig.from_pretrained reads it).",
)
NOTE_MEGATRON_LORA = trans_late(
    "Export",
    "Megatron-LM trains every parameter: it has no LoRA. These arguments train the whole "
    "model; use the hf, hf-deepspeed, accelerate or torchrun export for LoRA.",
)
NOTE_LIGHTNING_LORA = trans_late(
    "Export",
    "LoRA belongs in your LightningModule: wrap its model with "
    'get_peft_model(model, LoraConfig.from_pretrained(".")), which reads adapter_config.json.',
)
NOTE_RECOMPUTE_CODE = trans_late(
    "Export",
    "Activation recomputation is set in code here: call model.gradient_checkpointing_enable() "
    "on a Hugging Face model in build_model(), or wrap your blocks with "
    "torch.utils.checkpoint.",
)
NOTE_FUSED_LOSS_CODE = trans_late(
    "Export",
    "The fused loss is set in code here: in build_model(), load a Hugging Face model with "
    "liger_kernel.transformers.AutoLigerKernelForCausalLM (pip install liger-kernel), or "
    "call its apply_liger_kernel_to_<model>() before loading it.",
)
NOTE_PURE_BF16 = trans_late(
    "Export",
    "Pure bf16 (no master copy) is set in code here: in build_model(), load the model in bf16 "
    "(torch_dtype=torch.bfloat16); the optimizer then updates the bf16 weights and keeps its "
    "states in bf16, as the plan counts.",
)
NOTE_PURE_BF16_DROPPED = trans_late(
    "Export",
    "Pure bf16 is not in these files: {framework} keeps an fp32 master copy of the weights "
    "and its optimizer states in fp32, so they need more memory than the plan counts.",
)
NOTE_BF16_MASTER_DROPPED = trans_late(
    "Export",
    "DeepSpeed's bf16 master copy is not in these files: put bf16_master_weights_and_grads "
    "and bf16_optimizer_states in the bf16 section of a DeepSpeed config (ZeRO-1 to 3). As "
    "written, the optimizer keeps an fp32 master copy and needs more memory than the plan "
    "counts.",
)
NOTE_FUSED_LOSS_MEGATRON = trans_late(
    "Export",
    "Megatron runs its own head and loss: the fused loss (Liger) of the description is not "
    "in these files, and the activation memory they need is the unfused one.",
)
NOTE_SELECTIVE = trans_late(
    "Export",
    "Selective recomputation (the attention core only) is Megatron's "
    "(--recompute-granularity selective): this file trains without it, so its activations "
    "take more memory than the plan says; turn on full recomputation, or none, to plan what "
    "it runs.",
)
NOTE_SELECTIVE_OP = trans_late(
    "Export",
    "Per-op selective recomputation is torchtitan's (activation_checkpoint.mode "
    "'selective', selective_ac_option 'op'): this file trains without it, so its "
    "activations take more memory than the plan says; turn on full recomputation, or none, "
    "to plan what it runs.",
)
NOTE_QLORA = trans_late(
    "Export",
    "QLoRA: build_model() must load the frozen base with quantization_config=QUANTIZATION "
    "(4-bit NF4 with double quantization, bitsandbytes).",
)


def note_comment(notes: tuple[str, ...] | list[str]) -> list[str]:
    """Each note as ``# note: ...`` comment lines."""
    lines: list[str] = []
    for note in notes:
        lines += textwrap.wrap(note, width=88, initial_indent="# note: ", subsequent_indent="#   ")
    return lines


def carried_layout(
    setup: TrainingSetup,
    tensor: bool,
    pipeline: bool,
    experts: bool = False,
    context: bool = False,
) -> TrainingSetup:
    """The part of ``setup``'s layout a framework runs: the dimensions it cannot carry
    are dropped, on as many of the nodes as still split it evenly."""
    tp = setup.tensor_parallel if tensor else 1
    pp = setup.pipeline_stages if pipeline else 1
    ep = setup.expert_parallel if experts else 1
    cp = setup.context_parallel if context else 1
    if (tp, pp, cp) == (setup.tensor_parallel, setup.pipeline_stages, setup.context_parallel):
        return setup if ep == setup.expert_parallel else replace(setup, expert_parallel=ep)
    world = setup.gpus * tp * pp * cp
    nodes = max(
        n
        for n in range(1, setup.nodes + 1)
        if setup.nodes % n == 0 and world % n == 0 and (world // n) % tp == 0
    )
    virtual = setup.virtual_stages if pp > 1 else 1
    return replace(
        setup,
        tensor_parallel=tp,
        pipeline_stages=pp,
        virtual_stages=virtual,
        nodes=nodes,
        expert_parallel=ep,
        context_parallel=cp,
    )
