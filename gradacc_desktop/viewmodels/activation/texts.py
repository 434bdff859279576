"""The estimator's fixed words — labels, hints, choices — and its numbers in the
active locale; the names of the parts and assumptions come from the core."""

from __future__ import annotations

from decimal import Decimal
from typing import final

from PySide6.QtCore import QCoreApplication, QLocale

from gradacc_desktop.core.memory import (
    ASSUMPTION_TEXT,
    PART_TEXT,
    Accounting,
    Assumption,
    Attention,
    Family,
    Part,
    Precision,
    Recompute,
)
from gradacc_desktop.core.memory.families import FAMILY_TEXT
from gradacc_desktop.viewmodels import shared_texts as shared
from gradacc_desktop.viewmodels.activation.fields import ActivationField, Control, Option
from gradacc_desktop.viewmodels.formatting import Translating, format_counted, format_number
from gradacc_desktop.viewmodels.shared_texts import say


@final
class ActivationTexts(Translating):
    def __init__(self, locale: QLocale) -> None:
        self.locale = locale

    def title(self) -> str:
        return self.tr("Estimate activation from the model")

    def label(self, control: Control, mnemonic: bool = False) -> str:
        text = {
            Option.PRESET: self.tr("&Model"),
            Option.FAMILY: self.tr("&Family"),
            ActivationField.HIDDEN: self.tr("&Hidden size"),
            ActivationField.LAYERS: self.tr("&Layers"),
            ActivationField.HEADS: self.tr("Attention h&eads"),
            ActivationField.KV_HEADS: self.tr("&Key/value heads"),
            ActivationField.INTERMEDIATE: self.tr("MLP &intermediate size"),
            ActivationField.VOCAB: self.tr("&Vocabulary size"),
            ActivationField.SEQ: self.tr("&Sequence length"),
            ActivationField.TARGET_SEQ: self.tr("Tar&get length"),
            Option.DTYPE: self.tr("&Data type"),
            Option.ATTENTION: self.tr("&Attention"),
            Option.RECOMPUTE: self.tr("&Recomputation"),
            ActivationField.TENSOR_PARALLEL: self.tr("&Tensor-parallel size"),
            Option.SEQUENCE_PARALLEL: self.tr("Se&quence parallelism"),
            Option.DROPOUT: self.tr("Dro&pout enabled"),
            Option.PADDED: self.tr("Padded &batches (attention mask)"),
            Option.USE_CACHE: self.tr("Key/value cache &while training (use_cache)"),
            Option.FUSED_LOSS: self.tr("Fused loss (Liger)"),
            # no access key: the alphabet is spent; they follow the sequence length in
            # the tab order, shown only for a model with a vision tower
            ActivationField.IMAGES: say(shared.IMAGES),
            ActivationField.IMAGE_WIDTH: say(shared.IMAGE_WIDTH),
            ActivationField.IMAGE_HEIGHT: say(shared.IMAGE_HEIGHT),
            Option.VISION_FROZEN: say(shared.VISION_FROZEN),
            Option.PROFILE: self.tr("Accounting pr&ofile"),
        }[control]
        return text if mnemonic else text.replace("&", "")

    def hint(self, control: Control) -> str:
        return {
            Option.PRESET: self.tr(
                "A popular model (from its published config.json), a config.json you opened, "
                "or Custom to type the sizes of a GPT-2 or Llama model."
            ),
            Option.FAMILY: self.tr(
                "The profile that counts the model's tensors. GPT-2: LayerNorm, GeLU MLP, one "
                "key/value head per attention head. Llama: RMSNorm, SwiGLU MLP, grouped-query "
                "attention, rotary positions. Other families come from their config.json."
            ),
            ActivationField.HIDDEN: self.tr("Width of the residual stream (hidden_size, h)."),
            ActivationField.LAYERS: self.tr("Transformer layers (num_hidden_layers, L)."),
            ActivationField.HEADS: self.tr(
                "Attention heads (num_attention_heads, a); they must divide the hidden size."
            ),
            ActivationField.KV_HEADS: self.tr(
                "Key/value heads of grouped-query attention (num_key_value_heads, k); they must "
                "divide the attention heads. GPT-2 has one per attention head."
            ),
            ActivationField.INTERMEDIATE: self.tr(
                "Width of the MLP (intermediate_size, i); GPT-2 uses 4 × hidden size."
            ),
            ActivationField.VOCAB: self.tr(
                "Tokens in the vocabulary (vocab_size, V): the logits and the loss grow with it."
            ),
            ActivationField.SEQ: self.tr(
                "Tokens in one training sample (s); for encoder-decoders, the source length."
            ),
            ActivationField.TARGET_SEQ: self.tr(
                "Encoder-decoders (T5): tokens of the target the decoder reads."
            ),
            ActivationField.IMAGES: self.tr(
                "Images in one training sample. Their tokens are part of the sequence length "
                "(LLaVA 1.5: 576 per image; Gemma 3: 256; Qwen2-VL: one per 28 × 28 pixels)."
            ),
            ActivationField.IMAGE_WIDTH: self.tr(
                "Width of each image as the model's processor hands it over; the patches of "
                "the vision tower (and Qwen2-VL's image tokens) follow it."
            ),
            ActivationField.IMAGE_HEIGHT: self.tr(
                "Height of each image as the model's processor hands it over."
            ),
            Option.VISION_FROZEN: self.tr(
                "The vision tower does not train (requires_grad false): it keeps nothing for "
                "the backward pass, except what gradient checkpointing's hooks keep."
            ),
            Option.DTYPE: self.tr("Precision the activations are stored in."),
            Option.ATTENTION: self.tr(
                "Eager attention stores the s² attention scores of every head; fused kernels "
                "(SDPA, FlashAttention) do not."
            ),
            Option.RECOMPUTE: self.tr(
                "Selective recomputes the attention core during the backward pass; full "
                "(gradient checkpointing) keeps only each layer's input."
            ),
            ActivationField.TENSOR_PARALLEL: self.tr(
                "GPUs that split every layer (Megatron-style tensor parallelism, t); 1 without it."
            ),
            Option.SEQUENCE_PARALLEL: self.tr(
                "Also splits norms, dropout and projection inputs along the sequence across the "
                "tensor-parallel GPUs."
            ),
            Option.DROPOUT: self.tr(
                "Dropout probability above zero: its masks are kept for the backward pass."
            ),
            Option.PADDED: self.tr(
                "Samples padded to a common length pass an attention mask: fused attention "
                "(SDPA) then keeps a copy of the mask, and K and V for every head, in every "
                "layer. Packed or equal-length samples do not."
            ),
            Option.USE_CACHE: self.tr(
                "The model's use_cache (a config file sets it; the Hugging Face Trainer keeps "
                "it). Without recomputation transformers then fills a key/value cache during "
                "the training forward; where K and V are views of a fused projection (Phi-3, "
                "GPT-NeoX, GPT-2) that changes what is kept. Recomputation turns it off."
            ),
            Option.FUSED_LOSS: self.tr(
                "Liger's fused linear cross-entropy (use_liger_kernel): the head and the loss "
                "run over chunks of tokens, so a language model's whole logits are never "
                "kept. Hugging Face accounting of a language model only."
            ),
            Option.PROFILE: self.tr(
                "Paper: the accounting of Korthikanti et al. 2022 (Table 2). Hugging Face: what "
                "the transformers modules really keep in PyTorch."
            ),
        }[control]

    def custom_label(self) -> str:
        return self.tr("Custom")

    def preset_choices(
        self, presets: tuple[tuple[str, str], ...]
    ) -> tuple[tuple[str | None, str], ...]:
        """(name, label) of every model choice, then (``None``, "Custom")."""
        return (*presets, (None, self.custom_label()))

    def family_choices(self, loaded: Family | None = None) -> tuple[tuple[Family, str], ...]:
        """The families sizes alone describe, and ``loaded``'s when it is another one."""
        choices = [
            (Family.GPT2, self.tr("GPT-2 (LayerNorm, GeLU)")),
            (Family.LLAMA, self.tr("Llama (RMSNorm, SwiGLU, GQA)")),
        ]
        if loaded is not None and not loaded.typed_sizes:
            choices.append((loaded, QCoreApplication.translate("Activation", FAMILY_TEXT[loaded])))
        return tuple(choices)

    def family_text(self, family: Family) -> str:
        return QCoreApplication.translate("Activation", FAMILY_TEXT[family])

    def file_label(self, file_name: str, architecture: str) -> str:
        """How a config.json the user opened is named among the models."""
        if architecture:
            return self.tr("{file} ({architecture})").format(
                file=file_name, architecture=architecture
            )
        return file_name

    def dtype_choices(self) -> tuple[tuple[Precision, str], ...]:
        return tuple((d, d.value) for d in Precision)

    def attention_choices(self) -> tuple[tuple[Attention, str], ...]:
        return (
            (Attention.EAGER, self.tr("Eager (stores the s² scores)")),
            (Attention.SDPA, self.tr("Fused/Flash (SDPA)")),
        )

    def recompute_choices(self) -> tuple[tuple[Recompute, str], ...]:
        return (
            (Recompute.NONE, self.tr("None")),
            (Recompute.SELECTIVE, self.tr("Selective (attention core)")),
            (Recompute.SELECTIVE_OP, self.tr("Per-op selective (torchtitan)")),
            (Recompute.FULL, self.tr("Full (gradient checkpointing)")),
        )

    def profile_choices(self) -> tuple[tuple[Accounting, str], ...]:
        return (
            (Accounting.PAPER, self.tr("Paper (Korthikanti et al.)")),
            (Accounting.HF, self.tr("Hugging Face transformers")),
        )

    def part_text(self, part: Part) -> str:
        """The translated short name of a breakdown part (the core's text)."""
        return QCoreApplication.translate("Activation", PART_TEXT[part])

    def assumption_text(self, assumption: Assumption) -> str:
        """The translated text of an assumption the core reports (the core's text)."""
        return QCoreApplication.translate("Activation", ASSUMPTION_TEXT[assumption])

    # -- numbers ----------------------------------------------------------------
    def format(self, value: int | Decimal) -> str:
        return format_number(self.locale, value)

    def format_gb(self, value: Decimal) -> str:
        return self.tr("{value} GB").format(value=self.format(value))

    def format_bytes(self, count: int) -> str:
        return format_counted(self.locale, lambda n: self.tr("%n byte(s)", "", n), count)
