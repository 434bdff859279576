"""Reading a GPT-NeoX YAML: DeepSpeed's batch keys and ZeRO section with Megatron's
parallel sizes and sequence length."""

from __future__ import annotations

from typing import Any

from .deepspeed import _read_deepspeed
from .reader import _MAX_SEQ, _Reader


def _read_neox(data: dict[Any, Any], r: _Reader) -> None:
    _read_deepspeed(data, r)
    # GPT-NeoX, megatron/neox_arguments/arguments.py NeoXArgs.calculate_derived()
    for size_name, size_key in (
        ("pipeline", "pipe_parallel_size"),
        ("tensor", "model_parallel_size"),
        ("context", "context_parallel_size"),
    ):
        r.parallel_size(size_name, size_key, data.get(size_key))
    # megatron/neox_arguments/neox_args.py seq_length
    r.integer("sequence_length", "seq_length", data.get("seq_length"), 1, _MAX_SEQ, auto=False)
