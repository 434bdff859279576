"""The "Training cost" card in words: what the run trains, its wall-clock time, its
GPU-hours, the price per GPU-hour in the user's currency and the total — the core's run
totals (``Plan.run``, ``time.run_totals``), or what is missing for them.

The currency is display only: a price is a number in the user's currency and the total
is in the same one; nothing is converted."""

from __future__ import annotations

import enum
from decimal import Decimal
from fractions import Fraction
from typing import final

from gradacc_desktop.core.time import to_decimal
from gradacc_desktop.core.training.plan import Plan, RunLine
from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.planner.timing import TimingTexts
from gradacc_desktop.viewmodels.planner.views import CostLine, CostView

# the place of the amount in Qt's currency pattern of a locale ("¤ 1,00", "¤1.00")
CURRENCY_SIGN = "\u00a4"


class Currency(enum.Enum):
    """The currencies the price and the total can be shown in (by ISO code)."""

    BRL = "BRL"
    USD = "USD"
    EUR = "EUR"
    GBP = "GBP"

    @property
    def symbol(self) -> str:
        return _SYMBOLS[self]


_SYMBOLS = {Currency.BRL: "R$", Currency.USD: "US$", Currency.EUR: "€", Currency.GBP: "£"}


def default_currency(language: str) -> Currency:
    """A language's first currency: R$ in Portuguese, US$ otherwise."""
    return Currency.BRL if language.startswith("pt") else Currency.USD


@final
class CostTexts(Translating):
    def __init__(self, formats: PlanFormats, timing: TimingTexts) -> None:
        self._formats = formats
        self._timing = timing

    # -- fixed words ------------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Training cost")

    def currency_label(self) -> str:
        return self.tr("Currency")

    def currency_name(self, currency: Currency) -> str:
        """The currency as its list names it: "R$ (real)"."""
        name = {
            Currency.BRL: self.tr("real"),
            Currency.USD: self.tr("US dollar"),
            Currency.EUR: self.tr("euro"),
            Currency.GBP: self.tr("pound sterling"),
        }[currency]
        return f"{currency.symbol} ({name})"

    def row_labels(self) -> tuple[str, str, str, str, str]:
        """What is trained, wall-clock time, GPU-hours, price per GPU-hour, total."""
        return (
            self.tr("Trained"),
            self.tr("Wall-clock time"),
            self.tr("GPU-hours"),
            self.tr("Price per GPU-hour"),
            self.tr("Total cost"),
        )

    # -- money ------------------------------------------------------------------------
    def money(self, amount: Decimal, currency: Currency, places: int = 2) -> str:
        """``amount`` with ``places`` decimals (or more, as typed) and the currency's
        symbol where the locale puts it: "R$ 1.234,56", "US$1,234.56"."""
        exponent = amount.normalize().as_tuple().exponent
        shown = max(places, -exponent if isinstance(exponent, int) else places)
        whole, _point, decimals = f"{amount:.{shown}f}".partition(".")
        locale = self._formats.locale
        number = self._formats.format(int(whole)) + locale.decimalPoint() + decimals
        pattern = locale.toCurrencyString(1.0, CURRENCY_SIGN, 2)
        one = self._formats.format(1) + locale.decimalPoint() + "00"
        return pattern.replace(one, number, 1).replace(CURRENCY_SIGN, currency.symbol, 1)

    # -- the card ---------------------------------------------------------------------
    def unavailable(self, why: str) -> CostView:
        """No time per step: ``why`` (the time card's own reason)."""
        return CostView(
            lines=(),
            price="",
            missing=self.tr("No run time or cost without a time per step. {why}").format(why=why),
        )

    def view(self, plan: Plan, currency: Currency, labels: tuple[str, str, str, str]) -> CostView:
        """``labels``: the description's fields of the token budget, the dataset size,
        the epochs and the price (their names in the panel, to say what to type)."""
        budget = plan.description.run
        tokens, dataset, epochs, price_field = labels
        price = budget.price_per_gpu_hour
        price_text = "" if price is None else self.money(price, currency)
        world = 0 if plan.current is None or plan.current.time is None else plan.current.time.world
        lines = tuple(
            self._line(line, budget.dataset_samples, world, currency) for line in plan.run
        )
        missing = ""
        if not lines:
            missing = self.tr(
                "Type the “{tokens}”, or the “{dataset}” (and “{epochs}”), in the training "
                "description to see the run's time and cost."
            ).format(tokens=tokens, dataset=dataset, epochs=epochs)
        elif price is None:
            missing = self.tr(
                "No total without the price: type the “{price}” in the training description."
            ).format(price=price_field)
        note = ""
        if budget.goodput is not None and lines:
            note = self.tr(
                "The time and cost count a goodput of {goodput}: the rest of the wall-clock "
                "time goes to restarts, checkpoints and lost work."
            ).format(goodput=self._timing.percent(Fraction(budget.goodput)))
        return CostView(lines=lines, price=price_text, missing=missing, note=note)

    def _line(self, line: RunLine, samples: int | None, world: int, currency: Currency) -> CostLine:
        f = self._formats.format
        totals = line.totals
        steps = self._formats.counted(
            lambda n: self.tr("%n optimizer step(s)", "", n), totals.steps
        )
        if line.kind == "epochs":
            trained = self._formats.counted(
                lambda n: self.tr("%n epoch(s) of {samples} samples", "", n), line.amount
            ).format(samples=f(samples or 0))
        else:
            trained = self.tr("{tokens} tokens").format(tokens=f(line.amount))
        return CostLine(
            trained=self.tr("{trained} · {steps}").format(trained=trained, steps=steps),
            time=self._timing.duration(totals.seconds),
            gpu_hours=self.tr("{hours} ({gpus})").format(
                hours=f(to_decimal(totals.gpu_hours, 1)), gpus=self._formats.gpus_text(world)
            ),
            total="" if totals.cost is None else self.money(to_decimal(totals.cost, 2), currency),
        )
