"""Reading a GPT-NeoX YAML (``deepy.py train.py configs/x.yml``): DeepSpeed's batch keys
and ZeRO section, with GPT-NeoX's own rules for their defaults, its precision key, its
Megatron-style parallel sizes and sequence length, and the keys it refuses.

The rules and keys are those of one GPT-NeoX source, ``NEOX_VERSION`` (EleutherAI/gpt-neox
main at ``NEOX_COMMIT``; the files cited below are at that commit), and the report says
so; DeepSpeed's are those of the DeeperSpeed it pins (requirements/requirements.txt
91d1c55, requirements/pyproject.toml 02e2ebf: the same in what is cited here).

GPT-NeoX derives the batch values as DeepSpeed does (megatron/neox_arguments/
arguments.py ``NeoXArgs.calculate_batch_parameters()`` is DeepSpeed's
``_set_batch_related_parameters``, ``check_batch_parameters()`` its
``_batch_assertion``, with the data-parallel size for the world size), with one
difference: ``gradient_accumulation_steps`` defaults to 1 (neox_args.py
``NeoXArgsDeepspeedConfig``), so a file that leaves it out has 1 accumulation step, not
the value DeepSpeed would derive from ``train_batch_size``. The reader fills that
default; ``derive`` then replays the derivation (``planning.deepspeed_check``, the same
arithmetic) and words its refusals as GPT-NeoX's (``neox_text``).
"""

from __future__ import annotations

from typing import Any

from ...batch.planning import MAX_TARGET_BATCH
from ...memory.setup import Precision
from ...text import trans_late
from ..rules import RULES, Rule
from .deepspeed import read_zero
from .neox_keys import NEOX_BRANCH_KEYS, NEOX_KEYS, NEOX_REMOVED_KEYS, NEOX_VERSION
from .reader import MAX_GPUS, MAX_MICRO, MAX_SEQ, MAX_STEPS, Reader, clean

_NEOX_PRECISIONS = {"fp16": Precision.FP16, "bfloat16": Precision.BF16, "fp32": Precision.FP32}
_READ_AS = trans_late(
    "ConfigImport",
    "read as GPT-NeoX {version} reads it (its NeoXArgs fields and calculate_derived())",
)


def read_neox(data: dict[Any, Any], r: Reader) -> None:
    # NeoXArgs.from_ymls(): conf_key.replace("-", "_") for every top-level key
    written: dict[str, str] = {}
    conf: dict[str, Any] = {}
    for raw, value in data.items():
        if isinstance(raw, str):
            name = raw.replace("-", "_")
            written[name] = raw
            conf[name] = value

    def key(name: str) -> str:
        return written.get(name, name)

    r.notes.append(_READ_AS.format(version=NEOX_VERSION))

    # NeoXArgs.validate_types() lets "auto" through only with autotuning set (DeepSpeed's
    # autotuner fills it); otherwise calculate_batch_parameters() computes with the text
    autotuning = conf.get("autotuning") is not None
    r.integer(
        "train_batch_size",
        key("train_batch_size"),
        conf.get("train_batch_size"),
        1,
        MAX_TARGET_BATCH,
        auto=autotuning,
    )
    r.integer(
        "micro_batch",
        key("train_micro_batch_size_per_gpu"),
        conf.get("train_micro_batch_size_per_gpu"),
        1,
        MAX_MICRO,
        auto=autotuning,
    )
    r.integer(
        "accumulation_steps",
        key("gradient_accumulation_steps"),
        conf.get("gradient_accumulation_steps"),
        1,
        MAX_STEPS,
        auto=autotuning,
    )
    if "gradient_accumulation_steps" not in conf:
        # neox_args.py NeoXArgsDeepspeedConfig: gradient_accumulation_steps: int = 1;
        # calculate_batch_parameters() derives it only when it is None (written null)
        r.default(
            "accumulation_steps",
            1,
            trans_late(
                "ConfigImport",
                "accumulation steps = 1: GPT-NeoX's default gradient_accumulation_steps "
                "(NeoXArgsDeepspeedConfig); unlike DeepSpeed, GPT-NeoX does not derive it "
                "from train_batch_size unless the file sets it to null",
            ).format(),
        )
    _zero(conf, key, r, autotuning)
    _precision(conf, key, r)
    # GPT-NeoX, megatron/neox_arguments/arguments.py NeoXArgs.calculate_derived(): the
    # data-parallel size is (GPUs / pipe_parallel_size) / model_parallel_size (context
    # parallelism is only on an unmerged branch: context_parallel_size is refused)
    for size_name, size_key in (
        ("pipeline", "pipe_parallel_size"),
        ("tensor", "model_parallel_size"),
    ):
        r.parallel_size(size_name, key(size_key), conf.get(size_key))
    # neox_args.py NeoXArgsModel.seq_length
    r.integer("sequence_length", key("seq_length"), conf.get("seq_length"), 1, MAX_SEQ, auto=False)
    # NeoXArgsTraining.checkpoint_activations: bool = False
    r.boolean("checkpointing", key("checkpoint_activations"), conf.get("checkpoint_activations"))
    r.default(
        "checkpointing",
        False,
        trans_late(
            "ConfigImport",
            "activation checkpointing off: GPT-NeoX's default checkpoint_activations is false",
        ).format(),
    )
    # calculate_derived(): a global_num_gpus in the file is used as it is; otherwise
    # the count comes from the hostfile (num_gpus per host) or torch.cuda.device_count()
    r.integer("gpus", key("global_num_gpus"), conf.get("global_num_gpus"), 1, MAX_GPUS, auto=False)
    if conf.get("num_gpus") is not None and conf.get("global_num_gpus") is None:
        r.refuse(
            key("num_gpus"),
            conf["num_gpus"],
            trans_late(
                "ConfigImport",
                "GPUs per node: GPT-NeoX multiplies it by the hosts of the hostfile "
                "(calculate_derived), which the file does not give; give the GPUs in all "
                "(--world-size)",
            ).format(),
        )
    _unknown_keys(data, r)


