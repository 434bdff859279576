"""The training description's fixed words: field labels and hints, the choices, the
sections' titles."""

from __future__ import annotations

from decimal import Decimal
from typing import final

from gradacc_desktop.core.attention import AttentionKernel
from gradacc_desktop.core.batch import Rounding
from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.memory import (
    Family,
    LoraTargets,
    Offload,
    Precision,
    ZeroStage,
)
from gradacc_desktop.core.memory.setup import SERVER_GPUS
from gradacc_desktop.core.precision import MasterWeights
from gradacc_desktop.core.time import CUSTOM_ID, GpuCard, Recompute
from gradacc_desktop.core.training.description import Method, Optimizer
from gradacc_desktop.core.training.problems import ProblemKind, problem_text
from gradacc_desktop.viewmodels import shared_texts as shared
from gradacc_desktop.viewmodels.formats import PlanFormats
from gradacc_desktop.viewmodels.formatting import Translating
from gradacc_desktop.viewmodels.shared_texts import ATTENTION_KERNEL, say
from gradacc_desktop.viewmodels.training.fields import (
    CONFIG_MODEL,
    NO_MODEL,
    PARAMS_MODEL,
    SHAPE_MODEL,
    Choice,
    TrainingField,
)
from gradacc_desktop.viewmodels.training.hints import CHOICE_HINTS, FIELD_HINTS
from gradacc_desktop.viewmodels.training.picking import Heading, grouped, model_size


def plain(text: str, mnemonic: bool) -> str:
    return text if mnemonic else text.replace("&", "")


