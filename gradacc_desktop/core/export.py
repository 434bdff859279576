"""Ready-to-paste configuration snippets for common training frameworks.

Parameter names checked against each framework (December 2026):

* DeepSpeed config JSON: ``train_batch_size``, ``train_micro_batch_size_per_gpu``,
  ``gradient_accumulation_steps`` (deepspeed/runtime/config.py, ``_batch_assertion``
  requires train_batch_size == micro · grad_acc · world_size;
  https://www.deepspeed.ai/docs/config-json/#batch-size-related-parameters).
* Hugging Face Transformers ``TrainingArguments(per_device_train_batch_size=…,
  gradient_accumulation_steps=…)``
  (https://huggingface.co/docs/transformers/main_classes/trainer#transformers.TrainingArguments).
* Hugging Face Accelerate ``Accelerator(gradient_accumulation_steps=…)`` with
  ``accelerator.accumulate(model)``; the per-process batch is the DataLoader's
  ``batch_size`` (https://huggingface.co/docs/accelerate/usage_guides/gradient_accumulation).
* PyTorch Lightning ``Trainer(accumulate_grad_batches=…, devices=…)``; the per-device
  batch is the DataLoader's ``batch_size``
  (https://lightning.ai/docs/pytorch/stable/common/gradient_accumulation.html).

The snippets carry the effective batch in a comment so a pasted config explains itself.
"""

from __future__ import annotations

import enum
import json


class ExportFormat(enum.Enum):
    DEEPSPEED = "deepspeed"
    HF = "hf"
    ACCELERATE = "accelerate"
    LIGHTNING = "lightning"


def _check(micro_batch: int, accumulation_steps: int, gpus: int) -> None:
    for name, value in (
        ("micro_batch", micro_batch),
        ("accumulation_steps", accumulation_steps),
        ("gpus", gpus),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")


def deepspeed_json(micro_batch: int, accumulation_steps: int, gpus: int) -> str:
    _check(micro_batch, accumulation_steps, gpus)
    config = {
        "train_batch_size": micro_batch * accumulation_steps * gpus,
        "train_micro_batch_size_per_gpu": micro_batch,
        "gradient_accumulation_steps": accumulation_steps,
    }
    return json.dumps(config, indent=2) + "\n"


def hf_training_arguments(micro_batch: int, accumulation_steps: int, gpus: int) -> str:
    _check(micro_batch, accumulation_steps, gpus)
    effective = micro_batch * accumulation_steps * gpus
    return (
        f"# effective batch = {micro_batch} x {accumulation_steps} x {gpus} GPU(s) = {effective}\n"
        "from transformers import TrainingArguments\n"
        "\n"
        "args = TrainingArguments(\n"
        '    output_dir="output",\n'
        f"    per_device_train_batch_size={micro_batch},\n"
        f"    gradient_accumulation_steps={accumulation_steps},\n"
        ")\n"
        f"# launch on {gpus} GPU(s), e.g. torchrun --nproc_per_node={gpus} train.py\n"
    )


def accelerate_snippet(micro_batch: int, accumulation_steps: int, gpus: int) -> str:
    _check(micro_batch, accumulation_steps, gpus)
    effective = micro_batch * accumulation_steps * gpus
    return (
        f"# effective batch = {micro_batch} x {accumulation_steps} x {gpus} GPU(s) = {effective}\n"
        "from accelerate import Accelerator\n"
        "from torch.utils.data import DataLoader\n"
        "\n"
        f"accelerator = Accelerator(gradient_accumulation_steps={accumulation_steps})\n"
        f"train_dataloader = DataLoader(train_dataset, batch_size={micro_batch}, shuffle=True)\n"
        "model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, "
        "train_dataloader)\n"
        "for batch in train_dataloader:\n"
        "    with accelerator.accumulate(model):\n"
        "        loss = model(**batch).loss\n"
        "        accelerator.backward(loss)\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        f"# launch on {gpus} GPU(s): accelerate launch --num_processes {gpus} train.py\n"
    )


def lightning_snippet(micro_batch: int, accumulation_steps: int, gpus: int) -> str:
    _check(micro_batch, accumulation_steps, gpus)
    effective = micro_batch * accumulation_steps * gpus
    return (
        f"# effective batch = {micro_batch} x {accumulation_steps} x {gpus} GPU(s) = {effective}\n"
        "import lightning as L\n"
        "from torch.utils.data import DataLoader\n"
        "\n"
        f"train_dataloader = DataLoader(train_dataset, batch_size={micro_batch}, shuffle=True)\n"
        f"trainer = L.Trainer(accumulate_grad_batches={accumulation_steps}, devices={gpus})\n"
        "trainer.fit(model, train_dataloader)\n"
    )


_RENDERERS = {
    ExportFormat.DEEPSPEED: deepspeed_json,
    ExportFormat.HF: hf_training_arguments,
    ExportFormat.ACCELERATE: accelerate_snippet,
    ExportFormat.LIGHTNING: lightning_snippet,
}


def render(fmt: ExportFormat, micro_batch: int, accumulation_steps: int, gpus: int) -> str:
    """The snippet for ``fmt``; raises ``ValueError`` for values below 1."""
    return _RENDERERS[fmt](micro_batch, accumulation_steps, gpus)
