"""The framework card: would DeepSpeed and Megatron accept the configuration with the
target as their batch size, and why (not)."""

from __future__ import annotations

from typing import final

from gradacc_desktop.core.batch import DeepSpeedReason, deepspeed_check
from gradacc_desktop.core.frameworks import megatron_check
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.views import ConfigurationView, DeepSpeedView


@final
class DeepSpeedTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    def view(self, target: int, config: ConfigurationView) -> DeepSpeedView:
        b, a, g = config.micro_batch, config.accumulation_steps, config.gpus
        check = deepspeed_check(target, b, a, g)
        f = self._formats.format
        values = {
            "target": f(target),
            "micro": f(b),
            "steps": f(a),
            "gpus": f(g),
            "on_gpus": self._formats.gpus_text(g),
            "product": f(check.product) if check.product is not None else "",
        }
        if check.ok:
            verdict = self.tr("DeepSpeed accepts these values")
        else:
            verdict = self.tr("DeepSpeed would refuse to start")
        explanation = self._explanation(check.reason).format(**values)
        megatron = megatron_check(target, b, g)
        values["per_step"] = f(b * g)
        if megatron.ok and megatron.derived_steps == a:
            m_verdict = self.tr("Megatron accepts these values")
            m_text = self.tr(
                "With --global-batch-size {target} and --micro-batch-size {micro} on {on_gpus}, "
                "Megatron derives {steps} accumulation steps, as planned."
            )
        elif megatron.ok:
            m_verdict = self.tr("Megatron starts, with other accumulation steps")
            values["derived"] = f(megatron.derived_steps or 0)
            m_text = self.tr(
                "With --global-batch-size {target} Megatron derives {derived} accumulation "
                "steps, not {steps}: give it --global-batch-size {product} (the export does)."
            )
        else:
            m_verdict = self.tr("Megatron would refuse to start")
            m_text = self.tr(
                "Megatron requires the global batch to be a multiple of micro-batch × GPUs "
                "({per_step}); {target} is not. Give it --global-batch-size {product} (the "
                "export does) or choose a micro-batch that reaches {target} exactly."
            )
        return DeepSpeedView(
            ok=check.ok,
            verdict=verdict,
            explanation=explanation,
            megatron_ok=megatron.ok and megatron.derived_steps == a,
            megatron_verdict=m_verdict,
            megatron_explanation=m_text.format(**values),
        )

    def _explanation(self, reason: DeepSpeedReason) -> str:
        return {
            DeepSpeedReason.OK: self.tr(
                "With train_batch_size = {target}, train_micro_batch_size_per_gpu = {micro} and "
                "gradient_accumulation_steps = {steps} on {on_gpus}, the batch sizes agree: "
                "{micro} × {steps} × {gpus} = {target}."
            ),
            DeepSpeedReason.PRODUCT_MISMATCH: self.tr(
                "DeepSpeed requires train_batch_size = micro-batch × accumulation steps × GPUs. "
                "With train_batch_size = {target} it stops, because {micro} × {steps} × {gpus} = "
                "{product}. Give it train_batch_size = {product} (the exported configuration "
                "does) or choose a micro-batch that reaches {target} exactly."
            ),
            DeepSpeedReason.NOT_DIVISIBLE: self.tr(
                "DeepSpeed derives a missing batch value by whole-number division; here the "
                "division does not come out even, so the values no longer multiply to "
                "train_batch_size and it stops."
            ),
            DeepSpeedReason.DERIVED_ZERO_STEPS: self.tr(
                "train_batch_size = {target} is smaller than micro-batch × GPUs, so the "
                "accumulation steps DeepSpeed derives come out as 0 and it stops."
            ),
            DeepSpeedReason.DERIVED_ZERO_MICRO_BATCH: self.tr(
                "train_batch_size = {target} is smaller than accumulation steps × GPUs, so the "
                "micro-batch DeepSpeed derives comes out as 0 and it stops."
            ),
            DeepSpeedReason.NON_POSITIVE: self.tr(
                "Every batch value DeepSpeed receives must be at least 1."
            ),
            DeepSpeedReason.MISSING_BATCH_SIZE: self.tr(
                "DeepSpeed needs train_batch_size or train_micro_batch_size_per_gpu."
            ),
        }[reason]
