"""The "Details" panel's content: the seed page's explanations, formula, worked
example (recomputed from the user's inputs), FAQ, disclaimer and suggestions.

Every paragraph is a ``tr()`` string so Qt Linguist carries the translations;
the HTML is assembled here, not in a widget.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from gradacc_desktop.core.calculator import BatchInputs, Field, worked_example
from gradacc_desktop.viewmodels.calculator import TIMES, CalculatorViewModel
from gradacc_desktop.viewmodels.formatting import escape
from gradacc_desktop.viewmodels.help import HelpContent


def _var(symbol: str) -> str:
    return f"<i>{symbol}</i>"


def _display(*lines: str) -> str:
    """Formulas set apart from the text, one per line, centred and larger."""
    return "".join(f"<p align='center'><big>{line}</big></p>" for line in lines)


class DetailsContent(QObject):
    """Builds the details HTML for the view-model's current state and language."""

    def __init__(self, vm: CalculatorViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        # how every field reads typed and pasted numbers: the same text as F1's help
        self._help = HelpContent(self)

    def toggle_label(self) -> str:
        return self.tr("Details")

    def html(self) -> str:
        parts = [
            self._intro(),
            self._what_it_does(),
            self._why_constant(),
            self._formula(),
            self._example(),
            self._reading(),
            self._help.numbers_rule_html(),
            self._faq(),
            self._disclaimer(),
            self._suggestions(),
        ]
        return "".join(parts)

    # -- sections -----------------------------------------------------------
    @staticmethod
    def _h(text: str) -> str:
        return f"<h3>{escape(text)}</h3>"

    @staticmethod
    def _p(text: str) -> str:
        return f"<p>{escape(text)}</p>"

    def _intro(self) -> str:
        return self._h(self.tr("Gradient accumulation memory")) + self._p(
            self.tr(
                "Large language models train best with large batches, but a large batch means "
                "many samples held in memory at once — and activation memory is often the first "
                "thing to overflow a GPU. Gradient accumulation resolves the tension: it reaches "
                "a large effective batch while peak activation memory stays at the size of a "
                "single small micro-batch. This calculator shows both sides of that trade-off — "
                "the effective batch a configuration reaches and the activation memory it "
                "actually holds."
            )
        )

    def _what_it_does(self) -> str:
        return self._h(self.tr("What gradient accumulation does")) + self._p(
            self.tr(
                "Normally a trainer updates the weights after every batch. With accumulation, it "
                "runs several micro-batches in sequence, sums their gradients and applies a "
                "single optimizer step only once the desired number of micro-batches has been "
                "processed. The summed gradient is identical to the one a single batch of that "
                "combined size would have produced, so the update is mathematically the same — "
                "only the timing changes. The weights move once per accumulation cycle instead "
                "of once per micro-batch."
            )
        )

    def _why_constant(self) -> str:
        return self._h(self.tr("Why memory stays constant")) + self._p(
            self.tr(
                "Peak activation memory is governed by the largest forward and backward pass "
                "alive at one moment, and that is a single micro-batch. Accumulation processes "
                "one micro-batch at a time and keeps only a running sum of gradients, whose size "
                "matches the model's parameters and does not grow with the number of steps. So "
                "raising the accumulation count raises the effective batch while leaving "
                "activation memory untouched. That is the whole point: a large effective batch "
                "on a memory budget that could never hold it all at once."
            )
        )

    def _formula(self) -> str:
        b, a, g, big_a, e, m = (_var(s) for s in ("b", "a", "g", "A", "E", "M"))
        dot = " · "
        legend = [
            (b, self.tr("micro-batch size (samples per GPU per forward and backward pass)")),
            (a, self.tr("accumulation steps")),
            (g, self.tr("data-parallel replicas (GPUs)")),
            (big_a, self.tr("activation cost per sample, in gigabytes (GB)")),
            (e, self.tr("effective batch size")),
            (m, self.tr("peak activation memory on one GPU, in gigabytes (GB)")),
        ]
        rows = "".join(
            f"<tr><td align='center' width='32'>{sym}</td><td>{escape(text)}</td></tr>"
            for sym, text in legend
        )
        formulas = _display(f"{e} = {b}{dot}{a}{dot}{g}", f"{m} = {b}{dot}{big_a}")
        return (
            self._h(self.tr("The formula"))
            + "<p>"
            + self.tr(
                "With micro-batch size <i>b</i>, accumulation steps <i>a</i>, data-parallel "
                "replicas <i>g</i> and activation cost per sample <i>A</i> in gigabytes:"
            )
            + "</p>"
            + formulas
            + f"<table cellpadding='1'>{rows}</table>"
            + self._p(
                self.tr(
                    "The effective batch multiplies across every replica and every accumulation "
                    "step, while the memory term depends only on the micro-batch. One gigabyte "
                    "(GB) is 10⁹ bytes throughout the app."
                )
            )
        )

    def _example(self) -> str:
        heading = self._h(self.tr("Worked example (your inputs)"))
        inputs = self._vm.inputs
        if inputs is None:
            return heading + self._p(self._vm.state.prompt)
        return heading + self._example_body(inputs)

    def _example_body(self, inputs: BatchInputs) -> str:
        vm = self._vm
        f = vm.format
        ex = worked_example(inputs)
        r, dp = ex.result, ex.data_parallel
        e, m = f(r.effective_batch), vm.format_gb(r.activation_per_gpu_gb)
        b, a, g = f(inputs.micro_batch), f(inputs.accumulation_steps), f(inputs.gpus)
        gpus = vm.counted(lambda n: self.tr("on %n GPU(s)", "", n), inputs.gpus)
        setup = self.tr(
            "Consider a micro-batch of {b} samples, accumulated over {a} steps {gpus}, with "
            "each sample costing {A} of activations:"
        ).format(b=b, a=a, gpus=gpus, A=vm.format_gb(inputs.activation_gb))
        formulas = _display(
            f"{_var('E')} = {b} {TIMES} {a} {TIMES} {g} = <b>{e}</b>",
            f"{_var('M')} = {b} {TIMES} {escape(vm.format_gb(inputs.activation_gb))} = "
            f"<b>{escape(m)}</b>",
        )
        dp_gpus = dp.inputs.gpus
        outcome = self.tr(
            "Training behaves as if the batch were {E}, while only {M} of activations are "
            "resident at any moment."
        ).format(E=e, M=m)
        spread = vm.counted(
            lambda n: self.tr(
                "Spreading the same configuration across %n data-parallel GPUs raises the "
                "effective batch to {E}, and the activation memory per GPU is still {M}.",
                "",
                n,
            ),
            dp_gpus,
        ).format(E=f(dp.effective_batch), M=vm.format_gb(dp.activation_per_gpu_gb))
        return self._p(setup) + formulas + self._p(outcome) + self._p(spread)

    def _reading(self) -> str:
        return self._h(self.tr("Reading the result")) + self._p(
            self.tr(
                "The effective batch size is the value that learning-rate schedules and "
                "other hyperparameters are tuned against, not the micro-batch. Note that "
                "activation memory is only one part of the training budget: optimizer state, "
                "gradients and the parameters themselves usually dominate, and this "
                "calculator deliberately isolates the activation term to make the batching "
                "trade-off visible. For the full memory picture, the “{planner}” tab adds them "
                "to the activations on your GPU: describe the training once — the model, "
                "the method (every parameter, LoRA or QLoRA), the GPUs and ZeRO sharding — "
                "and it derives weights, gradients and optimizer state as DeepSpeed counts "
                "them (its “{other}” button shows them part by part)."
            ).format(planner=self._planner_name(), other=self.tr("Model states…"))
        )

    def _faq(self) -> str:
        qa = [
            (
                self.tr("How does gradient accumulation work?"),
                [
                    self.tr(
                        "Instead of updating the weights after every micro-batch, the trainer "
                        "runs several micro-batches in sequence, sums their gradients and applies "
                        "a single optimizer step once the desired number of micro-batches is "
                        "reached."
                    ),
                    self.tr(
                        "The summed gradient is identical to what a single large batch of the "
                        "same total size would produce, so the math of the update does not "
                        "change — only the timing differs. The weights move once per "
                        "accumulation cycle instead of once per micro-batch."
                    ),
                ],
            ),
            (
                self.tr("Why does memory stay constant as accumulation steps increase?"),
                [
                    self.tr(
                        "Peak activation memory is set by the largest forward and backward pass "
                        "held in memory at once, which is a single micro-batch. Accumulation "
                        "processes one micro-batch at a time and keeps only a running sum of "
                        "gradients, whose size equals the model's parameters and does not grow "
                        "with the number of steps."
                    ),
                    self.tr(
                        "So doubling the accumulation steps doubles the effective batch while "
                        "activation memory stays unchanged — the central trade-off that makes "
                        "large effective batches feasible on limited memory."
                    ),
                ],
            ),
            (
                self.tr("What does effective batch size mean?"),
                [
                    self.tr(
                        "The effective batch size is the number of samples that influence a "
                        "single weight update. With data parallelism each replica contributes its "
                        "micro-batch, and with accumulation each replica contributes several "
                        "micro-batches per update, so the effective batch is the product of the "
                        "micro-batch, the accumulation steps and the number of replicas."
                    ),
                    self.tr(
                        "Learning-rate schedules and other hyperparameters are tuned against "
                        "this effective value, not the micro-batch."
                    ),
                ],
            ),
        ]
        out = [self._h(self.tr("Frequently asked questions (FAQ)"))]
        for question, answers in qa:
            out.append(f"<p><b>{escape(question)}</b></p>")
            out.extend(self._p(answer) for answer in answers)
        return "".join(out)

    def _disclaimer(self) -> str:
        return self._h(self.tr("Disclaimer")) + self._p(
            self.tr(
                "This estimate models activation memory from the micro-batch alone and omits "
                "optimizer state, gradients, parameters and framework overhead, which dominate "
                "total training memory. Use it to reason about the batching trade-off, not as a "
                "complete memory budget."
            )
        )

    def _planner_name(self) -> str:
        return self.tr("Plan a run")  # the tab's name

    def _suggestions(self) -> str:
        """Where to go next in this app (the seed points to its sibling calculators)."""
        activation = self._vm.field_label(Field.ACTIVATION_GB)
        items = [
            (
                self._planner_name(),
                self.tr(
                    "The second tab. Describe your training once — the model, the method, the "
                    "GPUs and your recipe's target batch: it derives the memory per GPU this "
                    "calculator leaves out, finds the micro-batch and accumulation steps that "
                    "reach the target and fit, the best setup for your GPUs and the time per "
                    "step, and writes the settings for DeepSpeed, Hugging Face, Accelerate or "
                    "Lightning."
                ),
            ),
            (
                self.tr("Estimate from the model…"),
                self.tr(
                    "The button under “{field}”. Works out the activation memory per sample from "
                    "the model's shape (layers, hidden size, attention heads, sequence length, "
                    "data type), with presets for common models, and puts the value here."
                ).format(field=activation),
            ),
            (
                self.tr("Trade-off chart"),  # the tab's name
                self.tr(
                    "The last tab. Activation memory per GPU against the effective batch for "
                    "the planned configuration: growing the micro-batch climbs towards your "
                    "GPU's memory, accumulating stays flat."
                ),
            ),
        ]
        out = [self._h(self.tr("Next suggestions"))]
        out.extend(f"<p><b>{escape(t)}</b><br/>{escape(d)}</p>" for t, d in items)
        return "".join(out)
