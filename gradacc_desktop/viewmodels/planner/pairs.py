"""The pairs table: the candidate (micro-batch, accumulation steps) pairs of the plan,
whether each fits in one GPU, the frameworks' verdicts and each one's time."""

from __future__ import annotations

from typing import final

from gradacc_desktop.core.training.plan import PairPlan
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.timing import TimingTexts
from gradacc_desktop.viewmodels.planner.views import PairRow

#: shown where a pair has no value (memory unknown, no time)
NONE = "—"


@final
class PairsTexts(Translating):
    def __init__(self, formats: PlanFormats, timing: TimingTexts) -> None:
        self._formats = formats
        self._timing = timing

    def rows(self, pairs: tuple[PairPlan, ...], current: int | None) -> tuple[PairRow, ...]:
        """Each pair as a row, ascending by micro-batch; ``current``: the micro-batch in use."""
        f = self._formats.format
        yes, no = self.tr("Yes"), self.tr("No")
        both, neither = self.tr("Both accept"), self.tr("Refused")
        # interleaved 1F1B runs whole groups of pipeline-stages micro-batches only
        unscheduled = self.tr("Refused: interleaving")
        rows = []
        for pair in pairs:
            p = pair.pair
            if p.exact:
                achieved = self.tr("{batch} (exact)").format(batch=f(p.effective_batch))
            else:
                achieved = self.tr("{batch} ({difference})").format(
                    batch=f(p.effective_batch), difference=self._formats.signed(p.difference)
                )
            fits = NONE if pair.fits is None else (yes if pair.fits else no)
            time = pair.time
            rows.append(
                PairRow(
                    micro_batch=p.micro_batch,
                    accumulation_steps=p.accumulation_steps,
                    cells=(
                        f(p.micro_batch),
                        f(p.accumulation_steps),
                        achieved,
                        fits,
                        (
                            unscheduled
                            if not pair.schedule_ok
                            else both
                            if pair.verdicts.both_accept
                            else neither
                        ),
                        NONE if time is None else self._timing.seconds(time.step_seconds),
                        NONE if time is None else self._timing.rate(time.tokens_per_second),
                    ),
                    fits=pair.fits,
                    exact=p.exact,
                    accepted=pair.verdicts.both_accept and pair.schedule_ok,
                    current=p.micro_batch == current,
                )
            )
        return tuple(rows)

    def note(self, in_use: bool = True, over: bool = False) -> str:
        """What the table lists; ``in_use``: a row is the configuration in use (none while
        nothing fits or which fits is not known); ``over``: some row does not fit (grey)."""
        if not in_use:
            listed = self.tr(
                "Exact divisors, powers of two and the largest useful micro-batch; none is in "
                "use yet."
            )
        else:
            listed = self.tr(
                "Exact divisors, powers of two and the largest useful micro-batch; the row in "
                "use is in bold."
            )
        grey = self.tr("A grey row does not fit in one GPU's memory.") if over else ""
        rest = self.tr(
            "DeepSpeed (train_batch_size) and Megatron (--global-batch-size) given the target "
            "accept only the pairs that reach it exactly. Return or a double-click uses the "
            "selected row."
        )
        return " ".join(part for part in (listed, grey, rest) if part)
