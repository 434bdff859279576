"""Reading a torchtune recipe config YAML (``tune run <recipe> --config x.yaml``).

The recipes read the config through OmegaConf (``cfg.batch_size``,
``cfg.get("fsdp_cpu_offload", False)``); since OmegaConf 2.1 (omry/omegaconf #515) a
key read as an attribute that the file does not have raises ``ConfigAttributeError``:
such keys are required. Rules from pytorch/torchtune recipes/full_finetune_distributed.py
(1bf50ae), lora_finetune_distributed.py (38198c0), lora_finetune_single_device.py
(0e906b8), torchtune/training/precision.py and training/_distributed.py.

Nothing checks the top-level keys: a recipe reads those it knows and never looks at the
others (``config.validate`` only instantiates the ``_component_`` sections), so an
unknown key is ignored; gradacc names those that look like a misspelling of one it reads.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from ...memory.setup import Offload, Precision
from ...memory.zero import ZeroStage
from ...precision import MasterWeights
from ...text import trans_late
from .model import Adapter, Unread
from .reader import MAX_MICRO, MAX_RANK, MAX_SEQ, MAX_STEPS, Reader
from .torchtune_keys import PARALLEL_KEYS, READ_KEYS, RECIPE_KEYS

# OmegaConf interpolations of another key of the file, "${batch_size}", "${a.b}"
_INTERPOLATION = re.compile(r"\$\{([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)\}")


# an interpolation gradacc cannot resolve (a resolver, a relative path)
_UNRESOLVED = object()


def _resolve(data: dict[Any, Any], value: Any) -> Any:
    """``value`` with "${key.path}" interpolations of the file's own keys followed."""
    for _ in range(8):
        if not isinstance(value, str):
            return value
        match = _INTERPOLATION.fullmatch(value.strip())
        if match is None:
            return _UNRESOLVED if "${" in value else value
        node: Any = data
        for part in match.group(1).split("."):
            if not isinstance(node, dict) or part not in node:
                return _UNRESOLVED
            node = node[part]
        value = node
    return _UNRESOLVED


_REQUIRED = trans_late(
    "ConfigImport",
    "torchtune's recipes read cfg.{key}: without it OmegaConf raises ConfigAttributeError",
)
_NOT_SET = trans_late("ConfigImport", "(not set)")


class _Config:
    """The reader and the whole file (interpolations are resolved from its root)."""

    def __init__(self, r: Reader, root: dict[Any, Any]) -> None:
        self.r = r
        self.root = root

    def get(self, data: dict[Any, Any], key: str, field: str | None, shown: str = "") -> Any:
        """The value of ``key`` in ``data`` (a section), interpolations followed; None
        when absent; ``_UNRESOLVED`` (reported) when it cannot be followed."""
        if key not in data:
            return None
        value = _resolve(self.root, data[key])
        if value is _UNRESOLVED:
            self.r.refuse(
                shown or key,
                data[key],
                trans_late(
                    "ConfigImport", "an OmegaConf interpolation gradacc does not resolve"
                ).format(),
                *([] if field is None else [field]),
            )
        return value

    def required(self, data: dict[Any, Any], key: str, field: str, shown: str = "") -> Any:
        """Like ``get`` for a key the recipe reads as ``cfg.<key>``: absent or null is
        refused."""
        value = self.get(data, key, field, shown)
        if value is None:
            r = self.r
            r.unread.append(
                Unread(
                    r.name(shown or key),
                    _NOT_SET.format(),
                    _REQUIRED.format(key=shown or key),
                    True,
                )
            )
            r.unresolved.add(field)
        return value


