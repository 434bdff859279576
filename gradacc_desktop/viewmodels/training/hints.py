"""The training description's field hints and its Megatron switches' (tooltips),
marked for translation in the context of ``TrainingTexts`` (the micro-batch's is the
calculator's too: ``SharedTexts``); ``TrainingTexts.field_hint`` and ``choice_hint``
translate each in its own context."""

from __future__ import annotations

from gradacc_desktop.core.text import Phrase, trans_late
from gradacc_desktop.viewmodels import shared_texts as shared
from gradacc_desktop.viewmodels.training.fields import Choice, TrainingField

FIELD_HINTS: dict[TrainingField, Phrase] = {
    TrainingField.MODEL_PARAMS: trans_late(
        "TrainingTexts",
        "Every parameter of the model, in full: a 7B model is 7,000,000,000. Without "
        "its shape the activation per sample cannot be estimated: type it under "
        "Memory per GPU.",
    ),
    TrainingField.SHAPE_HIDDEN: trans_late("TrainingTexts", "hidden_size (GPT-2: n_embd)."),
    TrainingField.SHAPE_LAYERS: trans_late("TrainingTexts", "num_hidden_layers (GPT-2: n_layer)."),
    TrainingField.SHAPE_HEADS: trans_late("TrainingTexts", "num_attention_heads (GPT-2: n_head)."),
    TrainingField.SHAPE_KV_HEADS: trans_late(
        "TrainingTexts", "num_key_value_heads (grouped-query attention; GPT-2: the heads)."
    ),
    TrainingField.SHAPE_INTERMEDIATE: trans_late(
        "TrainingTexts", "intermediate_size of the MLP (GPT-2: n_inner, usually 4 × hidden)."
    ),
    TrainingField.SHAPE_VOCAB: trans_late("TrainingTexts", "vocab_size."),
    TrainingField.SHAPE_POSITIONS: trans_late(
        "TrainingTexts",
        "max_position_embeddings (GPT-2: n_positions): GPT-2 cannot train longer sequences.",
    ),
    TrainingField.LORA_RANK: trans_late(
        "TrainingTexts",
        "The rank r of the adapters: each adapted projection gains r × (in + out) "
        "trained parameters per layer.",
    ),
    TrainingField.TRAINABLE_PARAMS: trans_late(
        "TrainingTexts",
        "The adapters' parameters (PEFT's “trainable params”), for a model whose "
        "projections the app does not know.",
    ),
    TrainingField.SEQ_LEN: trans_late(
        "TrainingTexts",
        "Tokens per sample: the activation per sample, the tokens per step and the "
        "time per step depend on it.",
    ),
    TrainingField.TARGET_SEQ: trans_late(
        "TrainingTexts",
        "Encoder-decoders: the target (decoder) length (empty: the sequence length).",
    ),
    TrainingField.IMAGES: trans_late(
        "TrainingTexts",
        "Images in one training sample (empty: one). Their tokens are part of the "
        "sequence length (LLaVA 1.5: 576 per image; Gemma 3: 256; Qwen2-VL: one per "
        "28 × 28 pixels).",
    ),
    TrainingField.IMAGE_WIDTH: trans_late(
        "TrainingTexts",
        "Width of each image as the model's processor hands it over (empty: the model's own size).",
    ),
    TrainingField.IMAGE_HEIGHT: trans_late(
        "TrainingTexts",
        "Height of each image as the model's processor hands it over (empty: the "
        "model's own size).",
    ),
    TrainingField.GPU_MEMORY: trans_late(
        "TrainingTexts", "Memory one GPU can use for training, in decimal gigabytes (C)."
    ),
    TrainingField.GPUS: trans_late(
        "TrainingTexts",
        "Data-parallel replicas, each with its own micro-batch (g). With tensor "
        "parallelism and pipeline stages the world is g × tensor × pipeline GPUs.",
    ),
    TrainingField.NODES: trans_late(
        "TrainingTexts",
        "Machines the GPUs are spread over, evenly (the launch lines, the network "
        "the collectives cross). Empty: the fewest nodes of at most 8 GPUs each.",
    ),
    TrainingField.CPU_MEMORY: trans_late(
        "TrainingTexts",
        "Each node's CPU memory (RAM), in GB (optional; empty: not given). What DeepSpeed "
        "keeps on the CPU must fit in it — the offloaded optimizer states (and "
        "parameters) and the fp32 model each process loads: the plan says whether it "
        "does, and the search leaves out what a node cannot hold.",
    ),
    TrainingField.TENSOR_PARALLEL: trans_late(
        "TrainingTexts",
        "GPUs each layer is split over (Megatron tensor parallelism; sequence "
        "parallelism below), inside one node: weights and activations per GPU shrink by "
        "this factor.",
    ),
    TrainingField.PIPELINE_STAGES: trans_late(
        "TrainingTexts",
        "Groups of layers in sequence (1F1B schedule): the accumulation steps are the "
        "micro-batches that fill the pipeline, and its idle share is (p − 1)/(a + p − 1).",
    ),
    TrainingField.VIRTUAL_STAGES: trans_late(
        "TrainingTexts",
        "Interleaved 1F1B (Megatron's virtual pipeline stages): model chunks per GPU "
        "(v). The bubble shrinks to (p − 1)/v micro-steps, the pipeline sends grow v "
        "times. Only with pipeline stages; 1: plain 1F1B.",
    ),
    TrainingField.EXPERT_PARALLEL: trans_late(
        "TrainingTexts",
        "A mixture of experts: the data-parallel GPUs each sparse layer's routed "
        "experts are spread over (Megatron's expert model parallelism). Each GPU "
        "holds experts/E of them and sends its tokens to theirs and back on every "
        "micro-step. It must divide the data-parallel GPUs and the experts; 1: every "
        "GPU holds every expert.",
    ),
    TrainingField.EXPERT_TENSOR_PARALLEL: trans_late(
        "TrainingTexts",
        "Megatron's --expert-tensor-parallel-size: the GPUs each routed expert is split "
        "over. Groups of expert-parallel × this many GPUs then tile each pipeline "
        "stage's tensor × context × data-parallel GPUs, so expert parallelism may take "
        "tensor-parallel GPUs (MoE parallel folding). Empty: the tensor-parallel size.",
    ),
    TrainingField.CONTEXT_PARALLEL: trans_late(
        "TrainingTexts",
        "Context parallelism (Megatron's --context-parallel-size): the GPUs each "
        "sequence is split over. Each keeps 1/c of the activations and passes its "
        "keys and values to the others on every layer (ring attention). It adds GPUs "
        "(world = data × tensor × pipeline × c), and the sequence length must be "
        "divisible by 2·c; 1: none.",
    ),
    TrainingField.LINK: trans_late(
        "TrainingTexts",
        "Bandwidth between the GPUs of one node, per GPU and direction, in GB/s "
        "(NVLink, PCIe) (optional; empty: the card's figure).",
    ),
    TrainingField.NETWORK: trans_late(
        "TrainingTexts",
        "Bandwidth between nodes, per GPU and direction, in GB/s (optional; empty: "
        "the card's typical network; 200 Gb/s InfiniBand per GPU = 25 GB/s).",
    ),
    TrainingField.TARGET: trans_late(
        "TrainingTexts", "Effective batch you want per optimizer step (T), summed over all GPUs."
    ),
    TrainingField.MICRO_BATCH: shared.MICRO_BATCH_HINT,
    TrainingField.ACTIVATION: trans_late(
        "TrainingTexts",
        "Activation memory of one sample of the whole model on one GPU (A). Empty: "
        "estimated from the model at the sequence length. Type a measured figure "
        "to use it instead.",
    ),
    TrainingField.OTHER_MEMORY: trans_late(
        "TrainingTexts",
        "Everything on one GPU except activations (O). Empty: the model states as "
        "the chosen framework counts them for this setup, plus the framework overhead.",
    ),
    TrainingField.OVERHEAD: trans_late(
        "TrainingTexts",
        "CUDA context and allocator slack per GPU; about 1 GB is a cautious figure.",
    ),
    TrainingField.DATASET: trans_late(
        "TrainingTexts",
        "Training samples in one epoch (optional): gives the optimizer steps per epoch.",
    ),
    TrainingField.EPOCHS: trans_late(
        "TrainingTexts",
        "Passes over the dataset (optional; empty: one): with the dataset size, gives "
        "the run's steps, time, GPU-hours and cost.",
    ),
    TrainingField.TOKENS: trans_late(
        "TrainingTexts",
        "Tokens to train on (optional): gives the run's steps, time, GPU-hours and cost.",
    ),
    TrainingField.PRICE: trans_late(
        "TrainingTexts",
        "What one GPU costs per hour, in any currency (optional): gives the run's cost.",
    ),
    TrainingField.GOODPUT: trans_late(
        "TrainingTexts",
        "Share of the wall-clock time spent training (optional; empty: 100 %): "
        "restarts, checkpoints and lost work take the rest. It stretches the run's "
        "time, GPU-hours and cost, not the step.",
    ),
    TrainingField.EFFICIENCY: trans_late(
        "TrainingTexts",
        "One share of the card's dense peak for every kernel (optional). Empty: the "
        "efficiency is modelled from the model's shape — the products' width, the "
        "tokens per micro-step, the attention kernel. Type a measured "
        "figure to use it instead.",
    ),
    TrainingField.CUSTOM_TFLOPS: trans_late(
        "TrainingTexts",
        "The card's dense peak in the precision you train in, in TFLOPS (10¹² FLOP/s), "
        "without sparsity.",
    ),
    TrainingField.CUSTOM_BANDWIDTH: trans_late(
        "TrainingTexts", "The card's memory bandwidth, in GB/s."
    ),
    TrainingField.CUSTOM_LINK: trans_late(
        "TrainingTexts",
        "The link between two GPUs of one node, per direction, in GB/s (NVLink, PCIe).",
    ),
    TrainingField.CUSTOM_NETWORK: trans_late(
        "TrainingTexts",
        "The network between nodes, per GPU and per direction, in GB/s "
        "(200 Gb/s InfiniBand = 25 GB/s).",
    ),
    TrainingField.REFERENCE_LR: trans_late(
        "TrainingTexts", "A learning rate known to work (optional), at the reference batch size."
    ),
    TrainingField.REFERENCE_BATCH: trans_late(
        "TrainingTexts", "The effective batch the reference learning rate was tuned for (optional)."
    ),
}

