"""English names of the activation breakdown, its stacks and its assumptions.

The view-model translates them (context "Activation"); the command line prints them as
they are.
"""

from __future__ import annotations

from gradacc_desktop.core.memory.activation_types import Assumption, Part, StackKind
from gradacc_desktop.core.text import trans_late

STACK_TEXT: dict[StackKind, str] = {
    StackKind.LAYERS: trans_late("Activation", "Per layer"),
    StackKind.SLIDING: trans_late("Activation", "Per sliding-window layer"),
    StackKind.GLOBAL: trans_late("Activation", "Per full-attention layer"),
    StackKind.DENSE: trans_late("Activation", "Per dense layer"),
    StackKind.SPARSE: trans_late("Activation", "Per mixture-of-experts layer"),
    StackKind.ENCODER: trans_late("Activation", "Per encoder layer"),
    StackKind.DECODER: trans_late("Activation", "Per decoder layer"),
    StackKind.VISION: trans_late("Activation", "Per vision-tower layer"),
    StackKind.VISION_WINDOW: trans_late("Activation", "Per windowed vision-tower layer"),
    StackKind.TEXT: trans_late("Activation", "Per text-tower layer"),
}

# Short names of the parts and the assumptions, in English; the view-model translates
# them (context "Activation"), the command line prints them as they are.
PART_TEXT: dict[Part, str] = {
    Part.ATTN_NORM: trans_late("Activation", "Attention norm"),
    Part.QKV_PROJ_INPUT: trans_late("Activation", "Q/K/V projection input"),
    Part.ATTN_QKV: trans_late("Activation", "Q, K and V"),
    Part.ATTN_SOFTMAX: trans_late("Activation", "Attention scores (softmax)"),
    Part.ATTN_DROPOUT: trans_late("Activation", "Attention dropout"),
    Part.ATTN_FUSED: trans_late("Activation", "Fused attention log-sum-exp"),
    Part.ATTN_KERNEL_OUTPUT: trans_late("Activation", "Fused attention output"),
    Part.ATTN_OUT_PROJ_INPUT: trans_late("Activation", "Attention output projection input"),
    Part.ATTN_RESID_DROPOUT: trans_late("Activation", "Attention residual dropout mask"),
    Part.MLP_NORM: trans_late("Activation", "MLP norm"),
    Part.MLP_IN_PROJ_INPUT: trans_late("Activation", "MLP up projection input"),
    Part.MLP_ACTIVATION: trans_late("Activation", "MLP activation function"),
    Part.MLP_OUT_PROJ_INPUT: trans_late("Activation", "MLP down projection input"),
    Part.MLP_RESID_DROPOUT: trans_late("Activation", "MLP residual dropout mask"),
    Part.ATTN_QK_NORM: trans_late("Activation", "Q and K norms"),
    Part.ATTN_ROTARY: trans_late("Activation", "Rotary embedding (per layer)"),
    Part.ATTN_MASK: trans_late("Activation", "Attention mask (per layer)"),
    Part.ATTN_SOFTCAP: trans_late("Activation", "Attention soft-capping"),
    Part.ATTN_POSITION_BIAS: trans_late("Activation", "Position bias (per layer)"),
    Part.ATTN_POST_NORM: trans_late("Activation", "Post-attention norm"),
    Part.MLP_POST_NORM: trans_late("Activation", "Post-MLP norm"),
    Part.CROSS_ATTN_NORM: trans_late("Activation", "Cross-attention norm"),
    Part.CROSS_ATTN_QKV: trans_late("Activation", "Cross-attention Q, K and V"),
    Part.CROSS_ATTN_SCORES: trans_late("Activation", "Cross-attention scores"),
    Part.CROSS_ATTN_OUT_PROJ_INPUT: trans_late(
        "Activation", "Cross-attention output projection input"
    ),
    Part.ROUTER: trans_late("Activation", "Router logits and top-k"),
    Part.EXPERT_DISPATCH: trans_late("Activation", "Tokens dispatched to experts"),
    Part.EXPERT_MLP: trans_late("Activation", "Expert MLPs"),
    Part.SHARED_EXPERT: trans_late("Activation", "Shared expert"),
    Part.RESIDUAL: trans_late("Activation", "Residual and scaling copies"),
    Part.OTHER_LAYER: trans_late("Activation", "Other tensors of the layer"),
    Part.LAYER_CHECKPOINT: trans_late("Activation", "Layer input (checkpoint)"),
    Part.KEPT_PRODUCTS: trans_late("Activation", "Every second product's output (per-op)"),
    Part.EMBEDDINGS: trans_late("Activation", "Embeddings"),
    Part.ROTARY: trans_late("Activation", "Rotary cos/sin tables"),
    Part.CAUSAL_MASK: trans_late("Activation", "Causal mask (checkpoint input)"),
    Part.FINAL_NORM: trans_late("Activation", "Final norm"),
    Part.LM_HEAD_INPUT: trans_late("Activation", "Output projection input"),
    Part.ENCODER_OUTPUT: trans_late("Activation", "Encoder output"),
    Part.SHARED_MASK: trans_late("Activation", "Attention mask (shared by the layers)"),
    Part.SHARED_POSITION_BIAS: trans_late("Activation", "Position bias (shared by the layers)"),
    Part.EMBEDDING_PROJECTION: trans_late("Activation", "Embedding projection input"),
    Part.AUX_LOSS: trans_late("Activation", "Load-balancing loss"),
    Part.MLM_HEAD: trans_late("Activation", "Masked-LM head transform"),
    Part.TASK_HEAD: trans_late("Activation", "Task head and its loss"),
    Part.LOGIT_SOFTCAP: trans_late("Activation", "Final logit soft-capping"),
    Part.VISION_EMBEDDINGS: trans_late("Activation", "Image patch embedding"),
    Part.VISION_POOLING: trans_late("Activation", "Vision tower pooling and norms"),
    Part.VISION_PROJECTOR: trans_late("Activation", "Multi-modal projector and image merge"),
    Part.OTHER: trans_late("Activation", "Other tensors"),
    Part.LOSS: trans_late("Activation", "Logits and loss"),
    Part.FUSED_LOSS: trans_late("Activation", "Fused loss: input gradient and labels"),
    Part.RECOMPUTED_LAYER: trans_late(
        "Activation",
        "One layer recomputed in the backward pass",
    ),
    Part.RECOMPUTED_ATTENTION: trans_late(
        "Activation",
        "One attention core recomputed in the backward pass",
    ),
    Part.LOGITS_TRANSIENT: trans_late("Activation", "Logits around the loss"),
    Part.LOSS_CHUNK: trans_late("Activation", "One chunk of logits (fused loss)"),
}


