"""The pairs table: candidate (micro-batch, accumulation steps) pairs and whether
each fits in one GPU."""

from __future__ import annotations

from typing import final

from gradacc_desktop.core.frameworks import batch_verdicts
from gradacc_desktop.core.planning import AccumulationPlan, PlanPair
from gradacc_desktop.viewmodels.planner.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.timing import PairTime
from gradacc_desktop.viewmodels.planner.views import PairRow


@final
class PairsTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    @staticmethod
    def pairs(pairs: tuple[PlanPair, ...], current: AccumulationPlan | None) -> dict[int, PlanPair]:
        """The table's pairs by micro-batch: ``pairs`` and the configuration in use."""
        by_micro = {p.micro_batch: p for p in pairs}
        if current is not None and current.micro_batch not in by_micro:
            by_micro[current.micro_batch] = PlanPair(
                current.micro_batch,
                current.accumulation_steps,
                current.effective_batch,
                current.difference,
                current.exact,
            )
        return by_micro

    def rows(
        self,
        by_micro: dict[int, PlanPair],
        largest_fit: int,
        current: AccumulationPlan | None,
        gpus: int = 1,
        times: dict[int, PairTime] | None = None,
    ) -> tuple[PairRow, ...]:
        """The pairs (see ``pairs``) as rows, ascending, the configuration in use
        (``current``) among them; a pair fits up to the micro-batch ``largest_fit``.
        Each row carries DeepSpeed's and Megatron's verdict on the target with that pair
        and, with ``times``, its time per step and tokens per second ("—" without)."""
        self._gpus = gpus
        f = self._formats.format
        none = "—"
        yes, no = self.tr("Yes"), self.tr("No")
        both, neither = self.tr("Both accept"), self.tr("Refused")
        rows = []
        for micro in sorted(by_micro):
            pair = by_micro[micro]
            fits = pair.micro_batch <= largest_fit
            if pair.exact:
                achieved = self.tr("{batch} (exact)").format(batch=f(pair.effective_batch))
            else:
                achieved = self.tr("{batch} ({difference})").format(
                    batch=f(pair.effective_batch),
                    difference=self._formats.signed(pair.difference),
                )
            verdicts = batch_verdicts(
                current.target if current is not None else pair.effective_batch - pair.difference,
                pair.micro_batch,
                pair.accumulation_steps,
                current.gpus if current is not None else self._gpus,
            )
            rows.append(
                PairRow(
                    micro_batch=pair.micro_batch,
                    accumulation_steps=pair.accumulation_steps,
                    cells=(
                        f(pair.micro_batch),
                        f(pair.accumulation_steps),
                        achieved,
                        yes if fits else no,
                        both if verdicts.both_accept else neither,
                        times[micro].step if times else none,
                        times[micro].throughput if times else none,
                    ),
                    fits=fits,
                    exact=pair.exact,
                    accepted=verdicts.both_accept,
                    current=current is not None and pair.micro_batch == current.micro_batch,
                )
            )
        return tuple(rows)

    def note(self) -> str:
        return self.tr(
            "Exact divisors, powers of two and the largest useful micro-batch; the row in use "
            "is in bold. DeepSpeed (train_batch_size) and Megatron (--global-batch-size) given "
            "the target accept only the pairs that reach it exactly. Return or a double-click "
            "uses the selected row."
        )
