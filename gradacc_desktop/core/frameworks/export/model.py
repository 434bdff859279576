"""What an export is made of: the formats, the model facts the files can carry, the
result.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ...memory.setup import TrainingSetup
from ...recompute import Recompute
from ...text import Message
from ..rules import Refusal

PORT = 29500
MODULE = "my_training"


class ExportFormat(enum.Enum):
    DEEPSPEED = "deepspeed"
    HF = "hf"
    HF_DEEPSPEED = "hf-deepspeed"
    ACCELERATE = "accelerate"
    LIGHTNING = "lightning"
    TORCHRUN = "torchrun"
    MEGATRON = "megatron"


@dataclass(frozen=True)
class LoraExport:
    """PEFT's LoRA settings (``adapter_config.json``): rank, alpha, the adapted modules,
    and whether the frozen base is 4-bit NF4 (QLoRA)."""

    rank: int
    target_modules: tuple[str, ...]
    quantized: bool = False

    @property
    def alpha(self) -> int:
        """``lora_alpha``: twice the rank, the common choice (PEFT's default is 8)."""
        return 2 * self.rank

    def adapter_config(self) -> dict[str, object]:
        """What ``LoraConfig.from_pretrained`` reads (PEFT's ``adapter_config.json``)."""
        return {
            "peft_type": "LORA",
            "task_type": "CAUSAL_LM",
            "r": self.rank,
            "lora_alpha": self.alpha,
            "lora_dropout": 0.0,
            "target_modules": list(self.target_modules),
            "bias": "none",
        }


@dataclass(frozen=True)
class ExportModel:
    """What the files carry of the training description besides the setup: the model's
    name (a comment), the sequence length, LoRA, activation recomputation, the fused loss
    and Megatron's sequence parallelism (None: Megatron's files turn it on with tensor
    parallelism)."""

    name: str | None = None
    seq_len: int | None = None
    lora: LoraExport | None = None
    recompute: Recompute = Recompute.NONE
    sequence_parallel: bool | None = None
    #: Megatron's --tp-comm-overlap (with sequence parallelism)
    tp_comm_overlap: bool = False
    #: Megatron's --grad-reduce-in-bf16
    grad_reduce_bf16: bool = False
    #: the head and the loss fused over chunks (Liger's fused linear cross-entropy)
    fused_loss: bool = False


@dataclass(frozen=True)
class Exported:
    format: ExportFormat
    setup: TrainingSetup
    # file name -> content, in the order a user reads them (the main file first)
    files: dict[str, str]
    # English sentences on the parallel layout and the model: what the files carry and
    # what the framework cannot (empty when they carry everything); marked with
    # trans_late("Export", ...) so the app can translate them, then filled with
    # ``note_values`` ({seq_len}); the rule book's refusals first, filled already
    # (``Message``s with their own values)
    notes: tuple[str, ...] = ()
    note_values: tuple[tuple[str, str], ...] = ()
    #: what the files' framework refuses of the layout they carry (the rule book's
    #: entries; their sentences open ``notes``)
    refusals: tuple[Refusal, ...] = ()
    #: the part of ``setup``'s layout the files carry (None: all of it)
    carried: TrainingSetup | None = None

    @property
    def files_setup(self) -> TrainingSetup:
        """The setup the files run: ``setup`` with the layout they carry."""
        return self.setup if self.carried is None else self.carried

    @property
    def english_notes(self) -> tuple[str, ...]:
        """The notes with their values, in English (the command line's)."""
        values = dict(self.note_values)
        return tuple(
            note if isinstance(note, Message) else note.format(**values) for note in self.notes
        )

    @property
    def text(self) -> str:
        """All files as one text (a ``# ==> name <==`` line before each when several)."""
        if len(self.files) == 1:
            return next(iter(self.files.values()))
        parts = []
        for name, content in self.files.items():
            parts.append(f"# ==> {name} <==\n{content}")
        return "\n".join(parts)
