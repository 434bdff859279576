"""The fused loss (Liger's fused linear cross-entropy) in the activation estimate, the
description's problems and the trainer configs that turn it on: a causal LM's whole
logits are not kept; the head input's gradient, the labels and one chunk are."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from gradacc_desktop.core.framework import Framework
from gradacc_desktop.core.frameworks.config_import import read_config
from gradacc_desktop.core.frameworks.export import ExportFormat
from gradacc_desktop.core.memory.activation import Inputs, Part, estimate
from gradacc_desktop.core.memory.activation_types import Family
from gradacc_desktop.core.memory.models import ModelSpec
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.exports import export_description
from gradacc_desktop.core.training.plan import plan
from gradacc_desktop.core.training.problems import ProblemKind

# Llama 3.1 8B's sizes (config.json): 4096 wide, 32 layers, 32/8 heads, 14336, 128256
LLAMA_8B = Inputs(Family.LLAMA, 4096, 32, 32, 8, 14336, 128256, 8192)


def _parts(inputs: Inputs) -> dict[Part, int]:
    result = estimate(inputs)
    return {item.key: item.total for item in (*result.breakdown, *result.peak_extra)}


def test_the_fused_loss_keeps_the_input_gradient_and_labels_instead_of_the_logits() -> None:
    s, h, v = 8192, 4096, 128256
    plain, fused = _parts(LLAMA_8B), _parts(replace(LLAMA_8B, fused_loss=True))
    assert plain[Part.LOSS] == 4 * s * v + 8 * (s + 1) + 4  # the fp32 log-softmax
    assert plain[Part.LOGITS_TRANSIENT] == (4 + 2) * s * v
    assert Part.LOSS not in fused and Part.LM_HEAD_INPUT not in fused
    assert Part.LOGITS_TRANSIENT not in fused
    assert fused[Part.FUSED_LOSS] == 2 * s * h + 8 * (s + 1)  # bf16 gradient, int64 labels
    assert fused[Part.LOSS_CHUNK] == 2 * 2 * s * h  # at most 2·s·h bf16 logits
    layers = {k: n for k, n in plain.items() if k not in (Part.LOSS, Part.LOGITS_TRANSIENT)}
    assert all(fused[k] == n for k, n in layers.items() if k is not Part.LM_HEAD_INPUT)
    saved = (
        estimate(LLAMA_8B).saved_bytes - estimate(replace(LLAMA_8B, fused_loss=True)).saved_bytes
    )
    assert saved == plain[Part.LOSS] + plain[Part.LM_HEAD_INPUT] - fused[Part.FUSED_LOSS]


@pytest.mark.parametrize("seq", [512, 8192, 262144])
def test_the_fused_loss_never_keeps_more(seq: int) -> None:
    plain = estimate(replace(LLAMA_8B, seq=seq))
    fused = estimate(replace(LLAMA_8B, seq=seq, fused_loss=True))
    assert fused.peak_bytes < plain.peak_bytes and fused.saved_bytes < plain.saved_bytes


def _description(**changes: object) -> TrainingDescription:
    base = TrainingDescription(
        model=ModelSpec.bundled("llama-3.1-8b"), seq_len=8192, fused_loss=True
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def test_megatron_refuses_the_fused_loss_and_counts_its_own() -> None:
    """Every figure of the plan is Megatron's unfused one: the activation per sample
    included, not only what the GPU holds."""
    megatron = plan(_description(framework=Framework.MEGATRON))
    assert ProblemKind.FUSED_LOSS_MEGATRON in [p.kind for p in megatron.problems]
    unfused = plan(_description(framework=Framework.MEGATRON, fused_loss=False))
    assert megatron.figures.activation.bytes == unfused.figures.activation.bytes
    assert megatron.figures.per_gpu_bytes(1) == unfused.figures.per_gpu_bytes(1)
    assert not plan(_description()).problems


def test_a_model_without_a_language_model_head_refuses_the_fused_loss() -> None:
    bert = _description(model=ModelSpec.bundled("bert-base-uncased"), seq_len=512)
    assert [p.kind for p in plan(bert).problems] == [ProblemKind.FUSED_LOSS_HEAD]


def test_the_plan_counts_less_activation_with_the_fused_loss() -> None:
    plain = plan(_description(fused_loss=False)).figures.activation.bytes
    fused = plan(_description()).figures.activation.bytes
    assert plain is not None and fused is not None and fused < plain


def _read(tmp_path: Path, name: str, data: dict[str, object]) -> bool | None:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), "utf-8")
    config = read_config(path)
    return config.fused_loss


@pytest.mark.parametrize(
    ("data", "fused"),
    [
        ({"use_liger_kernel": True}, True),
        ({"use_liger_kernel": False}, False),
        ({}, False),
        (
            {
                "use_liger_kernel": True,
                "liger_kernel_config": {"fused_linear_cross_entropy": False},
            },
            False,
        ),
        ({"use_liger_kernel": True, "liger_kernel_config": {"rms_norm": False}}, True),
    ],
)
def test_a_trainer_config_says_whether_the_loss_is_fused(
    tmp_path: Path, data: dict[str, object], fused: bool
) -> None:
    args = {"output_dir": "out", "per_device_train_batch_size": 2, **data}
    assert _read(tmp_path, "training_args.json", args) is fused


@pytest.mark.parametrize(
    ("data", "fused"),
    [
        ({"enable_liger_kernel": True}, True),
        ({"enable_liger_kernel": True, "stage": "pt"}, True),
        ({"enable_liger_kernel": True, "stage": "dpo"}, False),  # the stage needs logits
        ({}, False),
    ],
)
def test_a_llama_factory_config_fuses_the_loss_where_its_stage_allows(
    tmp_path: Path, data: dict[str, object], fused: bool
) -> None:
    config = {"model_name_or_path": "meta-llama/Llama-3.1-8B", "finetuning_type": "full", **data}
    assert _read(tmp_path, "llama3_full_sft.yaml", config) is fused


@pytest.mark.parametrize(
    ("data", "fused"),
    [
        (
            {
                "plugins": ["axolotl.integrations.liger.LigerPlugin"],
                "liger_fused_linear_cross_entropy": True,
            },
            True,
        ),
        (
            {
                "plugins": ["axolotl.integrations.liger.LigerPlugin"],
                "liger_fused_linear_cross_entropy": "yes",
            },
            True,
        ),
        ({"plugins": ["axolotl.integrations.liger.LigerPlugin"], "liger_rms_norm": True}, False),
        ({"liger_fused_linear_cross_entropy": True}, False),  # without the plugin: ignored
    ],
)
def test_an_axolotl_config_fuses_the_loss_with_the_liger_plugin(
    tmp_path: Path, data: dict[str, object], fused: bool
) -> None:
    config = {"base_model": "meta-llama/Llama-3.1-8B", "micro_batch_size": 1, **data}
    assert _read(tmp_path, "axolotl.yml", config) is fused


@pytest.mark.parametrize("fmt", list(ExportFormat), ids=lambda f: f.value)
def test_every_export_carries_the_fused_loss_or_says_where_it_goes(fmt: ExportFormat) -> None:
    d = _description(gpus=2, micro_batch=1)
    exported = export_description(fmt, d, d.setup(1, 4))
    train = exported.files.get("train.py", "")
    said = [n for n in exported.notes if "AutoLigerKernelForCausalLM" in n]
    if fmt in (ExportFormat.HF, ExportFormat.HF_DEEPSPEED):
        assert "    use_liger_kernel=True,  # the fused loss" in train and not said
    elif fmt is ExportFormat.MEGATRON:  # its own loss: said, and not in the files
        assert not said and [n for n in exported.notes if n.startswith("Megatron runs its own")]
        text = "".join(exported.files.values())
        assert "fused loss (Liger);" not in text and "fused loss (Liger)\n" not in text
    else:
        assert "use_liger_kernel" not in train and len(said) == 1
    plain = export_description(fmt, replace(d, fused_loss=False), d.setup(1, 4))
    assert not [n for n in plain.notes if "Liger" in n]
    assert "liger" not in "".join(plain.files.values()).lower()