ASSUMPTION_TEXT: dict[Assumption, str] = {
    Assumption.PER_SAMPLE: trans_late(
        "Activation",
        "Bytes per sample (micro-batch b = 1); tensors shared by a batch (rotary "
        "tables, position ids, causal mask) are counted in full.",
    ),
    Assumption.HEAD_DIM: trans_late("Activation", "Head size is hidden size / heads."),
    Assumption.NO_PIPELINE: trans_late(
        "Activation",
        "No pipeline parallelism: one stage holds every layer.",
    ),
    Assumption.PAPER_TABLE2: trans_late(
        "Activation",
        "Korthikanti et al. 2022, Table 2: 16-bit activations (scaled by the "
        "chosen data type) and 1-byte dropout masks.",
    ),
    Assumption.PAPER_LLAMA_DERIVED: trans_late(
        "Activation",
        "Llama family in the paper's accounting: RMSNorm inputs, Q and K/V with "
        "the key/value heads, SwiGLU keeps the gate and up outputs, the SiLU "
        "output and the product (8·s·i bytes); attention dropout only, no "
        "residual dropout.",
    ),
    Assumption.PAPER_OUTSIDE_LAYERS: trans_late(
        "Activation",
        "Outside the layers (paper §4.3): embedding dropout mask sbh/t, final "
        "norm input 2sbh/t, output projection input 2sbh/t, fp32 logits 4sbv/t.",
    ),
    Assumption.PAPER_FULL_CHECKPOINT: trans_late(
        "Activation",
        "Full recomputation keeps 2sbh per layer (Table 2).",
    ),
    Assumption.PAPER_NO_DROPOUT: trans_late(
        "Activation",
        "Without dropout the masks and the separate dropout output are not "
        "stored (the paper's terms with dropout removed).",
    ),
    Assumption.HF_PURE_DTYPE: trans_late(
        "Activation",
        "Model weights cast to the data type (model.to(dtype)), no autocast.",
    ),
    Assumption.HF_GELU_NEW: trans_late(
        "Activation",
        "GPT-2 uses gelu_new (tanh formula in Python): its element-wise "
        "operations keep four tensors of s·i, plus the input of c_proj.",
    ),
    Assumption.HF_LAYERNORM: trans_late(
        "Activation",
        "LayerNorm keeps its input plus the mean and rstd of every token.",
    ),
    Assumption.HF_RMSNORM_FP32: trans_late(
        "Activation",
        "LlamaRMSNorm upcasts to fp32: it keeps the fp32 input, the fp32 rsqrt "
        "of every token and the normalised tensor in the model's data type.",
    ),
    Assumption.HF_EAGER_GPT2: trans_late(
        "Activation",
        "GPT-2 eager attention: softmax in the model's data type, its output "
        "(a·s² per layer) kept; the fused QKV output kept once for Q, K and V.",
    ),
    Assumption.HF_EAGER_LLAMA: trans_late(
        "Activation",
        "Llama eager attention: softmax in fp32 (kept) then cast (kept by the "
        "product with V); repeat_kv copies K and V to every head.",
    ),
    Assumption.HF_SDPA: trans_late(
        "Activation",
        "SDPA uses a fused (flash / memory-efficient) kernel: it keeps Q, K, V, "
        "the output and an fp32 log-sum-exp per head and token; GQA without "
        "copying K/V.",
    ),
    Assumption.HF_SDPA_DROPOUT_CPU: trans_late(
        "Activation",
        "On CPU, SDPA with dropout falls back to the math path in fp32: copies "
        "of Q, K and V and three fp32 s² tensors per head.",
    ),
    Assumption.HF_ROTARY: trans_late(
        "Activation",
        "The rotary embedding keeps only cos and sin, shared by every layer.",
    ),
    Assumption.HF_SWIGLU: trans_late(
        "Activation",
        "SwiGLU: SiLU keeps its input; the product keeps the SiLU output and the "
        "up projection; the down projection keeps the product.",
    ),
    Assumption.HF_LOSS_FP32: trans_late(
        "Activation",
        "Loss: logits cast to fp32 (logits.float()), the log_softmax output kept "
        "in fp32 (4·s·V bytes) plus the int64 labels.",
    ),
    Assumption.FUSED_LOSS: trans_late(
        "Activation",
        "Fused linear cross-entropy (Liger): the head and the loss run chunk by chunk "
        "and the gradient of the head's input is made in the forward pass, so the whole "
        "logits are never kept; it keeps that gradient (s·h in the data type) and the "
        "labels, and one chunk of logits (at most 2·s·h) at a time.",
    ),
    Assumption.FUSED_SOFTMAX: trans_late(
        "Activation",
        "Megatron's unfused attention: its fused scale-mask-softmax kernel keeps only "
        "its output, in the data type (a·s² values per layer), where the Hugging Face "
        "modules keep an fp32 softmax and its cast.",
    ),
    Assumption.HF_CHECKPOINTING: trans_late(
        "Activation",
        "Full recomputation = gradient checkpointing of every decoder layer "
        "(non-reentrant): each layer keeps its input hidden states.",
    ),
    Assumption.HF_SELECTIVE_MODELLED: trans_late(
        "Activation",
        "Selective recomputation is not built into transformers: modelled as "
        "dropping the attention core's internal tensors.",
    ),
    Assumption.PER_OP: trans_late(
        "Activation",
        "Per-op selective recomputation (torchtitan): each layer keeps its input, every "
        "second product's output and the attention's output; the rest of its forward "
        "runs again in the backward.",
    ),
    Assumption.DROPOUT_MASK_CUDA: trans_late(
        "Activation",
        "CUDA dropout (fused native_dropout) keeps a 1-byte boolean mask.",
    ),
    Assumption.DROPOUT_MASK_CPU: trans_late(
        "Activation",
        "CPU dropout multiplies by a noise tensor kept in the activation data type.",
    ),
    Assumption.TENSOR_PARALLEL: trans_late(
        "Activation",
        "Tensor parallelism as in Megatron-LM: attention heads, MLP intermediate "
        "size and vocabulary split over t; norms, projection inputs and residual "
        "dropout masks split only with sequence parallelism.",
    ),
    Assumption.VOCAB_PADDED: trans_late(
        "Activation",
        "Vocabulary padded up to a multiple of t for the logits.",
    ),
    Assumption.PEAK_MODEL: trans_late(
        "Activation",
        "Peak = saved for the backward pass + recomputation transient + logits "
        "transient (a conservative upper bound).",
    ),
}
