"""The user's side of an exported training script, for the trainer tier.

A tiny model and data set; each process records, in ``$GRADACC_RECORD_DIR``, how many
samples every forward pass saw, every optimizer step and every gradient all-reduce,
so the test can check samples per optimizer step = effective batch and one
all-reduce per optimizer step. All-reduces are counted with a DDP communication hook
installed on every ``DistributedDataParallel`` the script builds (DDP's reducer runs
in C++, out of reach of a Python wrapper around ``all_reduce``).
"""

from __future__ import annotations

import atexit
import json
import os
import sys

import torch
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel
from torch.optim.optimizer import register_optimizer_step_post_hook

SAMPLES = int(os.environ.get("GRADACC_SAMPLES", "36"))
EVENTS: list[list[object]] = []


train_dataset = [
    {"x": torch.full((4,), float(i)), "labels": torch.tensor([float(i % 3)])}
    for i in range(SAMPLES)
]


class Tiny(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 1)

    def forward(
        self, x: torch.Tensor, labels: torch.Tensor | None = None
    ) -> dict[str, torch.Tensor]:
        EVENTS.append(["forward", int(x.shape[0])])
        out = self.linear(x.float() / SAMPLES)
        loss = ((out - labels.float()) ** 2).mean() if labels is not None else out.mean()
        return {"loss": loss, "logits": out}


def build_model() -> nn.Module:
    return Tiny()


def compute_loss(model: nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    return model(**batch)["loss"]


def build_module():  # type: ignore[no-untyped-def]
    import lightning as L

    class Module(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.model = Tiny()

        def training_step(self, batch, batch_idx):  # type: ignore[no-untyped-def]
            return self.model(**batch)["loss"]

        def configure_optimizers(self):  # type: ignore[no-untyped-def]
            return torch.optim.AdamW(self.parameters(), lr=1e-3)

        def on_train_epoch_end(self) -> None:
            # Lightning's default is 1000 epochs: one is enough here
            self.trainer.should_stop = True

    return Module()


def _count_step(optimizer, _args, _kwargs) -> None:  # type: ignore[no-untyped-def]
    # ZeroRedundancyOptimizer steps its inner optimizer: count that step once
    if type(optimizer).__name__ != "ZeroRedundancyOptimizer":
        EVENTS.append(["step", 0])


register_optimizer_step_post_hook(_count_step)


def _counting_hook(state, bucket):  # type: ignore[no-untyped-def]
    EVENTS.append(["allreduce", 0])
    return default_hooks.allreduce_hook(state, bucket)


def _counting(name: str):  # type: ignore[no-untyped-def]
    original = getattr(torch.distributed, name)

    def collective(*args, **kwargs):  # type: ignore[no-untyped-def]
        EVENTS.append(["collective", 0])
        return original(*args, **kwargs)

    return collective


# gradient collectives that go through Python (DeepSpeed's engine, ZeRO)
for _name in ("all_reduce", "reduce_scatter", "reduce_scatter_tensor", "reduce"):
    setattr(torch.distributed, _name, _counting(_name))


_ddp_init = DistributedDataParallel.__init__


def _init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
    _ddp_init(self, *args, **kwargs)
    self.register_comm_hook(None, _counting_hook)


DistributedDataParallel.__init__ = _init  # type: ignore[method-assign]


def _dump() -> None:
    folder = os.environ.get("GRADACC_RECORD_DIR")
    if not folder or not EVENTS:
        return
    rank = os.environ.get("RANK", os.environ.get("LOCAL_RANK", "0"))
    with open(os.path.join(folder, f"rank{rank}-{os.getpid()}.json"), "w", encoding="utf-8") as f:
        json.dump({"rank": int(rank), "events": EVENTS}, f)
    # Training is over and recorded. Leave now: on a CPU, gloo's worker threads can
    # abort the interpreter's own teardown ("terminate called without an active
    # exception", seen with accelerate now and then), which says nothing about the
    # batch arithmetic measured here.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


atexit.register(_dump)