def read_torchtune(data: dict[Any, Any], r: Reader) -> None:
    c = _Config(r, data)
    micro = c.required(data, "batch_size", "micro_batch")
    if micro is not _UNRESOLVED:
        # recipes: DataLoader(batch_size=cfg.batch_size), per device (the sampler splits
        # the data over the data-parallel ranks); torch refuses a size below 1
        r.integer("micro_batch", "batch_size", micro, 1, MAX_MICRO, auto=False)
    steps = c.required(data, "gradient_accumulation_steps", "accumulation_steps")
    if steps is not _UNRESOLVED:
        # recipes: self._gradient_accumulation_steps = cfg.gradient_accumulation_steps;
        # setup() divides len(dataloader) by it
        r.integer(
            "accumulation_steps", "gradient_accumulation_steps", steps, 1, MAX_STEPS, auto=False
        )
    _dtype(c, data)
    checkpointing = c.get(data, "enable_activation_checkpointing", "checkpointing")
    if checkpointing is not _UNRESOLVED:
        r.boolean("checkpointing", "enable_activation_checkpointing", checkpointing)
    # full_finetune_distributed: cfg.get("enable_activation_checkpointing", False) (the
    # older lora_finetune_distributed read cfg.enable_activation_checkpointing)
    r.default(
        "checkpointing",
        False,
        trans_late(
            "ConfigImport",
            "activation checkpointing off: torchtune's default "
            "enable_activation_checkpointing is false",
        ).format(),
    )
    _model(c, data)
    tokenizer = data.get("tokenizer")
    if isinstance(tokenizer, dict):
        # the tokenizer truncates to max_seq_len; None (null) does not truncate
        seq = c.get(tokenizer, "max_seq_len", "sequence_length", "tokenizer.max_seq_len")
        if seq is not _UNRESOLVED:
            r.integer("sequence_length", "tokenizer.max_seq_len", seq, 1, MAX_SEQ, auto=False)
    dataset = data.get("dataset")
    if isinstance(dataset, dict) and isinstance(dataset.get("packed"), bool):
        # torchtune's dataset builders: packed=True packs samples into max_seq_len
        r.set("packing", "dataset.packed", dataset["packed"])
    _sharding(c, data)
    _parallel(c, data)
    _unknown_keys(r, data)


def _dtype(c: _Config, data: dict[Any, Any]) -> None:
    r = c.r
    if "dtype" not in data:
        c.required(data, "dtype", "precision")
        return
    value = c.get(data, "dtype", "precision")
    if value is _UNRESOLVED:
        return
    # torchtune/training/precision.py get_dtype(): None is fp32; otherwise
    # PRECISION_STR_TO_DTYPE ("fp16", "bf16", "fp32", "fp64") or ValueError("Dtype
    # {dtype} must be one of fp16, bf16, fp32, fp64 for finetuning.")
    if value is None or value == "fp32":
        r.set("precision", "dtype", Precision.FP32)
    elif value == "bf16":
        # torchtune trains in bf16 throughout (the recipes' docstrings: "all activations,
        # gradients and optimizer states are in bfloat16"), without fp32 master weights
        r.set("precision", "dtype", Precision.BF16)
        r.set("master_weights", "dtype", MasterWeights.NONE)
    elif value == "fp16":
        # full_finetune_* and lora_finetune_distributed: ValueError("full fp16 training
        # is not supported with this recipe. Please use bf16 or fp32 instead.");
        # lora_finetune_single_device: ValueError("fp16 precision is not supported in
        # this recipe. Please use fp32 or bf16.")
        r.refuse(
            "dtype",
            value,
            trans_late(
                "ConfigImport",
                "torchtune's fine-tuning recipes refuse fp16 (ValueError): use bf16 or fp32",
            ).format(),
            "precision",
            refused=True,
        )
    elif value == "fp64":
        r.refuse(
            "dtype",
            value,
            trans_late("ConfigImport", "fp64 is not modelled (bf16 and fp32 are)").format(),
            "precision",
        )
    else:
        r.refuse(
            "dtype",
            value,
            trans_late(
                "ConfigImport",
                "torchtune's get_dtype refuses it: it must be one of fp16, bf16, fp32, fp64",
            ).format(),
            "precision",
            refused=True,
        )


# torchtune's attention projections and the Hugging Face Llama names gradacc's LoRA
# model uses (core/memory/lora.py, its projection table): torchtune's MultiHeadAttention
# q_proj, k_proj, v_proj, output_proj are Llama's q_proj, k_proj, v_proj, o_proj; apply_lora_to_mlp
# adapts its FeedForward w1, w2, w3, Llama's gate_proj, down_proj, up_proj
# (torchtune/models/convert_weights.py maps these names between the two checkpoints).
_ATTENTION_NAMES = {
    "q_proj": "q_proj",
    "k_proj": "k_proj",
    "v_proj": "v_proj",
    "output_proj": "o_proj",
}
_MLP_NAMES = ("gate_proj", "up_proj", "down_proj")


