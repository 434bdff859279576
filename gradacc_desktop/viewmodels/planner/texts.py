"""The planner's fixed words: titles, the pairs table's headings, notes, shared by
the widgets and the copied plan (the description's words are ``training.texts``)."""

from __future__ import annotations

from typing import final

from gradacc_desktop.viewmodels.formats import PlanFormats, Translating
from gradacc_desktop.viewmodels.training.texts import plain as _plain


@final
class PlannerTexts(Translating):
    def __init__(self, formats: PlanFormats) -> None:
        self._formats = formats

    def prompt(self) -> str:
        return self.tr("Correct the training description to see the plan.")

    # -- titles shared by the view and the copied plan --------------------------
    def pairs_title(self, mnemonic: bool = False) -> str:
        return _plain(self.tr("Micro-batch and accumulation steps"), mnemonic)

    def pairs_headers(self) -> list[tuple[str, str]]:
        """(column heading, its full wording) of the pairs table."""
        return [
            (self.tr("Micro-batch (b)"), self.tr("Micro-batch size (b)")),
            (self.tr("Steps (a)"), self.tr("Accumulation steps (a)")),
            (self.tr("Batch (E)"), self.tr("Effective batch size (E)")),
            (self.tr("Fits"), self.tr("Fits in GPU memory")),
            (
                self.tr("DeepSpeed · Megatron"),
                self.tr(
                    "Whether DeepSpeed (train_batch_size) and Megatron (--global-batch-size) "
                    "start with the target and this pair"
                ),
            ),
            (self.tr("Time/step"), self.tr("Estimated time of one optimizer step")),
            (self.tr("Tokens/s"), self.tr("Tokens trained per second, all GPUs together")),
        ]

    def fit_title(self) -> str:
        return self.tr("Memory per GPU")

    def nothing_fits_title(self) -> str:
        return self.tr("What would fit")

    def deepspeed_title(self) -> str:
        return self.tr("DeepSpeed and Megatron check")

    def extras_title(self) -> str:
        return self.tr("Tokens, steps and learning rate")

    def time_title(self) -> str:
        return self.tr("Time per step")