def _zero(conf: dict[str, Any], key: Any, r: Reader, autotuning: bool) -> None:
    zero = conf.get("zero_optimization")
    if zero is None:
        return  # calculate_derived(): ZERO_DEFAULTS, stage 0
    name = key("zero_optimization")
    # calculate_derived(): stage = self.zero_optimization["stage"] inside try / except
    # KeyError (printed and raised again); a stage outside 0-3 fails
    # assert self.autotuning is not None, "Zero Stage must be an integer unless you
    # are doing autotuning, not {stage}"
    if not isinstance(zero, dict):
        r.refuse(
            name,
            zero,
            trans_late(
                "ConfigImport",
                'must be a mapping: GPT-NeoX reads zero_optimization["stage"]',
            ).format(),
            "zero_stage",
            "offload",
            refused=True,
        )
        return
    if "stage" not in zero:
        r.refuse(
            name,
            zero,
            trans_late(
                "ConfigImport",
                'has no stage: GPT-NeoX reads zero_optimization["stage"] and raises KeyError',
            ).format(),
            "zero_stage",
            refused=True,
        )
        return
    stage = zero["stage"]
    if isinstance(stage, bool) or stage not in (0, 1, 2, 3):
        if autotuning:
            r.mark_auto(f"{name}.stage", "zero_stage")
            return
        r.refuse(
            f"{name}.stage",
            stage,
            trans_late(
                "ConfigImport",
                'GPT-NeoX refuses it: "Zero Stage must be an integer unless you are doing '
                'autotuning" (0, 1, 2 or 3)',
            ).format(),
            "zero_stage",
            refused=True,
        )
        return
    pipe = conf.get("pipe_parallel_size")
    if stage >= 2 and isinstance(pipe, int) and not isinstance(pipe, bool) and pipe >= 1:
        # calculate_derived(): is_pipe_parallel = pipe_parallel_size >= 1 (since #1219,
        # 2382bd4; only 0 runs the model as a sequential module, megatron/training.py
        # to_sequential()), so even 1 stage is a DeepSpeed PipelineModule, whose engine
        # refuses ZeRO-2/3: the rule book's entry
        r.refuse(
            f"{name}.stage",
            stage,
            RULES[Rule.PIPELINE_ZERO].text.format(zero=stage),
            "zero_stage",
            refused=True,
        )
        return
    read_zero({"zero_optimization": zero}, r)


def _enabled(r: Reader, conf: dict[str, Any], key: Any, section: str) -> bool | None:
    """``<section>.enabled`` as DeepSpeed reads it (absent: False); None when unusable."""
    value = conf.get(section)
    if value is None:
        return False
    if not isinstance(value, dict):
        r.refuse(
            key(section),
            value,
            trans_late("ConfigImport", "must be a mapping of keys").format(),
            "precision",
        )
        return None
    enabled = value.get("enabled", False)
    if enabled is None or isinstance(enabled, bool):
        return bool(enabled)
    r.refuse(
        f"{key(section)}.enabled",
        enabled,
        trans_late("ConfigImport", "must be true or false").format(),
        "precision",
    )
    return None