#: the hints of the layout's Megatron switches (the other choices' are in
#: ``TrainingTexts.choice_hint``)
CHOICE_HINTS: dict[Choice, Phrase] = {
    Choice.SEQUENCE_PARALLEL: trans_late(
        "TrainingTexts",
        "Megatron's sequence parallelism (--sequence-parallel), beside tensor "
        "parallelism: the layer norms, dropouts and residuals of each tensor-parallel "
        "group run on 1/t of the tokens instead of on all of them on every GPU. Under "
        "Megatron their activations shrink t times; under every framework that "
        "element-wise work is split instead of repeated.",
    ),
    Choice.TP_COMM_OVERLAP: trans_late(
        "TrainingTexts",
        "Megatron's --tp-comm-overlap: Transformer Engine runs sequence parallelism's "
        "all-gathers and reduce-scatters inside the matrix products they feed "
        "(NeMo's and Megatron-Bridge's recipes turn it on for tensor-parallel models "
        "on H100 and later). Only the communication longer than the products shows "
        "in the step's time. It needs sequence parallelism.",
    ),
    Choice.GRAD_REDUCE_BF16: trans_late(
        "TrainingTexts",
        "Megatron's --grad-reduce-in-bf16: the gradients accumulate in a bf16 buffer "
        "and are reduced in bf16, not fp32 — 2 bytes a parameter less on every GPU "
        "and half the data-parallel traffic, at some precision (Megatron-Bridge's "
        "performance recipes set it). Only in bf16 training.",
    ),
}
