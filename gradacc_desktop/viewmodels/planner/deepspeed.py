"""The framework card: would DeepSpeed and Megatron accept the configuration with the
target as their batch size, and why (not).

The verdicts, their sentences and the advice are the core's (``core.frameworks``: the
same words ``gradacc plan`` and ``gradacc check`` print), said in the window's language;
only the card's headlines are written here."""

from __future__ import annotations

from typing import final

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.frameworks import batch_verdicts, megatron_text
from gradacc_desktop.core.frameworks.config_import import deepspeed_text
from gradacc_desktop.core.frameworks.rules import Refusal
from gradacc_desktop.core.text import Message
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.views import ConfigurationView, DeepSpeedView


@final
class DeepSpeedTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    def view(
        self, target: int, config: ConfigurationView, refusals: tuple[Refusal, ...] = ()
    ) -> DeepSpeedView:
        """``refusals``: what the frameworks refuse of the setup (the plan's, the rule
        book's): said first, before the batch verdicts."""
        a = config.accumulation_steps
        v = batch_verdicts(target, config.micro_batch, a, config.gpus)
        ds_refused = [r.message for r in refusals if r.framework is Framework.DEEPSPEED]
        m_refused = [r.message for r in refusals if r.framework is Framework.MEGATRON]
        if v.deepspeed.ok and not ds_refused:
            verdict = self.tr("DeepSpeed accepts these values")
        else:
            verdict = self.tr("DeepSpeed would refuse to start")
        if m_refused:
            m_verdict = self.tr("Megatron would refuse to start")
        elif v.megatron_agrees:
            m_verdict = self.tr("Megatron accepts these values")
        elif v.megatron.ok:
            m_verdict = self.tr("Megatron starts, with other accumulation steps")
        else:
            m_verdict = self.tr("Megatron would refuse to start")
        return DeepSpeedView(
            ok=v.deepspeed.ok and not ds_refused,
            verdict=verdict,
            explanation=self._said(*ds_refused, deepspeed_text(v.deepspeed), v.deepspeed_advice()),
            megatron_ok=v.megatron_agrees and not m_refused,
            megatron_verdict=m_verdict,
            megatron_explanation=self._said(
                *m_refused, megatron_text(v.megatron, a), v.megatron_advice()
            ),
        )

    def _said(self, *texts: str | Message | None) -> str:
        return " ".join(self._formats.said(t) for t in texts if t is not None)
