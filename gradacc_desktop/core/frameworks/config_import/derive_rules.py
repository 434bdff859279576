"""The framework rules ``derive`` applies that depend on one framework: GPT-NeoX's
verdict on batch values it refuses and torchtune's parallel dimensions. Apart from the
readers (``neox``, ``torchtune``), so that deriving imports no reader."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...batch.planning import DeepSpeedCheck, DeepSpeedReason
from ...text import trans_late
from .torchtune_keys import PARALLEL_KEYS

if TYPE_CHECKING:
    from .imported import ImportedConfig

# ------------------------------------------------------------------------------ GPT-NeoX

_TRAIN_NOT_POSITIVE = trans_late(
    "ConfigImport",
    'GPT-NeoX refuses it on {g} data-parallel GPU(s): "Train batch size: {value} has to be '
    'greater than 0".',
)
_MICRO_NOT_POSITIVE = trans_late(
    "ConfigImport",
    'GPT-NeoX refuses it on {g} data-parallel GPU(s): "Micro batch size per gpu: {value} has '
    'to be greater than 0".',
)
_STEPS_NOT_POSITIVE = trans_late(
    "ConfigImport",
    'GPT-NeoX refuses it on {g} data-parallel GPU(s): "Gradient accumulation steps: {value} '
    'has to be greater than 0".',
)


def neox_text(check: DeepSpeedCheck, config: ImportedConfig) -> str:
    """GPT-NeoX's verdict on batch values it refuses, as one English sentence with its
    own assertion text (arguments.py calculate_batch_parameters / check_batch_parameters)."""
    t, b, a, g = check.train_batch_size, check.micro_batch, check.grad_acc, check.world_size
    r = DeepSpeedReason
    if check.reason is r.MISSING_BATCH_SIZE:
        return trans_late(
            "ConfigImport",
            'GPT-NeoX refuses it: "Either train_batch_size or micro_batch_per_gpu needs to '
            'be provided" (the file sets neither train_batch_size nor '
            "train_micro_batch_size_per_gpu).",
        ).format()
    if check.reason in (r.NON_POSITIVE, r.DERIVED_ZERO_STEPS, r.DERIVED_ZERO_MICRO_BATCH):
        # check_batch_parameters() asserts train_batch > 0, micro_batch > 0 and
        # grad_acc > 0, in that order
        for phrase, value in (
            (_TRAIN_NOT_POSITIVE, t),
            (_MICRO_NOT_POSITIVE, b),
            (_STEPS_NOT_POSITIVE, a),
        ):
            if value is not None and value < 1:
                return phrase.format(g=g, value=value)
        return trans_late(
            "ConfigImport", "GPT-NeoX refuses a batch value that is zero or negative."
        ).format()
    defaulted = any(field == "accumulation_steps" for field, _ in config.defaults)
    hint = (
        trans_late(
            "ConfigImport",
            " The file does not set gradient_accumulation_steps: GPT-NeoX takes 1 and does "
            "not derive it from train_batch_size.",
        ).format()
        if defaulted
        else ""
    )
    return trans_late(
        "ConfigImport",
        'GPT-NeoX refuses train_batch_size {t}: "train_batch_size is not equal to '
        'micro_batch_per_gpu * gradient_acc_step * world_size", {t} != {b} * {a} * {g} '
        "(data-parallel GPUs).{hint}",
    ).format(t=t, b=b, a=a, g=g, hint=hint)


# ---------------------------------------------------------------- torchtune replicas

_SIZE_BELOW_ONE = trans_late(
    "ConfigImport",
    "{key} = {size}: torchtune refuses it (ParallelDims asserts a parallel degree of at least 1).",
)


def torchtune_replicas(
    config: ImportedConfig, g: int
) -> tuple[int | None, tuple[tuple[str, int], ...], str | None]:
    """Data-parallel replicas on ``g`` GPUs, the sizes used, and why torchtune refuses
    them (or None).

    torchtune/training/_distributed.py ``ParallelDims._validate()``, as the distributed
    recipes build it (dp_replicate=cfg.get("data_parallel_replicate_dim", 1),
    dp_shard=cfg.get("data_parallel_shard_dim", -1), tp=cfg.get("tensor_parallel_dim",
    1), cp=cfg.get("context_parallel_dim", 1), world_size): dp_replicate, tp and cp
    must be >= 1 ("Parallelism degree should be >= 1, except for dp_shard"); dp_shard
    is -1 or >= 1, and -1 becomes world_size // (dp_replicate x tp x cp), which must be
    >= 1; then dp_replicate x dp_shard x tp x cp must equal the world size ("Invalid
    parallel dims"). The batch is split over the "dp" mesh, dp_replicate x dp_shard
    (recipes: self.dp_degree = world_mesh["dp"].size(), the sampler's replicas); tp and
    cp ranks share their batch. (cp joined the product with context parallelism,
    meta-pytorch/torchtune PR #2668; before it the product was dp_replicate x dp_shard x
    tp.) Without these keys every GPU is a data-parallel replica.
    """
    found = {name: (size, key) for name, size, key in config.parallel}
    if not any(name in found for name, _key in PARALLEL_KEYS):
        return g, (), None
    sizes: dict[str, int] = {}
    for name, key in PARALLEL_KEYS:
        default = -1 if name == "shard" else 1
        size, shown = found.get(name, (default, key))
        if name == "shard":
            if size != -1 and size < 1:
                return (
                    None,
                    (),
                    trans_late(
                        "ConfigImport",
                        "{key} = {size}: torchtune refuses it (ParallelDims asserts "
                        '"dp_shard must -1 or >=1").',
                    ).format(key=shown, size=size),
                )
        elif size < 1:
            return None, (), _SIZE_BELOW_ONE.format(key=shown, size=size)
        sizes[name] = size
    tp, cp, replicate = sizes["tensor"], sizes["context"], sizes["replicate"]
    shard = sizes["shard"]
    if shard == -1:
        shard = g // (replicate * tp * cp)
        if shard < 1:
            return (
                None,
                (),
                trans_late(
                    "ConfigImport",
                    "tensor x context x replicate parallel sizes = {product} is more than "
                    "the {g} GPU(s): torchtune infers data_parallel_shard_dim = 0 and "
                    "refuses it.",
                ).format(product=replicate * tp * cp, g=g),
            )
    used = tuple(
        (name, size)
        for name, size in (
            ("tensor", tp),
            ("context", cp),
            ("shard", shard),
            ("replicate", replicate),
        )
        if size > 1
    )
    if replicate * shard * tp * cp != g:
        return (
            None,
            used,
            trans_late(
                "ConfigImport",
                'torchtune refuses the parallel sizes: "Invalid parallel dims: '
                "dp_replicate({replicate}) * dp_shard({shard}) * tp({tp}) * cp({cp}) != "
                'WORLD_SIZE({g})".',
            ).format(replicate=replicate, shard=shard, tp=tp, cp=cp, g=g),
        )
    return replicate * shard, used, None
