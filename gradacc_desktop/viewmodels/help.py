"""Help for each tab (F1), translated, as HTML for a text browser. No widgets here."""

from __future__ import annotations

import enum

from PySide6.QtCore import QObject

from gradacc_desktop.viewmodels.formatting import escape


class HelpTopic(enum.Enum):
    CALCULATOR = "calculator"
    PLANNER = "planner"
    TRAINER = "trainer"
    CHART = "chart"


class HelpContent(QObject):
    """The on-screen help of each tab, and the rule for typing numbers that all share."""

    def title(self, topic: HelpTopic) -> str:
        return {
            HelpTopic.CALCULATOR: self.tr("Help: Calculator"),
            HelpTopic.PLANNER: self.tr("Help: Plan a run"),
            HelpTopic.TRAINER: self.tr("Help: Trainer configs"),
            HelpTopic.CHART: self.tr("Help: Trade-off chart"),
        }[topic]

    def numbers_rule(self) -> list[str]:
        """How every field reads what is typed or pasted (the same rule everywhere)."""
        return [
            self.tr(
                "Type or paste numbers the way you write them: surrounding spaces and a "
                "trailing unit (“0,5 GB”) are fine, and pasting gives the same value as typing."
            ),
            self.tr(
                "In Portuguese the comma is the decimal separator (0,5). A single period is "
                "also read as a decimal point, because numbers pasted from papers and terminals "
                "use it (0.25 is 0,25) — except in whole-number fields, where 1.024 is 1024. "
                "Periods before a comma, or several periods, group thousands: 1.234,5 and "
                "1.000.000."
            ),
            self.tr(
                "In English the period is the decimal separator (0.5) and commas group "
                "thousands in threes (1,024). A comma that cannot group thousands is a decimal "
                "separator: 0,5 is 0.5, never 5."
            ),
            self.tr(
                "When both appear, the last one is the decimal separator (1,234.5 and 1.234,5 "
                "are the same number). A power of ten may follow: 3e-4."
            ),
            self.tr(
                "Text that is not a number, or a value out of range, stays in the field as you "
                "typed it, with a message; no result is computed from it until you correct it."
            ),
        ]

    def numbers_rule_html(self) -> str:
        items = "".join(f"<li>{escape(line)}</li>" for line in self.numbers_rule())
        heading = self.tr("Typing numbers")
        return f"<h3>{escape(heading)}</h3><ul>{items}</ul>"

    def html(self, topic: HelpTopic) -> str:
        paragraphs = {
            HelpTopic.CALCULATOR: [
                self.tr(
                    "Enter the micro-batch size, the accumulation steps, the data-parallel GPUs "
                    "and the activation memory per sample. The effective batch size "
                    "(E = b × a × g) and the peak activation memory per GPU (M = b × A) follow "
                    "as you type."
                ),
                self.tr(
                    "Details (below the results) explains the formula, recomputes the worked "
                    "example from your inputs and answers the common questions."
                ),
            ],
            HelpTopic.PLANNER: [
                self.tr(
                    "Give the target effective batch of your recipe and the data-parallel GPUs. "
                    "The planner solves the accumulation steps for your micro-batch — or "
                    "recommends the largest micro-batch that fits — and shows the batch you "
                    "really get, whether it is exact, and whether DeepSpeed accepts it."
                ),
                self.tr(
                    "Choose your GPU in the training description: with the model, the method "
                    "and ZeRO chosen, the memory each GPU needs besides the activations is "
                    "derived (its “{states}” button shows it part by part, and a figure typed "
                    "over it is used instead), and the plan says whether the configuration "
                    "fits and how much headroom is left."
                ).format(states=self.tr("Model states…")),
                self.tr(
                    "The table lists the micro-batch and accumulation-step pairs near the "
                    "target: arrow keys move through it, Enter or a double-click uses a pair. "
                    "DeepSpeed and Megatron, given the target as their batch size, accept only "
                    "the pairs that reach it exactly. The Trainer configs tab turns the plan "
                    "into your framework's files."
                ),
                self.tr(
                    "With a model chosen in the training description and the sequence "
                    "length, every pair gets its time per optimizer step and tokens per "
                    "second; the Time per step card shows where one step's time goes (matrix "
                    "products, attention, memory-bound work, each kind of communication, the "
                    "pipeline bubble, the optimizer), names the fastest pair that fits at the "
                    "same batch and which parts make it faster (Use this pair takes it). It "
                    "is an estimate: the kernels' efficiency modelled from the model's shape, "
                    "the communication your ZeRO stage and layout add, the pipeline bubble."
                ),
                self.tr(
                    "The Training cost card gives, for a token budget or the dataset and its "
                    "epochs, the run's optimizer steps, wall-clock time and GPU-hours and, "
                    "with a price per GPU-hour, the total in the currency chosen beside it "
                    "(display only: nothing is converted); what is missing it says instead."
                ),
                self.tr(
                    "Find the best setup searches every ZeRO stage, offload, recomputation, "
                    "tensor and pipeline split and pair on the GPUs in all (the "
                    "description's by default) and shows the result in the whole column: the "
                    "best row marked, each other row against it, why every other option is "
                    "out. One click or Enter on a row makes it the description's setup; Esc "
                    "or Back to the plan returns to the cards."
                ),
                self.tr(
                    "Ctrl+C copies the plan with its pairs as text (or the selected text). "
                    "File ▸ Save scenario keeps the whole setup in a file."
                ),
            ],
            HelpTopic.TRAINER: [
                self.tr(
                    "The planner's configuration as each framework's own files: a complete "
                    "ds_config.json for DeepSpeed, the Hugging Face Trainer (with or without "
                    "DeepSpeed, whose JSON then leaves the batch values to the Trainer as "
                    '"auto"), the accelerate config YAML, PyTorch Lightning, a plain PyTorch '
                    "DDP loop launched with torchrun, and Megatron-LM's arguments."
                ),
                self.tr(
                    "Training setup: the data-parallel GPUs of the planner split evenly over "
                    "the nodes (the launch lines run on each node), the ZeRO stage, the "
                    "precision and what is offloaded to CPU memory. Each file carries the "
                    "effective batch it trains at."
                ),
                self.tr(
                    "Tensor parallel and pipeline stages make the world size data × tensor × "
                    "pipeline; the files carry them where the framework can, and a note above "
                    "the files says what it cannot. Time and cost holds what the time per step "
                    "is estimated from; View the card's speed… shows the card's figures and "
                    "takes the custom card's; Load measured profile… uses times measured on "
                    "your own GPU."
                ),
                self.tr(
                    "Copy file copies the file shown; Save files… writes every file of the "
                    "export into a folder (asking before it replaces any)."
                ),
                self.tr(
                    "Check my config reads an existing DeepSpeed JSON, accelerate YAML or "
                    "axolotl YAML (open it or drop it on the box): the planner takes its "
                    "batch, GPUs and setup, and the report names each framework's verdict, "
                    'the values left to the trainer ("auto") and every key it could not use.'
                ),
            ],
            HelpTopic.CHART: [
                self.tr(
                    "Activation memory per GPU against the effective batch: growing the "
                    "micro-batch makes memory rise, accumulating at your micro-batch keeps it "
                    "flat. The horizontal line is the memory your GPU has left for activations "
                    "(from the planner); your configuration is marked."
                ),
                self.tr(
                    "Time against memory, per pair: each (micro-batch, accumulation) pair of "
                    "the planner's table as a point — memory per GPU across, time per optimizer "
                    "step up — with the pair in use, the fastest pair that fits and the GPU's "
                    "memory marked. It needs a model under Time and cost (Trainer configs)."
                ),
                self.tr("Ctrl+C copies the data of the chart shown as text."),
            ],
        }[topic]
        body = "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
        return f"<h2>{escape(self.title(topic))}</h2>{body}{self.numbers_rule_html()}"