@final
class TrainingTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    # -- the sections -------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Training description")

    def section_model(self) -> str:
        return self.tr("Model")

    def section_method(self) -> str:
        return self.tr("Method")

    def section_hardware(self) -> str:
        return self.tr("GPUs")

    def section_layout(self) -> str:
        return self.tr("Parallelism and memory savings")

    def section_batch(self) -> str:
        return self.tr("Batch")

    def section_memory(self) -> str:
        return self.tr("Memory per GPU")

    def section_run(self) -> str:
        return self.tr("The run")

    # -- fields ---------------------------------------------------------------------
    def field_label(self, field: TrainingField, mnemonic: bool = False) -> str:
        text = {
            TrainingField.MODEL_PARAMS: self.tr("Parameters"),
            TrainingField.SHAPE_HIDDEN: self.tr("Hidden size"),
            TrainingField.SHAPE_LAYERS: self.tr("Layers"),
            TrainingField.SHAPE_HEADS: self.tr("Attention heads"),
            TrainingField.SHAPE_KV_HEADS: self.tr("Key/value heads"),
            TrainingField.SHAPE_INTERMEDIATE: self.tr("MLP size"),
            TrainingField.SHAPE_VOCAB: self.tr("Vocabulary"),
            TrainingField.SHAPE_POSITIONS: self.tr("Context length"),
            TrainingField.LORA_RANK: self.tr("LoRA ran&k"),
            TrainingField.TRAINABLE_PARAMS: self.tr("Adapters' parameters"),
            TrainingField.SEQ_LEN: self.tr("Se&quence length"),
            TrainingField.TARGET_SEQ: self.tr("Target length"),
            TrainingField.IMAGES: say(shared.IMAGES),
            TrainingField.IMAGE_WIDTH: say(shared.IMAGE_WIDTH),
            TrainingField.IMAGE_HEIGHT: say(shared.IMAGE_HEIGHT),
            TrainingField.GPU_MEMORY: self.tr("Usable memory per GPU"),
            TrainingField.GPUS: say(shared.GPUS),
            TrainingField.NODES: self.tr("Nodes (machines)"),
            TrainingField.CPU_MEMORY: say(shared.CPU_MEMORY),
            TrainingField.TENSOR_PARALLEL: self.tr("&Tensor parallel"),
            TrainingField.PIPELINE_STAGES: self.tr("Pipeline stages"),
            TrainingField.VIRTUAL_STAGES: self.tr("Virtual stages per GPU"),
            TrainingField.EXPERT_PARALLEL: self.tr("Expert-parallel GPUs"),
            TrainingField.EXPERT_TENSOR_PARALLEL: self.tr("Expert tensor-parallel GPUs"),
            TrainingField.CONTEXT_PARALLEL: self.tr("Context-parallel GPUs"),
            TrainingField.LINK: self.tr("L&ink between GPUs (GB/s)"),
            TrainingField.NETWORK: self.tr("Network between nodes (GB/s)"),
            TrainingField.TARGET: self.tr("Target &effective batch"),
            TrainingField.MICRO_BATCH: say(shared.MICRO_BATCH),
            TrainingField.ACTIVATION: say(shared.ACTIVATION),
            TrainingField.OTHER_MEMORY: self.tr("&Other memory per GPU"),
            TrainingField.OVERHEAD: self.tr("Framework overhead"),
            TrainingField.DATASET: self.tr("Dataset size"),
            TrainingField.EPOCHS: self.tr("How many epochs"),
            TrainingField.TOKENS: self.tr("Toke&n budget"),
            TrainingField.PRICE: self.tr("Price per GPU-hour"),
            TrainingField.GOODPUT: self.tr("Goodput (%)"),
            TrainingField.EFFICIENCY: self.tr("GPU efficiency (%)"),
            TrainingField.CUSTOM_TFLOPS: self.tr("Dense &peak (TFLOPS)"),
            TrainingField.CUSTOM_BANDWIDTH: self.tr("&Memory bandwidth (GB/s)"),
            TrainingField.CUSTOM_LINK: self.tr("&Link between GPUs (GB/s)"),
            TrainingField.CUSTOM_NETWORK: self.tr("&Network between nodes (GB/s)"),
            TrainingField.REFERENCE_LR: self.tr("Reference learning rate"),
            TrainingField.REFERENCE_BATCH: self.tr("Reference batch size"),
        }[field]
        return plain(text, mnemonic)

    def field_hint(self, field: TrainingField) -> str:
        return say(FIELD_HINTS[field])  # in its phrase's context (one is shared)

    # -- choices ----------------------------------------------------------------------
    def choice_label(self, choice: Choice, mnemonic: bool = False) -> str:
        text = {
            Choice.MODEL: self.tr("Mo&del"),
            Choice.FAMILY: self.tr("Family"),
            Choice.METHOD: self.tr("What is trained"),
            Choice.LORA_TARGETS: self.tr("Adapted layers"),
            Choice.OPTIMIZER: self.tr("Optimizer"),
            Choice.PRECISION: self.tr("Precision"),
            Choice.MASTER_WEIGHTS: self.tr("Master weights"),
            Choice.FP8: self.tr("FP&8 matrix products"),
            Choice.VISION_FROZEN: say(shared.VISION_FROZEN),
            Choice.ATTENTION: self.tr("Attention kernel"),
            Choice.FUSED_LOSS: self.tr("Fused loss (Liger)"),
            Choice.CARD: self.tr("GPU model"),
            Choice.SEQUENCE_PARALLEL: self.tr("Sequence parallelism"),
            Choice.TP_COMM_OVERLAP: self.tr("Overlap TP communication"),
            Choice.GRAD_REDUCE_BF16: self.tr("Reduce gradients in bf16"),
            Choice.FRAMEWORK: self.tr("Framework"),
            Choice.ZERO: self.tr("&ZeRO stage"),
            Choice.OFFLOAD: self.tr("C&PU offload"),
            Choice.RECOMPUTE: self.tr("Re&computation"),
            Choice.ROUNDING: self.tr("Rounding"),
            Choice.RECOMMEND: self.tr("&Recommend"),
        }[choice]
        return plain(text, mnemonic)

    def choice_hint(self, choice: Choice) -> str:
        if choice in CHOICE_HINTS:  # the layout's Megatron switches (hints.py)
            return say(CHOICE_HINTS[choice])
        return {
            Choice.MODEL: self.tr(
                "The model every figure is derived from: a bundled model, a config.json you "
                "open, sizes typed in, or just a parameter count. Type a name or a size to "
                "narrow the list."
            ),
            Choice.FAMILY: self.tr("GPT-2 (LayerNorm, GeLU MLP) or Llama (RMSNorm, SwiGLU)."),
            Choice.METHOD: self.tr(
                "Every parameter, or LoRA adapters on a frozen base (QLoRA: the base in 4-bit "
                "NF4 with double quantization)."
            ),
            Choice.LORA_TARGETS: self.tr("Which projections of every layer LoRA adapts."),
            Choice.OPTIMIZER: self.tr(
                "Adam keeps two fp32 states per trained parameter, 8-bit Adam two bytes, SGD "
                "with momentum one fp32 state."
            ),
            Choice.PRECISION: self.tr(
                "The numbers training computes in: mixed precision keeps fp32 master weights."
            ),
            Choice.MASTER_WEIGHTS: self.tr(
                "What the optimizer updates in bf16 training. fp32: a master copy of the "
                "weights, its gradients and the optimizer's states in fp32 (mixed precision). "
                "bf16: the same copy, gradients and states in bf16 (DeepSpeed's "
                "bf16_master_weights_and_grads with bf16_optimizer_states). None: pure bf16, "
                "the optimizer updates the bf16 weights and keeps its states in bf16 "
                "(torchtune's dtype bf16, LLaMA-Factory's pure_bf16, FSDP2 without a "
                "mixed-precision policy). Adam's states then take 4 bytes per parameter "
                "instead of 8."
            ),
            Choice.VISION_FROZEN: self.tr(
                "The vision tower does not train (requires_grad false): it keeps nothing for "
                "the backward pass, except what gradient checkpointing's hooks keep, and has "
                "no gradients or optimizer states."
            ),
            Choice.FP8: self.tr(
                "Matrix products in FP8 (Transformer Engine) around 16-bit weights, gradients "
                "and activations: the card's FP8 peak, the memory of bf16/fp16 training. Only "
                "with bf16 or fp16 on a card with an FP8 peak (Hopper, Ada, Blackwell, MI300X)."
            ),
            Choice.ATTENTION: self.tr(
                "A fused kernel (PyTorch's SDPA, FlashAttention 2) keeps no s² scores and runs "
                "at its own share of the peak. FlashAttention 3 (Hopper) and 4 (Blackwell), "
                "transformers' flash_attention_3 and flash_attention_4, keep the same and run "
                "faster on long sequences; before Hopper they are FlashAttention 2. Under "
                "Megatron the fused kernel is Transformer Engine's, cuDNN's flash attention "
                "from Hopper on, as fast as FlashAttention 3/4. Eager "
                "attention writes every score to memory and back: more activation memory and "
                "more time."
            ),
            Choice.FUSED_LOSS: self.tr(
                "The head and the loss run over chunks of tokens (Liger's fused linear "
                "cross-entropy: use_liger_kernel in transformers and TRL, "
                "liger_fused_linear_cross_entropy with axolotl's LigerPlugin, "
                "enable_liger_kernel in LLaMA-Factory): a language model's whole logits, "
                "vocabulary × tokens, are never kept. Much less activation memory at long "
                "sequences and large vocabularies; not with Megatron."
            ),
            Choice.CARD: self.tr("Its usable memory and its speed."),
            Choice.FRAMEWORK: self.tr(
                "What runs the step. It decides how memory is counted — the model states "
                "(DeepSpeed's estimators; Megatron's fp32 gradient buffer and distributed "
                "optimizer; FSDP2's per-parameter shards), the activations with tensor "
                "parallelism, the allocator's reserve — and how gradients move: in which "
                "precision, and whether their reduction overlaps the backward pass."
            ),
            Choice.ZERO: self.tr(
                "How much of the optimizer states, gradients and weights is sharded over the "
                "data-parallel GPUs."
            ),
            Choice.OFFLOAD: self.tr("What ZeRO-Offload keeps in the CPU's memory."),
            Choice.RECOMPUTE: self.tr(
                "Full recomputation keeps only each layer's input and recomputes the rest in "
                "the backward pass: far less activation memory, a third more compute. "
                "Selective recomputation (Megatron's --recompute-granularity selective) "
                "recomputes only the attention core: it drops the s² scores eager attention "
                "keeps, for a little more compute. Per-op selective recomputation "
                "(torchtitan's, FSDP2) keeps every second product's output and the "
                "attention's, and recomputes the rest of each layer: about a third of the "
                "activation memory for a tenth more compute."
            ),
            Choice.ROUNDING: self.tr("How the accumulation steps round T / (b·g)."),
            Choice.RECOMMEND: self.tr(
                "Let the plan choose the largest micro-batch that fits and reaches the target."
            ),
        }[choice]

    def model_options(
        self, bundled: list[tuple[str, str]], config: str
    ) -> list[tuple[object, str]]:
        """(key, text) of the model choice: none, every bundled model (its label) under
        its family's heading, then under a heading of their own the opened config.json
        (when there is one), a typed shape, a parameter count."""
        options: list[tuple[object, str]] = [(NO_MODEL, self.tr("— choose a model —"))]
        options += grouped(bundled, self.tr("Other models"))
        own = self.tr("Your own model")
        options.append((Heading(own), own))
        if config:
            options.append((CONFIG_MODEL, self.tr("File: {name}").format(name=config)))
        options += [
            (SHAPE_MODEL, self.tr("Sizes typed in (GPT-2 or Llama)")),
            (PARAMS_MODEL, self.tr("A parameter count only")),
        ]
        return options

    def model_size(self, name: str) -> str:
        """A bundled model's size beside it in the picker ("70.6B"); empty for the rest."""
        return model_size(self._formats, name)

    def model_filter_hint(self) -> str:
        return self.tr("Type a name or size: qwen 7b")

    def model_filter_name(self) -> str:
        return self.tr("Filter the models")

    def model_list_name(self) -> str:
        return self.tr("Models")

    def no_model_matches(self, typed: str) -> str:
        return self.tr("No model matches “{typed}”. Esc keeps the model chosen.").format(
            typed=typed
        )

    def family_options(self) -> list[tuple[Family, str]]:
        return [(Family.LLAMA, "Llama"), (Family.GPT2, "GPT-2")]

    def method_options(self) -> list[tuple[Method, str]]:
        return [
            (Method.FULL, self.tr("Every parameter (full fine-tuning)")),
            (Method.LORA, self.tr("LoRA adapters (16-bit base)")),
            (Method.QLORA, self.tr("QLoRA adapters (4-bit NF4 base)")),
        ]

    def target_options(self) -> list[tuple[LoraTargets, str]]:
        return [
            (LoraTargets.QUERY_VALUE, self.tr("Query and value (the LoRA paper)")),
            (LoraTargets.ATTENTION, self.tr("All attention projections")),
            (LoraTargets.ALL_LINEAR, self.tr("All linear layers (QLoRA)")),
        ]

    def optimizer_options(self) -> list[tuple[Optimizer, str]]:
        return [
            (Optimizer.ADAM, self.tr("Adam / AdamW")),
            (Optimizer.ADAM_8BIT, self.tr("8-bit Adam (bitsandbytes)")),
            (Optimizer.SGD_MOMENTUM, self.tr("SGD with momentum")),
        ]

    def precision_options(self) -> list[tuple[Precision, str]]:
        return [
            (Precision.BF16, self.tr("bf16 mixed precision")),
            (Precision.FP16, self.tr("fp16 mixed precision")),
            (Precision.FP32, self.tr("fp32 (full precision)")),
        ]

    def master_options(self) -> list[tuple[MasterWeights, str]]:
        return [
            (MasterWeights.FP32, self.tr("fp32 (mixed precision)")),
            (MasterWeights.BF16, self.tr("bf16 (DeepSpeed)")),
            (MasterWeights.NONE, self.tr("None (pure bf16)")),
        ]

    def attention_options(self) -> list[tuple[AttentionKernel, str]]:
        return [
            (AttentionKernel.SDPA, self.tr("Fused: SDPA / FlashAttention 2")),
            (AttentionKernel.FLASH, say(ATTENTION_KERNEL[AttentionKernel.FLASH])),
            (AttentionKernel.EAGER, self.tr("Eager (scores through memory)")),
        ]

    def card_options(self, cards: tuple[GpuCard, ...]) -> list[tuple[str, str]]:
        """(id, name) of every card, then the custom card."""
        return [(c.id, c.name) for c in cards] + [(CUSTOM_ID, self.custom_card_name())]

    def custom_card_name(self) -> str:
        return self.tr("Custom")

    def off_now(self, kind: ProblemKind, **values: object) -> str:
        """Why a check box is off: the description's problem it would raise, in the
        core's words (what ``gradacc plan`` says of the same description)."""
        why = self._formats.said(problem_text(kind, **values))
        return self.tr("Off now: {why}").format(why=why)

    def framework_options(self) -> list[tuple[Framework, str]]:
        return [
            (Framework.DEEPSPEED, self.tr("DeepSpeed")),
            (Framework.MEGATRON, self.tr("Megatron")),
            (Framework.FSDP, self.tr("FSDP2 (PyTorch)")),
        ]

    def zero_options(self) -> list[tuple[ZeroStage, str]]:
        return [
            (ZeroStage.NONE, self.tr("None (plain data parallel)")),
            (ZeroStage.OPTIMIZER, self.tr("ZeRO-1 (optimizer states)")),
            (ZeroStage.GRADIENTS, self.tr("ZeRO-2 (+ gradients)")),
            (ZeroStage.WEIGHTS, self.tr("ZeRO-3 (+ weights)")),
        ]

    def offload_options(self) -> list[tuple[Offload, str]]:
        return [
            (Offload.NONE, self.tr("None")),
            (Offload.OPTIMIZER, self.tr("Optimizer states")),
            (Offload.ALL, self.tr("Optimizer states and parameters (ZeRO-3)")),
        ]

    def recompute_options(self) -> list[tuple[Recompute, str]]:
        return [
            (Recompute.NONE, self.tr("None (keep the activations)")),
            (Recompute.SELECTIVE, self.tr("Selective (attention core, Megatron)")),
            (Recompute.SELECTIVE_OP, self.tr("Per-op selective (torchtitan)")),
            (Recompute.FULL, self.tr("Full (recompute every layer: +1/3 compute)")),
        ]

    def rounding_options(self) -> list[tuple[Rounding, str]]:
        return [
            (Rounding.CEIL, self.tr("Round up (at least the target)")),
            (Rounding.FLOOR, self.tr("Round down (at most the target)")),
            (Rounding.NEAREST, self.tr("Nearest (ties round up)")),
        ]

    # -- buttons ----------------------------------------------------------------------
    def open_config_button(self) -> str:
        return say(shared.OPEN_CONFIG_BUTTON)

    def open_config_title(self) -> str:
        return say(shared.OPEN_CONFIG_TITLE)

    def config_filter(self) -> str:
        return self.tr("Model configurations (*.json);;All files (*)")

    def back_to_derived(self) -> str:
        return self.tr("Use the derived value")

    def states_details_button(self) -> str:
        return self.tr("Model states…")

    def card_speed_button(self) -> str:
        return self.tr("The card's speed…")

    def load_profile_label(self) -> str:
        return self.tr("Load measured profile…")

    def clear_profile_label(self) -> str:
        return self.tr("Discard profile")

    def modelled_efficiency(self) -> str:
        """The placeholder of the empty efficiency field."""
        return self.tr("modelled from the model's shape")

    def full_goodput(self) -> str:
        """The placeholder of the empty goodput field: all the time trains."""
        return self._formats.format(Decimal(100))

    def expert_tensor_not_given(self, tensor_parallel: Decimal | None) -> str:
        """The placeholder of the empty expert tensor-parallel field: the tensor-parallel
        size it stands for (Megatron's default)."""
        if tensor_parallel is None:
            return ""
        return self.tr("{size} (as tensor parallel)").format(
            size=self._formats.format(int(tensor_parallel))
        )

    def nodes_not_given(self, nodes: int | None) -> str:
        """The placeholder of the empty nodes field: the nodes the plan assumes (the
        fewest of at most 8 GPUs each)."""
        if nodes is None:
            return ""
        return self.tr("{nodes} (at most {per_node} GPUs each)").format(
            nodes=self._formats.format(nodes), per_node=self._formats.format(SERVER_GPUS)
        )

    def node_memory_not_given(self) -> str:
        """The placeholder of the empty CPU memory field: nothing is said of it."""
        return self.tr("not given")

    def card_link(self, gbps: Decimal) -> str:
        """The placeholder of an empty link field: the card's figure."""
        return self.tr("{value} (the card's)").format(value=self._formats.format(gbps))

    def held_batch(self, file_name: str, micro: int, steps: int, gpus: int) -> str:
        """Under the batch fields while a checked file's own pair is held."""
        f = self._formats.format
        return self.tr(
            "From “{name}”: micro-batch {b} and {a} accumulation steps, as the file sets "
            "them; the effective batch follows the data-parallel GPUs ({b} × {a} × {g} = "
            "{e}). Type a target or a micro-batch to set your own."
        ).format(name=file_name, b=f(micro), a=f(steps), g=f(gpus), e=f(micro * steps * gpus))