def _model(c: _Config, data: dict[Any, Any]) -> None:
    r = c.r
    model = data.get("model")
    if model is None:
        # recipes: config.instantiate(cfg.model)
        c.required(data, "model", "base_model")
        return
    if not isinstance(model, dict):
        r.refuse(
            "model",
            model,
            trans_late("ConfigImport", "must be a mapping with a _component_").format(),
            refused=True,
        )
        return
    component = c.get(model, "_component_", "base_model", "model._component_")
    if component is _UNRESOLVED:
        return
    # the builder's dotted path (torchtune.models.llama3_1.lora_llama3_1_8b): the
    # Hugging Face repository is not in the config (checkpointer.checkpoint_dir is a
    # local folder)
    r.text(
        "base_model",
        "model._component_",
        component,
        trans_late("ConfigImport", "must be the dotted path of a model builder").format(),
    )
    if not isinstance(component, str):
        return
    builder = component.strip().rsplit(".", 1)[-1]
    quantize = model.get("quantize_base") is True
    if not builder.startswith(("lora_", "qlora_")):
        return
    # torchtune/models/*/_model_builders.py: qlora_<model> = partial(lora_<model>,
    # quantize_base=True): the frozen base weights in NF4
    qlora = builder.startswith("qlora_") or quantize
    r.set("adapter", "model._component_", Adapter.QLORA if qlora else Adapter.LORA)
    if qlora:
        r.set("base_4bit", "model.quantize_base" if quantize else "model._component_", True)
    # lora_finetune_*: self._lora_rank = cfg_model.lora_rank,
    # list(cfg_model.lora_attn_modules), cfg_model.apply_lora_to_mlp (required);
    # getattr(cfg_model, "apply_lora_to_output", False)
    rank = c.required(model, "lora_rank", "lora_rank", "model.lora_rank")
    if rank is not _UNRESOLVED:
        r.integer("lora_rank", "model.lora_rank", rank, 1, MAX_RANK, auto=False)
    attention = c.required(model, "lora_attn_modules", "lora_targets", "model.lora_attn_modules")
    mlp = c.required(model, "apply_lora_to_mlp", "lora_targets", "model.apply_lora_to_mlp")
    if attention is None or attention is _UNRESOLVED or mlp is None or mlp is _UNRESOLVED:
        return
    _targets(r, model, attention, mlp)


def _targets(r: Reader, model: dict[Any, Any], attention: Any, mlp: Any) -> None:
    if not isinstance(attention, list) or not all(isinstance(m, str) for m in attention):
        r.refuse(
            "model.lora_attn_modules",
            attention,
            trans_late("ConfigImport", "must be a list of module names").format(),
            "lora_targets",
            refused=True,
        )
        return
    if not attention:
        # torchtune/models/*/_component_builders.py lora_*_self_attention(): "Must pass
        # one or more of ['q_proj', 'k_proj', 'v_proj', 'output_proj'] as lora_modules"
        r.refuse(
            "model.lora_attn_modules",
            attention,
            trans_late(
                "ConfigImport",
                "torchtune refuses an empty list (ValueError): it needs one or more of "
                "q_proj, k_proj, v_proj, output_proj",
            ).format(),
            "lora_targets",
            refused=True,
        )
        return
    if not isinstance(mlp, bool):
        r.refuse(
            "model.apply_lora_to_mlp",
            mlp,
            trans_late("ConfigImport", "must be true or false").format(),
            "lora_targets",
        )
        return
    # the builders test "q_proj" in lora_modules, ...: other names adapt nothing
    unknown = [m for m in attention if m not in _ATTENTION_NAMES]
    if unknown:
        r.refuse(
            "model.lora_attn_modules",
            unknown[0],
            trans_late(
                "ConfigImport",
                "not a torchtune attention projection (q_proj, k_proj, v_proj, "
                "output_proj): torchtune adapts nothing for it",
            ).format(),
        )
    targets = [_ATTENTION_NAMES[m] for m in attention if m in _ATTENTION_NAMES]
    if mlp:
        targets += _MLP_NAMES
    r.set("lora_targets", "model.lora_attn_modules", tuple(dict.fromkeys(targets)))
    if model.get("apply_lora_to_output") is True:
        r.refuse(
            "model.apply_lora_to_output",
            True,
            trans_late(
                "ConfigImport",
                "LoRA on the output projection (the LM head) is not modelled: the "
                "LoRA target modules leave it out",
            ).format(),
        )
    if model.get("use_dora") is True:
        r.refuse(
            "model.use_dora",
            True,
            trans_late(
                "ConfigImport", "DoRA's magnitude vectors are not modelled (read as LoRA)"
            ).format(),
        )


