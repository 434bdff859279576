"""Shared by the per-family measure tests: build a random-weight model from a config
dict, measure what autograd saves for one sample, and estimate the same from the
config through ``core.memory.families`` (nothing is downloaded)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gradacc_desktop.core.memory.activation import (
    Accounting,
    Attention,
    Device,
    Precision,
    Recompute,
    estimate,
)
from gradacc_desktop.core.memory.families import parameters, parse_model_config

TOLERANCE = 0.05

#: every comparison of this run, for the table in docs/ACTIVATION.md (see conftest.py)
RECORDED: list[dict[str, Any]] = []


@dataclass(frozen=True)
class Comparison:
    measured: int
    estimated: int
    params_measured: int
    params_estimated: int

    @property
    def error(self) -> float:
        return (self.estimated - self.measured) / self.measured


def measure(
    config: dict[str, Any],
    seq: int,
    *,
    attention: str = "sdpa",
    checkpointing: bool = False,
    padded: bool = False,
    dropout: bool = False,
    target_seq: int | None = None,
    use_cache: bool = False,
) -> tuple[int, int]:
    """(saved bytes for one sample, num_parameters()) of the real model."""
    import torch

    from gradacc_desktop.measure import build_model, measure_saved, random_batch

    model = build_model(
        dict(config),
        attention=attention,
        checkpointing=checkpointing,
        dropout=dropout,
        use_cache=use_cache,
    )
    try:
        batch = random_batch(model, seq, 1, target_seq=target_seq)
    except TypeError:  # before the measure command knew encoder-decoders
        batch = random_batch(model, seq, 1)
    if padded:
        mask = torch.ones(1, seq, dtype=torch.long)
        mask[0, seq - max(1, seq // 8) :] = 0
        batch["attention_mask"] = mask
    return measure_saved(model, batch).saved_bytes, model.num_parameters()


def compare(
    config: dict[str, Any],
    seq: int,
    *,
    attention: str = "sdpa",
    checkpointing: bool = False,
    padded: bool = False,
    dropout: bool = False,
    target_seq: int | None = None,
    use_cache: bool = False,
) -> Comparison:
    measured, params = measure(
        config,
        seq,
        attention=attention,
        checkpointing=checkpointing,
        padded=padded,
        dropout=dropout,
        target_seq=target_seq,
        use_cache=use_cache,
    )
    arch = parse_model_config(config)
    inputs = arch.inputs(
        seq=seq,
        target_seq=target_seq,
        dtype=Precision.BF16,
        attention=Attention(attention),
        recompute=Recompute.FULL if checkpointing else Recompute.NONE,
        profile=Accounting.HF,
        device=Device.CPU,
        padded=padded,
        dropout=dropout,
        use_cache=use_cache,
    )
    result = estimate(inputs)
    comparison = Comparison(measured, result.saved_bytes, params, parameters(arch))
    RECORDED.append(
        {
            "model_type": arch.model_type,
            "shape": f"h={arch.hidden} L={arch.layers} a={arch.heads} k={arch.kv_heads} "
            f"d={arch.head_dim} i={arch.intermediate} V={arch.vocab}",
            "seq": seq if target_seq is None else f"{seq}→{target_seq}",
            "attention": attention,
            "checkpointing": checkpointing,
            "padded": padded,
            "dropout": dropout,
            "head": arch.task.value if arch.task_modelled else arch.head.value,
            "use_cache": inputs.fills_cache,
            "measured": measured,
            "estimated": result.saved_bytes,
            "error": comparison.error,
            "params_exact": comparison.params_estimated == comparison.params_measured,
        }
    )
    return comparison
