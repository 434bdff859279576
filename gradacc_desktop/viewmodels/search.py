"""Find the best setup: the core's search over ZeRO stage, offload, recomputation,
tensor parallelism, pipeline stages and the pair, for the training description on a
number of GPUs — the best with the next ones, and why every other option is out. One
click makes a setup the description's."""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction

from PySide6.QtCore import QObject, Signal

from gradacc_desktop.core.memory import Offload, ZeroStage
from gradacc_desktop.core.time import LAYOUT_LIMITS, Recompute, significant
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.search import (
    Blocked,
    Candidate,
    Exclusion,
    ExclusionReason,
    SearchResult,
    Unsearchable,
    search,
)
from gradacc_desktop.viewmodels.formatting import Entry, same_entry
from gradacc_desktop.viewmodels.number_input import NumberInput
from gradacc_desktop.viewmodels.planner.fit import FitTexts
from gradacc_desktop.viewmodels.planner.timing import TimingTexts
from gradacc_desktop.viewmodels.problems import describe
from gradacc_desktop.viewmodels.shared_texts import RECOMPUTATION, say
from gradacc_desktop.viewmodels.training.model import TrainingState, TrainingViewModel


@dataclass(frozen=True)
class RankedRow:
    #: the layout in a line ("ZeRO-2 · 8 data × 1 tensor × 1 pipeline")
    setup: str
    #: "1 × 64"
    pair: str
    step: str
    memory: str
    #: against the best, in words: "★ Best", "4.3 % slower", "as fast, but less simple"
    versus: str = ""
    best: bool = False
    #: the training description's setup now (after "Use")
    in_use: bool = False


@dataclass(frozen=True)
class SearchState:
    #: nothing searched yet, or why there is nothing to search ("" with results)
    message: str = ""
    #: the best setup in a line ("" without one)
    best: str = ""
    ranking: tuple[RankedRow, ...] = ()
    #: why each other option is out, a line each
    exclusions: tuple[str, ...] = ()
    #: the description changed since: the results are of an older one
    stale: bool = False
    #: a problem of the GPUs field
    problem: str = ""
    #: the GPUs field's placeholder: the description's world (data × tensor × pipeline ×
    #: context), followed live
    world: str = ""


def _searched(d: TrainingDescription) -> TrainingDescription:
    """``d`` without what the search chooses or derives for each setup."""
    return replace(
        d,
        gpus=1,
        tensor_parallel=1,
        pipeline_stages=1,
        zero_stage=ZeroStage.NONE,
        offload=Offload.NONE,
        recompute=Recompute.NONE,
        micro_batch=None,
        activation_gb=None,
        other_memory_gb=None,
    )