def _precision(conf: dict[str, Any], key: Any, r: Reader) -> None:
    # calculate_derived(), "derive precision" (bf16 since #1311, 797a4ab): a fp16 section
    # enabled sets precision "fp16" when precision is None and asserts precision == "fp16"
    # otherwise ("DeepSpeed fp16 field was set but precision conflicts"); then a bf16
    # section enabled sets "bfloat16" when precision is still None and asserts precision
    # == "bfloat16" otherwise ("DeepSpeed bf16 field was set but precision conflicts").
    # Precision "fp16" enables DeepSpeed's fp16 section, "bfloat16" adds {"bf16":
    # {"enabled": True}} when the file has no bf16 section, and anything else becomes
    # "fp32" (this runs before validate_types()).
    fp16 = _enabled(r, conf, key, "fp16")
    bf16 = _enabled(r, conf, key, "bf16")
    if fp16 is None or bf16 is None:
        return
    written = precision = conf.get("precision")
    source = key("precision")
    if fp16:
        if precision is None:
            precision, source = "fp16", f"{key('fp16')}.enabled"
        elif precision != "fp16":
            r.refuse(
                key("precision"),
                precision,
                trans_late(
                    "ConfigImport",
                    'GPT-NeoX refuses it with fp16.enabled true: "DeepSpeed fp16 field was '
                    'set but precision conflicts"',
                ).format(),
                "precision",
                refused=True,
            )
            return
    if bf16 and precision is None:
        precision, source = "bfloat16", f"{key('bf16')}.enabled"
    elif bf16 and precision != "bfloat16":
        if written is None:  # precision "fp16" came from the fp16 section
            r.refuse(
                f"{key('bf16')}.enabled",
                True,
                trans_late(
                    "ConfigImport",
                    "GPT-NeoX refuses it with fp16.enabled true: the fp16 section sets "
                    'precision "fp16", then "DeepSpeed bf16 field was set but precision '
                    'conflicts"',
                ).format(),
                "precision",
                refused=True,
            )
        else:
            r.refuse(
                key("precision"),
                precision,
                trans_late(
                    "ConfigImport",
                    'GPT-NeoX refuses it with bf16.enabled true: "DeepSpeed bf16 field was '
                    'set but precision conflicts"',
                ).format(),
                "precision",
                refused=True,
            )
        return
    if precision is None:
        return
    if not isinstance(precision, str) or precision not in _NEOX_PRECISIONS:
        r.refuse(
            key("precision"),
            precision,
            trans_late(
                "ConfigImport",
                'GPT-NeoX reads only "fp16", "bfloat16" and "fp32": calculate_derived() '
                "sets any other value to fp32",
            ).format(),
        )
        precision = "fp32"
    section = conf.get("fp16")
    if precision == "fp16" and isinstance(section, dict) and section.get("type") == "bfloat16":
        # GPT-NeoX before #787 (056e9ca, 2023-05-16) read fp16.type "bfloat16" as bf16;
        # now the section goes to DeepSpeed type and all, and DeeperSpeed's
        # runtime/config.py get_fp16_enabled() reads only fp16.enabled: the run is fp16
        r.notes.append(
            trans_late(
                "ConfigImport",
                '{key} = "bfloat16" is not read: GPT-NeoX {version} trains in fp16 (only '
                "GPT-NeoX before May 2023 read it as bf16)",
            ).format(key=f"{key('fp16')}.type", version=NEOX_VERSION)
        )
    r.set("precision", source, _NEOX_PRECISIONS[precision])


_NOT_AN_ARGUMENT = trans_late(
    "ConfigImport",
    "GPT-NeoX {version} refuses keys that are not NeoX arguments (NeoXArgs(**config) raises "
    "TypeError)",
)
_BRANCH_ARGUMENT = trans_late(
    "ConfigImport",
    "GPT-NeoX {version} refuses it (NeoXArgs(**config) raises TypeError): only its unmerged "
    "branch {branch} has this argument",
)
_REMOVED_ARGUMENT = trans_late(
    "ConfigImport",
    "GPT-NeoX {version} refuses it (NeoXArgs(**config) raises TypeError): the argument was "
    "removed in commit {commit} ({date})",
)


def _unknown_keys(data: dict[Any, Any], r: Reader) -> None:
    for key in data:
        name = key.replace("-", "_") if isinstance(key, str) else None
        if name in NEOX_KEYS:
            continue
        near = NEOX_KEYS  # named with the nearest argument ("did you mean ...?")
        if name in NEOX_BRANCH_KEYS:
            # a setting of that branch, not a misspelling: no nearest argument
            reason = _BRANCH_ARGUMENT.format(version=NEOX_VERSION, branch=NEOX_BRANCH_KEYS[name])
            near = frozenset()
        elif name in NEOX_REMOVED_KEYS:
            commit, date = NEOX_REMOVED_KEYS[name]
            reason = _REMOVED_ARGUMENT.format(version=NEOX_VERSION, commit=commit, date=date)
        else:
            reason = _NOT_AN_ARGUMENT.format(version=NEOX_VERSION)
        r.unknown_key(clean(str(key), 80), near, True, reason)
