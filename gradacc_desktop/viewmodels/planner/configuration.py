"""The configuration card: the micro-batch, the accumulation steps they give, how
close they come to the target and which micro-batches would reach it exactly."""

from __future__ import annotations

from decimal import Decimal
from typing import final

from gradacc_desktop.core.batch import AccumulationPlan
from gradacc_desktop.core.calculator import LIMITS, Field, check_value
from gradacc_desktop.viewmodels.calculator import TIMES
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.views import ConfigurationView

# Exact micro-batches listed before "…and N more".
MAX_EXACT_SHOWN = 12


@final
class ConfigurationTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    def view(
        self, plan: AccumulationPlan, activation_gb: Decimal | None, recommended: bool
    ) -> ConfigurationView:
        """``plan`` in words; ``recommended``: the planner chose its micro-batch;
        ``activation_gb``: one sample's activations for the calculator (None: unknown, the
        calculator keeps its own)."""
        f = self._formats.format
        micro, a, gpus, e = (
            plan.micro_batch,
            plan.accumulation_steps,
            plan.gpus,
            plan.effective_batch,
        )
        on_gpus = self._formats.gpus_text(gpus)
        exact_title, exact_pairs = self._exact_pairs(plan, on_gpus)
        calc_ok = (
            check_value(Field.MICRO_BATCH, micro) is None
            and check_value(Field.ACCUMULATION_STEPS, a) is None
            and check_value(Field.GPUS, gpus) is None
        )
        return ConfigurationView(
            title=self.tr("Recommended configuration")
            if recommended
            else self.tr("Your configuration"),
            recommended=recommended,
            micro_batch=micro,
            accumulation_steps=a,
            gpus=gpus,
            activation_gb=activation_gb,
            effective_batch=e,
            achieved=f(e),
            formula=" ".join(["E =", f(micro), TIMES, f(a), TIMES, f(gpus), "=", f(e)]),
            summary=self.tr("Micro-batch {micro} · accumulation steps {steps} · {gpus}").format(
                micro=f(micro), steps=f(a), gpus=on_gpus
            ),
            difference=self._difference(plan),
            exact=plan.exact,
            exact_badge=self.tr("Exact") if plan.exact else self.tr("Not exact"),
            reachable=self._reachable(plan, on_gpus),
            exact_pairs_title=exact_title,
            exact_pairs=exact_pairs,
            note=self._note(plan) if recommended else "",
            can_use=calc_ok,
            use_hint=""
            if calc_ok
            else self.tr(
                "The calculator accepts at most {maximum} for micro-batch, accumulation steps "
                "and GPUs."
            ).format(maximum=f(LIMITS[Field.MICRO_BATCH].maximum)),
        )

    def _difference(self, plan: AccumulationPlan) -> str:
        target = self._formats.format(plan.target)
        counted = self._formats.counted
        if plan.exact:
            return self.tr("Exactly the target of {target}.").format(target=target)
        if plan.difference > 0:
            above = counted(
                lambda n: self.tr("%n sample(s) above the target of {target}.", "", n),
                plan.difference,
            ).format(target=target)
            if plan.floor_unreachable:  # rounding down, yet even one step overshoots
                within = plan.largest_micro_batch_within
                hint = (
                    self.tr(
                        "Rounding down cannot stay within it: use a micro-batch of at most {b}."
                    ).format(b=self._formats.format(within))
                    if within is not None
                    else self.tr(
                        "Rounding down cannot stay within it: use at most {g} GPUs."
                    ).format(g=target)
                )
                return f"{above} {hint}"
            return above
        return counted(
            lambda n: self.tr("%n sample(s) below the target of {target}.", "", n),
            abs(plan.difference),
        ).format(target=target)

    def _reachable(self, plan: AccumulationPlan, on_gpus: str) -> str:
        if plan.exact:
            return ""
        f = self._formats.format
        if plan.reachable_below is None:
            text = self.tr(
                "With micro-batch {micro} on {gpus}, the smallest reachable batch is {above}: "
                "a single step already passes the target."
            )
        else:
            text = self.tr(
                "With micro-batch {micro} on {gpus}, the nearest batches reached exactly are "
                "{below} (below) and {above} (above)."
            )
        return text.format(
            micro=f(plan.micro_batch),
            gpus=on_gpus,
            target=f(plan.target),
            below=f(plan.reachable_below) if plan.reachable_below is not None else "",
            above=f(plan.reachable_above),
        )

    def _exact_pairs(self, plan: AccumulationPlan, on_gpus: str) -> tuple[str, str]:
        """(title, list) of the micro-batches that reach the target exactly."""
        f = self._formats.format
        target = f(plan.target)
        if not plan.exact_micro_batches:
            title = self.tr(
                "No micro-batch reaches {target} exactly on {gpus}: the target is not a "
                "multiple of the number of GPUs."
            ).format(target=target, gpus=on_gpus)
            return title, ""
        title = self.tr("Micro-batches that reach {target} exactly on {gpus}:").format(
            target=target, gpus=on_gpus
        )
        # non-breaking spaces: a pair never wraps in the middle
        items = [
            f"b\u00a0=\u00a0{f(p.micro_batch)}\u00a0→\u00a0a\u00a0=\u00a0{f(p.accumulation_steps)}"
            for p in plan.exact_micro_batches
        ]
        shown = ", ".join(items[:MAX_EXACT_SHOWN])
        hidden = len(items[MAX_EXACT_SHOWN:])
        if hidden:
            shown += " " + self._formats.counted(lambda n: self.tr("…and %n more", "", n), hidden)
        return title, shown

    def _note(self, plan: AccumulationPlan) -> str:
        """Why the planner recommends this micro-batch."""
        if plan.exact:
            return self.tr("The largest micro-batch that fits and reaches the target exactly.")
        return self.tr(
            "No micro-batch that fits reaches the target exactly: this one comes "
            "closest on the side the rounding mode allows."
        )