class SearchViewModel(QObject):
    stateChanged = Signal(object)

    def __init__(self, training: TrainingViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._training = training
        self._timing = TimingTexts(training.formats)
        self._fit = FitTexts(training.formats)
        self._world = NumberInput(LAYOUT_LIMITS, locale=training.locale)
        self._world_entry: Entry = None
        self._result: SearchResult | None = None
        self._state = SearchState(message=self._prompt(), world=self.world_placeholder())
        training.stateChanged.connect(self._on_training)

    # -- the GPUs field ----------------------------------------------------------------
    @property
    def state(self) -> SearchState:
        return self._state

    @property
    def result(self) -> SearchResult | None:
        return self._result

    def world_input(self) -> NumberInput:
        return self._world

    def world_label(self, mnemonic: bool = False) -> str:
        text = self.tr("GPUs in all")
        return text if mnemonic else text.replace("&", "")

    def world_hint(self) -> str:
        return self.tr(
            "Every GPU of the run (data × tensor × pipeline × context). Empty: the "
            "description's, {world}."
        ).format(world=self._training.formats.format(self._description_world()))

    def world_placeholder(self) -> str:
        return self._training.formats.format(self._description_world())

    def set_world_text(self, text: str) -> None:
        raw = self._world.read(text)
        if not same_entry(raw, self._world_entry):
            self._world_entry = raw
            self._state = replace(
                self._state, stale=self._result is not None, problem=self._world_problem()
            )
            self.stateChanged.emit(self._state)

    def _world_problem(self) -> str:
        if self._world_entry is None:
            return ""
        return describe(self.world_label(), self._world_entry, self._world) or ""

    def _description_world(self) -> int:
        d = self._training.description
        return 1 if d is None else d.world

    # -- searching ---------------------------------------------------------------------
    def run(self) -> None:
        """Search the description's best setup on the GPUs asked for."""
        d = self._training.description
        if d is None:
            self._result = None
            self._publish(SearchState(message=self._prompt()))
            return
        if self._world_problem():
            self._publish(SearchState(problem=self._world_problem(), message=self._prompt()))
            return
        world = self._description_world()
        if isinstance(self._world_entry, Decimal):
            world = int(self._world_entry)
        self._result = search(d, world, d.nodes)
        self._publish(self._words(self._result))

    def use(self, index: int = 0) -> str | None:
        """Make the ``index``-th ranked setup the description's; a status message.
        Nothing when the results are of an older description (they would undo the
        user's changes since)."""
        result = self._result
        if result is None or self._state.stale or not 0 <= index < len(result.ranking):
            return None
        chosen = result.ranking[index]
        applied = result.applied(chosen)
        assert applied is not None
        self._training.apply(applied)
        return self.tr("The training description now uses {setup}.").format(
            setup=self._setup(chosen)
        )

    def set_language(self) -> None:
        self._world.locale = self._training.locale
        if self._result is not None:
            self._publish(self._words(self._result, stale=self._state.stale))
        else:
            self._publish(SearchState(message=self._prompt()))

    # -- internals --------------------------------------------------------------------
    def _on_training(self, state: TrainingState) -> None:
        """Follow the description: its world in the GPUs field, whether the results
        are still of it, which row it uses."""
        result = self._result
        if result is None:
            self._publish(self._state)
            return
        self._publish(self._words(result, stale=self._is_stale(result, state.description)))

    def _is_stale(self, result: SearchResult, current: TrainingDescription | None) -> bool:
        """The description differs from the searched one in more than the setup the
        search chooses (so using a ranked setup keeps the results current)."""
        if current is None:
            return True
        world = current.world if self._world_entry is None else self._world_entry
        if world != result.world_size:
            return True
        return _searched(current) != _searched(result.description)

    def _publish(self, state: SearchState) -> None:
        """Emit ``state`` (with the description's world) when it differs from the last."""
        state = replace(state, world=self.world_placeholder(), problem=self._world_problem())
        if state != self._state:
            self._state = state
            self.stateChanged.emit(state)

    def _prompt(self) -> str:
        return self.tr(
            "Search every ZeRO stage, offload, recomputation, tensor and pipeline split and "
            "pair for the target batch on these GPUs: the fastest setup that fits and that "
            "the description's framework runs."
        )

    def _setup(self, c: Candidate, unchecked: bool = False) -> str:
        """ZeRO, the recomputation (always said), the model-parallel split, then the
        offload (the longest part: a narrow column cuts it last)."""
        f = self._training.formats.format
        parts = [f"ZeRO-{int(c.zero_stage)}" if c.zero_stage else self.tr("no ZeRO")]
        parts.append(say(RECOMPUTATION[c.recompute]))
        # every GPU is data-parallel unless tensor or pipeline parallelism takes some
        if c.tensor_parallel > 1:
            parts.append(self.tr("tensor {size}").format(size=f(c.tensor_parallel)))
        if c.pipeline_stages > 1:
            parts.append(self.tr("pipeline {stages}").format(stages=f(c.pipeline_stages)))
        if c.tensor_parallel > 1 or c.pipeline_stages > 1:
            parts.append(self.tr("data {gpus}").format(gpus=f(c.gpus)))
        if c.offload is not Offload.NONE:
            offloaded = (
                self.tr("optimizer offloaded")
                if c.offload is Offload.OPTIMIZER
                else self.tr("optimizer and parameters offloaded")
            )
            d = self._training.description
            not_given = d is not None and d.cpu_memory_gb is None
            if c.cpu_bytes_per_node is not None and unchecked and not_given:
                # no verdict on what was not given: the search could not check it
                offloaded = self.tr(
                    "{offloaded} ({cpu} of CPU memory per node, not checked: a node's memory "
                    "is not given)"
                ).format(offloaded=offloaded, cpu=self._fit.gb(c.cpu_bytes_per_node))
            elif c.cpu_bytes_per_node is not None:  # what a node's CPU memory must hold
                offloaded = self.tr("{offloaded} ({cpu} of CPU memory per node)").format(
                    offloaded=offloaded, cpu=self._fit.gb(c.cpu_bytes_per_node)
                )
            parts.append(offloaded)
        return " · ".join(parts)

    def _pair(self, c: Candidate) -> str:
        f = self._training.formats.format
        return f"{f(c.micro_batch or 0)} × {f(c.accumulation_steps or 0)}"

    def _row(self, c: Candidate, best: Candidate | None = None) -> RankedRow:
        """``c`` as the ranking shows it; ``best``: the search's best (None: ``c`` is)."""
        versus = self.tr("★ Best") if best is None else self._versus(c, best)
        in_use = self._in_use(c)
        if in_use:
            versus = self.tr("{versus} · in use").format(versus=versus)
        return RankedRow(
            setup=self._setup(c),
            pair=self._pair(c),
            step="—" if c.step is None else self._timing.seconds(c.step.step_seconds),
            memory="—" if c.per_gpu_bytes is None else self._fit.gb(c.per_gpu_bytes),
            versus=versus,
            best=best is None,
            in_use=in_use,
        )

    def _versus(self, c: Candidate, best: Candidate) -> str:
        if c.step is None or best.step is None:  # ranked by simplicity
            return self.tr("simpler first")
        if c.step.step_seconds == best.step.step_seconds:
            return self.tr("as fast, less simple")
        return self.tr("{percent} slower").format(
            percent=self._percent(c.step.step_seconds / best.step.step_seconds - 1)
        )

    def _in_use(self, c: Candidate) -> bool:
        """The description's setup is ``c`` (what "Use" puts there)."""
        d = self._training.description
        return d is not None and (
            d.gpus,
            d.tensor_parallel,
            d.pipeline_stages,
            d.zero_stage,
            d.offload,
            d.recompute,
            d.micro_batch,
        ) == (
            c.gpus,
            c.tensor_parallel,
            c.pipeline_stages,
            c.zero_stage,
            c.offload,
            c.recompute,
            c.micro_batch,
        )

    def _words(self, result: SearchResult, stale: bool = False) -> SearchState:
        if result.unsearchable is not None:
            return SearchState(message=self._unsearchable(result.unsearchable))
        best = result.best
        if best is None:
            return SearchState(
                message=self.tr(
                    "No setup fits and reaches the target on these GPUs: see why below."
                ),
                exclusions=tuple(self._exclusion(e, None) for e in result.exclusions),
                stale=stale,
            )
        head = self.tr(
            "Best: {setup}, micro-batch {micro} × {steps} accumulation steps, {step} per step, "
            "{memory} per GPU."
        )
        row = self._row(best)
        f = self._training.formats.format
        words = head.format(
            setup=self._setup(best, unchecked=True),  # the rows say it once, here
            micro=f(best.micro_batch or 0),
            steps=f(best.accumulation_steps or 0),
            step=row.step,
            memory=row.memory,
        )
        if result.untimed is not None:
            words += " " + self.tr(
                "(Ranked by simplicity: the card has no speed figures to time the setups.)"
            )
        return SearchState(
            best=words,
            ranking=tuple(
                self._row(c, None if i == 0 else best) for i, c in enumerate(result.ranking)
            ),
            exclusions=tuple(self._exclusion(e, best) for e in result.exclusions),
            stale=stale,
        )

    def _unsearchable(self, why: Unsearchable) -> str:
        return {
            Unsearchable.NO_MODEL: self.tr("Choose the model in the training description first."),
            Unsearchable.NO_ACTIVATION: self.tr(
                "The search needs the activation per sample: a model with its shape and the "
                "sequence length."
            ),
            Unsearchable.NO_CAPACITY: self.tr("Type the custom card's usable memory first."),
            Unsearchable.UNEVEN_NODES: self.tr(
                "These GPUs cannot be split evenly over the description's nodes."
            ),
            Unsearchable.CONTEXT_PARALLEL: self.tr(
                "The context-parallel size must divide these GPUs and split the sequence "
                "into 2 × CP equal chunks."
            ),
        }[why]

    def _value(self, e: Exclusion) -> str:
        f = self._training.formats.format
        value = e.value
        if isinstance(value, Offload):
            return {
                Offload.NONE: self.tr("No offload"),
                Offload.OPTIMIZER: self.tr("Optimizer offload"),
                Offload.ALL: self.tr("Optimizer and parameter offload"),
            }[value]
        if isinstance(value, Recompute):
            said = say(RECOMPUTATION[value])
            return said[:1].upper() + said[1:]
        number = int(value) if isinstance(value, int) else 0
        if e.dimension == "zero_stage":
            return self.tr("ZeRO-{stage}").format(stage=number) if number else self.tr("No ZeRO")
        if e.dimension == "tensor_parallel":
            if number == 1:
                return self.tr("No tensor parallelism")
            return self.tr("Tensor parallel {size}").format(size=f(number))
        if number == 1:
            return self.tr("No pipeline")
        return self.tr("{stages} pipeline stages").format(stages=f(number))

    def _percent(self, share: Fraction) -> str:
        """A share as a percentage with two significant digits (0,061 %, 4,4 %, 33 %)."""
        return self.tr("{value} %").format(
            value=self._training.formats.format(significant(share * 100, 2))
        )

    def _blocked(self, blocked: Blocked) -> str:
        return {
            Blocked.NOT_REACHABLE: self.tr(
                "The data-parallel GPUs do not divide the target batch."
            ),
            Blocked.EXPERT_PARALLEL: self.tr(
                "The expert-parallel groups must tile the GPUs they are spread over (the "
                "data-parallel ones; with Megatron, a stage's tensor × context × data "
                "parallel), and the size must divide the model's experts."
            ),
        }[blocked]

    def _exclusion(self, e: Exclusion, best: Candidate | None) -> str:
        value = self._value(e)
        if e.reason is ExclusionReason.SLOWER and e.candidate is not None and best is not None:
            c = e.candidate
            if c.step is None or best.step is None:  # ranked by simplicity
                return self.tr("{value}: a simpler setup that fits comes first.").format(
                    value=value
                )
            if c.step.step_seconds == best.step.step_seconds:
                return self.tr("{value}: as fast, but a simpler setup comes first.").format(
                    value=value
                )
            slower = c.step.step_seconds / best.step.step_seconds - 1
            return self.tr("{value}: {percent} slower ({step} per step at best).").format(
                value=value,
                percent=self._percent(slower),
                step=self._timing.seconds(c.step.step_seconds),
            )
        if e.reason is ExclusionReason.NOT_FIT:
            return self.tr(
                "{value}: does not fit (short by {short} per GPU at one sample)."
            ).format(value=value, short=self._fit.gb(e.shortfall_bytes or 0))
        if e.reason is ExclusionReason.NOT_FIT_CPU:
            return self.tr(
                "{value}: the offloaded states do not fit a node's CPU memory (short by "
                "{short} per node)."
            ).format(value=value, short=self._fit.gb(e.shortfall_bytes or 0))
        said = self._training.formats.said
        rules = " ".join(
            [said(r.message) for r in e.refusals] + [self._blocked(b) for b in e.blocked]
        )
        return self.tr("{value}: refused — {rules}").format(value=value, rules=rules)
