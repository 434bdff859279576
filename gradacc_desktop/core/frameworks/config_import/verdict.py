"""What a read config comes to on a number of GPUs: whether its framework runs it, the
reasons it would refuse it (first) and the other problems, the setup, what is missing,
and the tokens per optimizer step — the one reading both ``gradacc check`` and the
window show."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...framework import Framework
from ...memory.setup import Precision, TrainingSetup
from ...text import Message, trans_late
from .. import rules
from .imported import ImportedConfig
from .model import ConfigKind, Derived, UnknownKey, Unread

_KEY_VALUE = trans_late("ConfigImport", "{key} = {value}: {reason}")
_UNKNOWN = trans_late("ConfigImport", "{key}: {reason}")
_UNKNOWN_NEAR = trans_late("ConfigImport", "{key}: {reason} (did you mean {suggestion}?)")


def unread_text(u: Unread) -> Message:
    """``key = value: reason``."""
    return _KEY_VALUE.format(key=u.key, value=u.value, reason=u.reason)


def unknown_text(u: UnknownKey) -> Message:
    """``key: reason`` with "did you mean …?" for a near miss."""
    if u.suggestion:
        return _UNKNOWN_NEAR.format(key=u.key, reason=u.reason, suggestion=u.suggestion)
    return _UNKNOWN.format(key=u.key, reason=u.reason)


@dataclass(frozen=True)
class Verdict:
    derived: Derived
    # the setup the file describes (None: something is missing or refused)
    setup: TrainingSetup | None
    # English names of what is still missing (empty when refused)
    missing: tuple[str, ...]
    # why these values cannot run (the framework's refusal, or a setup no framework
    # runs), or None
    problem: str | None
    # the framework's own refusals (the file would not run): its check of the values,
    # refused values and refused unknown keys
    refusals: tuple[str, ...]
    # every problem: the refusals first, then the framework's warnings, the keys
    # gradacc could not use and the unknown keys the framework ignores
    problems: tuple[str, ...]
    # effective batch x sequence length, when both are known
    tokens_per_step: int | None
    # the samples are not packed: padded or cut to the sequence length, the tokens per
    # step are at most ``tokens_per_step``
    tokens_at_most: bool = True

    @property
    def accepts(self) -> bool:
        """The framework would run the file as given (open values such as "auto" are
        fine)."""
        return not self.refusals


def verdict(config: ImportedConfig, gpus: int | None = None) -> Verdict:
    """``config`` on ``gpus`` GPUs (None: the file's count, see ``derived``)."""
    d = config.derived(gpus)
    setup, reasons = config.setup(gpus)
    missing = () if d.problem is not None else tuple(config.missing(gpus))
    problem = d.problem
    if setup is None and not missing and reasons:
        problem = reasons[0]  # a setup no framework runs (nodes, offload without ZeRO)
    refusals: list[str] = [d.problem] if d.problem is not None else []
    refusals += [unread_text(u) for u in config.unread if u.refused]
    refusals += [unknown_text(u) for u in config.unknown_keys if u.refused]
    framework = _framework(config)
    if setup is not None and framework is not None:
        # what the framework refuses of the layout the file describes: the rule book's
        refusals += [r.message for r in rules.refusals(setup, None, framework)]
    problems = list(refusals)
    if problem is not None and problem not in problems:
        problems.append(problem)
    problems += list(d.warnings)
    problems += [unread_text(u) for u in config.unread if not u.refused]
    problems += [unknown_text(u) for u in config.unknown_keys if not u.refused]
    tokens = (
        d.effective_batch * config.sequence_length
        if d.effective_batch is not None and config.sequence_length is not None
        else None
    )
    return Verdict(
        derived=d,
        setup=setup,
        missing=missing,
        problem=problem,
        refusals=tuple(refusals),
        problems=tuple(problems),
        tokens_per_step=tokens,
        tokens_at_most=config.packing is not True,
    )


def _framework(config: ImportedConfig) -> Framework | None:
    """The framework that runs the file, when the rule book has its rules."""
    kind, distributed = config.kind, (config.distributed_type or "").upper()
    if kind in (ConfigKind.DEEPSPEED, ConfigKind.NEOX) or distributed == "DEEPSPEED":
        return Framework.DEEPSPEED
    if kind is ConfigKind.TORCHTUNE or distributed == "FSDP":
        return Framework.FSDP
    if kind is not ConfigKind.ACCELERATE and config.zero_stage is not None:
        return Framework.DEEPSPEED  # a DeepSpeed JSON beside the trainer's file
    return None


def described_setup(
    config: ImportedConfig, gpus: int | None = None
) -> tuple[TrainingSetup | None, tuple[str, ...], bool]:
    """The setup to put into a training description: ``config.setup(gpus)``, except that
    a precision left "auto" is taken as bf16 (what axolotl and the Trainer's "auto"
    choose on every GPU that has bf16; the description's card says whether it does).

    Returns ``(setup, reasons, assumed_bf16)``: ``reasons`` as ``setup`` gives them
    when there is no setup."""
    setup, reasons = config.setup(gpus)
    if setup is not None or "precision" not in config.auto_fields:
        return setup, tuple(reasons), False
    assumed = replace(
        config,
        precision=Precision.BF16,
        unresolved=tuple(f for f in config.unresolved if f != "precision"),
        auto_fields=tuple(f for f in config.auto_fields if f != "precision"),
    )
    setup, still = assumed.setup(gpus)
    if setup is None:
        return None, tuple(still), False
    return setup, (), True