def _sharding(c: _Config, data: dict[Any, Any]) -> None:
    """FSDP2 sharding as a ZeRO stage, and its CPU offload.

    The distributed recipes call training.shard_model(..., cpu_offload=
    cfg.get("fsdp_cpu_offload", False), reshard_after_forward=
    cfg.get("fsdp_reshard_after_forward", True)): fully_shard on every layer shards the
    parameters, gradients and optimizer states over the data-parallel GPUs. Resharding
    after the forward pass is FULL_SHARD, ZeRO-3's sharding; without it the parameters
    stay gathered until the backward pass, SHARD_GRAD_OP (the recipes' docstrings), as
    ZeRO-2. With data_parallel_replicate_dim > 1 (HSDP) each replica holds whole shards,
    so ZeRO over all data-parallel GPUs counts more sharding than torchtune does. On one
    GPU (the single-device recipes) nothing is sharded, whatever the stage.
    """
    r = c.r
    reshard = c.get(data, "fsdp_reshard_after_forward", "zero_stage")
    if reshard is _UNRESOLVED:
        return
    if reshard is not None and not isinstance(reshard, bool):
        r.refuse(
            "fsdp_reshard_after_forward",
            reshard,
            trans_late("ConfigImport", "must be true or false").format(),
            "zero_stage",
        )
        return
    stage = ZeroStage.GRADIENTS if reshard is False else ZeroStage.WEIGHTS
    if reshard is None:
        r.default(
            "zero_stage",
            stage,
            trans_late(
                "ConfigImport",
                "ZeRO stage 3: torchtune's distributed recipes shard parameters, gradients "
                "and optimizer states with FSDP2, resharding after the forward pass by "
                "default (fsdp_reshard_after_forward true); one GPU shards nothing",
            ).format(),
        )
    else:
        r.set("zero_stage", "fsdp_reshard_after_forward", stage)
    offload = c.get(data, "fsdp_cpu_offload", "offload")
    if offload is None or offload is _UNRESOLVED:
        return
    if not isinstance(offload, bool):
        r.refuse(
            "fsdp_cpu_offload",
            offload,
            trans_late("ConfigImport", "must be true or false").format(),
            "offload",
        )
    elif not offload:
        r.set("offload", "fsdp_cpu_offload", Offload.NONE)
    elif stage is ZeroStage.WEIGHTS:
        # FSDP2's CPUOffloadPolicy: parameters, gradients and optimizer states in CPU
        # memory (the recipes' docstrings: "CPU offload of parameters, gradients, and
        # optimizer states is supported via fsdp_cpu_offload")
        r.set("offload", "fsdp_cpu_offload", Offload.ALL)
    else:
        r.refuse(
            "fsdp_cpu_offload",
            offload,
            trans_late(
                "ConfigImport",
                "CPU offload with fsdp_reshard_after_forward false is not modelled "
                "(gradacc models parameter offload with ZeRO-3 only)",
            ).format(),
            "offload",
        )


def _parallel(c: _Config, data: dict[Any, Any]) -> None:
    r = c.r
    for name, key in PARALLEL_KEYS:
        value = c.get(data, key, None)
        if value is not _UNRESOLVED:
            r.parallel_size(name, key, value)
    tp = data.get("tensor_parallel_dim")
    tensor = isinstance(tp, int) and not isinstance(tp, bool) and tp > 1
    if tensor and data.get("tensor_parallel_plan") is None:
        # full_finetune_distributed.__init__: ValueError("Tensor Parallel plan needs to be
        # provided when tensor parallel is enabled.")
        r.refuse(
            "tensor_parallel_dim",
            tp,
            trans_late(
                "ConfigImport",
                "torchtune refuses tensor parallelism without a tensor_parallel_plan (ValueError)",
            ).format(),
            refused=True,
        )


def _unknown_keys(r: Reader, data: dict[Any, Any]) -> None:
    reason = trans_late(
        "ConfigImport", "torchtune's recipes do not read it: the key is ignored"
    ).format()
    for key in data:
        if not isinstance(key, str) or key in RECIPE_KEYS:
            continue
        if difflib.get_close_matches(key, READ_KEYS, n=1, cutoff=0.8):
            r.unknown_key(key, frozenset(READ_KEYS), False, reason)
