"""Each framework's own rule for a batch configuration, replayed before we show it.

Only two frameworks refuse batch values: DeepSpeed (``train_batch_size`` must equal
micro-batch × accumulation steps × GPUs, see ``planning.deepspeed_check``) and
Megatron, which is given the global batch and the micro-batch and derives the
accumulation steps itself::

    # megatron/core/num_microbatches_calculator.py, ConstantNumMicroBatchesCalculator
    micro_batch_times_data_parallel = micro_batch_size * data_parallel_size
    assert global_batch_size % micro_batch_times_data_parallel == 0
    num_micro_batches = global_batch_size // micro_batch_times_data_parallel

Hugging Face, Accelerate, Lightning and plain PyTorch take any positive micro-batch
and accumulation steps: the effective batch is whatever they multiply to.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..batch.planning import DeepSpeedCheck, deepspeed_check
from ..text import Message, trans_late

__all__ = ["BatchVerdicts", "MegatronCheck", "batch_verdicts", "megatron_check"]


@dataclass(frozen=True)
class MegatronCheck:
    ok: bool
    global_batch_size: int
    micro_batch: int
    data_parallel: int
    # the accumulation steps Megatron derives (None when it refuses)
    derived_steps: int | None


def megatron_check(global_batch_size: int, micro_batch: int, data_parallel: int) -> MegatronCheck:
    """Megatron's rule: the global batch is a multiple of micro-batch × data-parallel."""
    for name, value in (
        ("global_batch_size", global_batch_size),
        ("micro_batch", micro_batch),
        ("data_parallel", data_parallel),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    per_step = micro_batch * data_parallel
    ok = global_batch_size % per_step == 0
    return MegatronCheck(
        ok=ok,
        global_batch_size=global_batch_size,
        micro_batch=micro_batch,
        data_parallel=data_parallel,
        derived_steps=global_batch_size // per_step if ok else None,
    )


def megatron_text(check: MegatronCheck, steps: int | None = None) -> Message:
    """Megatron's verdict on ``--global-batch-size`` and ``--micro-batch-size`` as one
    English sentence (the one wording ``gradacc plan``, ``gradacc check`` and the window
    use); ``steps``: the accumulation steps the setup means, when known."""
    # the flags' values as the command line takes them (plain digits in every locale)
    values = {
        "batch": str(check.global_batch_size),
        "micro": str(check.micro_batch),
        "gpus": check.data_parallel,
    }
    if not check.ok:
        return trans_late(
            "Frameworks",
            "Megatron refuses --global-batch-size {batch} --micro-batch-size {micro} on "
            "{gpus} data-parallel GPU(s): the global batch is not a multiple of micro-batch "
            "x GPUs = {per_step}.",
        ).format(**values, per_step=check.micro_batch * check.data_parallel)
    if steps is not None and check.derived_steps != steps:
        return trans_late(
            "Frameworks",
            "Megatron accepts --global-batch-size {batch} --micro-batch-size {micro} but "
            "derives {derived} accumulation step(s), not {steps}.",
        ).format(**values, derived=check.derived_steps, steps=steps)
    return trans_late(
        "Frameworks",
        "Megatron accepts --global-batch-size {batch} --micro-batch-size {micro} and derives "
        "{derived} accumulation step(s).",
    ).format(**values, derived=check.derived_steps)


@dataclass(frozen=True)
class BatchVerdicts:
    """Would DeepSpeed and Megatron start with the recipe's batch ``target`` (given as
    ``train_batch_size`` / ``--global-batch-size``) and this micro-batch and steps?"""

    target: int
    micro_batch: int
    accumulation_steps: int
    gpus: int
    deepspeed: DeepSpeedCheck
    megatron: MegatronCheck

    @property
    def megatron_agrees(self) -> bool:
        """Megatron starts and derives exactly these accumulation steps."""
        return self.megatron.ok and self.megatron.derived_steps == self.accumulation_steps

    @property
    def both_accept(self) -> bool:
        """Both start, and Megatron derives exactly these accumulation steps."""
        return self.deepspeed.ok and self.megatron_agrees

    @property
    def effective_batch(self) -> int:
        return self.micro_batch * self.accumulation_steps * self.gpus

    def deepspeed_advice(self) -> Message | None:
        """What to give DeepSpeed when it refuses the target (None: it accepts it)."""
        return None if self.deepspeed.ok else self._advice("train_batch_size")

    def megatron_advice(self) -> Message | None:
        """What to give Megatron when it refuses the target or derives other steps."""
        return None if self.megatron_agrees else self._advice("--global-batch-size")

    def _advice(self, setting: str) -> Message:
        # the setting's value as a config file takes it: plain digits in every locale
        return trans_late(
            "Frameworks",
            "Give it {setting} {batch} (the exported configuration does), or choose a "
            "micro-batch that reaches {target} exactly.",
        ).format(setting=setting, batch=str(self.effective_batch), target=self.target)


def batch_verdicts(
    target: int, micro_batch: int, accumulation_steps: int, gpus: int
) -> BatchVerdicts:
    return BatchVerdicts(
        target=target,
        micro_batch=micro_batch,
        accumulation_steps=accumulation_steps,
        gpus=gpus,
        deepspeed=deepspeed_check(target, micro_batch, accumulation_steps, gpus),
        megatron=megatron_check(target, micro_batch, gpus),
    )
