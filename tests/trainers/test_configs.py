"""Each export, read by the framework itself, ends up with the values we claim.

A grid of setups (one and several nodes, ZeRO 0-3, bf16/fp16/fp32, every offload,
uneven and prime GPU counts) goes through ``gradacc export``; then DeepSpeed's
``DeepSpeedConfig``, Hugging Face's ``TrainingArguments`` (and its DeepSpeed config
processing), accelerate's config-file loader and ``DeepSpeedPlugin``, Lightning's
``Trainer`` and Megatron's micro-batch calculator read the files. GPUs are simulated
where a framework would otherwise look for them: the data-parallel world size is
given to DeepSpeed through an ``mpu`` and to the Trainer through ``world_size``.
"""

from __future__ import annotations

import ast
import itertools
import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gradacc_desktop.core.frameworks.export import ExportFormat, export
from gradacc_desktop.core.memory.setup import Offload, Precision, TrainingSetup, setup_problem
from gradacc_desktop.core.memory.zero import ZeroStage
from tests.trainers.files import write_export

GRID = [
    TrainingSetup(b, a, g, nodes=n, zero_stage=ZeroStage(z), precision=p, offload=o)
    for (b, a, g, n) in [(4, 8, 8, 1), (3, 5, 7, 1), (2, 3, 6, 2), (1, 13, 64, 8), (5, 2, 13, 1)]
    for z in range(4)
    for p in Precision
    for o in Offload
]
GRID = [s for s in GRID if setup_problem(s) is None]


def _id(s: TrainingSetup) -> str:
    return (
        f"b{s.micro_batch}a{s.accumulation_steps}g{s.gpus}n{s.nodes}"
        f"z{int(s.zero_stage)}{s.precision.value}{s.offload.value}"
    )


class _Mpu:
    def __init__(self, world: int) -> None:
        self.world = world

    def get_data_parallel_world_size(self) -> int:
        return self.world


def _deepspeed_config(config: Any, world: int, monkeypatch: pytest.MonkeyPatch) -> Any:
    import deepspeed.runtime.config as ds_config

    # DeepSpeedConfig asks torch.distributed for the rank first (no process group here)
    monkeypatch.setattr(ds_config.dist, "get_rank", lambda *a, **k: 0)
    return ds_config.DeepSpeedConfig(config, mpu=_Mpu(world))


def _offload_devices(ds: Any) -> tuple[str, str]:
    zero = ds.zero_config

    def device(section: Any) -> str:
        if not section:
            return "none"
        return str(getattr(section.device, "value", section.device))

    return device(zero.offload_optimizer), device(zero.offload_param)


def _expected_offload(setup: TrainingSetup) -> tuple[str, str]:
    return (
        "none" if setup.offload is Offload.NONE else "cpu",
        "cpu" if setup.offload is Offload.ALL else "none",
    )


@pytest.mark.parametrize("setup", GRID, ids=_id)
def test_deepspeed_reads_ds_config(setup: TrainingSetup, in_tmp: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    write_export(ExportFormat.DEEPSPEED, setup, in_tmp)
    ds = _deepspeed_config(str(in_tmp / "ds_config.json"), setup.gpus, monkeypatch)
    assert ds.train_batch_size == setup.effective_batch
    assert ds.train_micro_batch_size_per_gpu == setup.micro_batch
    assert ds.gradient_accumulation_steps == setup.accumulation_steps
    assert ds.zero_optimization_stage == int(setup.zero_stage)
    assert _offload_devices(ds) == _expected_offload(setup)
    assert ds.bfloat16_config.enabled is (setup.precision is Precision.BF16)
    assert ds.float16_config.enabled is (setup.precision is Precision.FP16)


def _exec_module(path: Path) -> dict[str, Any]:
    """Run an exported Python file as an imported module (its ``__main__`` part not run)."""
    namespace: dict[str, Any] = {"__name__": "exported", "__file__": str(path)}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace


@pytest.fixture
def simulated_gpus(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """TrainingArguments as on a bf16-capable GPU machine of ``world`` processes."""
    import transformers.training_args as training_args

    monkeypatch.setattr(training_args, "is_torch_bf16_gpu_available", lambda *a, **k: True)

    def use(world: int) -> None:
        monkeypatch.setattr(
            training_args.TrainingArguments, "world_size", property(lambda self: world)
        )

    return use


HF_GRID = GRID


@pytest.mark.parametrize("fmt", [ExportFormat.HF, ExportFormat.HF_DEEPSPEED], ids=lambda f: f.value)
@pytest.mark.parametrize("setup", HF_GRID, ids=_id)
def test_training_arguments_read_hf_exports(  # type: ignore[no-untyped-def]
    fmt: ExportFormat, setup: TrainingSetup, in_tmp: Path, simulated_gpus, monkeypatch
) -> None:
    files = write_export(fmt, setup, in_tmp)
    simulated_gpus(setup.gpus)
    args = _exec_module(in_tmp / "train.py")["args"]
    assert args.per_device_train_batch_size == setup.micro_batch
    assert args.gradient_accumulation_steps == setup.accumulation_steps
    assert args.bf16 is (setup.precision is Precision.BF16)
    assert args.fp16 is (setup.precision is Precision.FP16)
    if "ds_config.json" in files:
        filled = args.hf_deepspeed_config.config
        assert filled["train_batch_size"] == setup.effective_batch
        assert filled["train_micro_batch_size_per_gpu"] == setup.micro_batch
        assert filled["gradient_accumulation_steps"] == setup.accumulation_steps
        ds = _deepspeed_config(dict(filled), setup.gpus, monkeypatch)
        assert ds.train_batch_size == setup.effective_batch
        assert ds.zero_optimization_stage == int(setup.zero_stage)
        assert _offload_devices(ds) == _expected_offload(setup)
        assert ds.bfloat16_config.enabled is (setup.precision is Precision.BF16)
        assert ds.float16_config.enabled is (setup.precision is Precision.FP16)
    else:
        plugin = args.fsdp_plugin_args
        if setup.zero_stage is ZeroStage.NONE:
            assert not args.fsdp and plugin is None
        else:
            assert args.fsdp is True
            reshard = setup.zero_stage is ZeroStage.WEIGHTS
            assert plugin["reshard_after_forward"] is reshard
            assert plugin.get("cpu_offload", False) is (setup.offload is Offload.ALL)
    launch = files["launch.sh"]
    assert f"--nnodes {setup.nodes} --nproc_per_node {setup.gpus_per_node} " in launch


@pytest.mark.parametrize("setup", GRID, ids=_id)
def test_accelerate_loads_its_config_file(setup: TrainingSetup, in_tmp: Path) -> None:
    from accelerate.commands.config.config_args import load_config_from_file
    from accelerate.utils import DeepSpeedPlugin

    files = write_export(ExportFormat.ACCELERATE, setup, in_tmp)
    config = load_config_from_file(str(in_tmp / "accelerate_config.yaml"))
    assert config.num_machines == setup.nodes
    assert config.num_processes == setup.gpus
    expected_mp = {"bf16": "bf16", "fp16": "fp16", "fp32": "no"}[setup.precision.value]
    assert str(config.mixed_precision) == expected_mp
    if setup.zero_stage is ZeroStage.NONE:
        assert config.deepspeed_config in (None, {})
        assert str(config.distributed_type) in ("MULTI_GPU", "NO", "DistributedType.MULTI_GPU")
        assert (
            f"ACCELERATE_GRADIENT_ACCUMULATION_STEPS={setup.accumulation_steps}"
            in files["launch.sh"]
        )
    else:
        ds = config.deepspeed_config
        assert ds["gradient_accumulation_steps"] == setup.accumulation_steps
        assert ds["zero_stage"] == int(setup.zero_stage)
        plugin = DeepSpeedPlugin(
            gradient_accumulation_steps=ds["gradient_accumulation_steps"],
            zero_stage=ds["zero_stage"],
            offload_optimizer_device=ds["offload_optimizer_device"],
            offload_param_device=ds["offload_param_device"],
            zero3_init_flag=ds.get("zero3_init_flag", False),
        )
        zero = plugin.deepspeed_config["zero_optimization"]
        assert zero["stage"] == int(setup.zero_stage)
        assert plugin.deepspeed_config["gradient_accumulation_steps"] == setup.accumulation_steps
        opt, param = _expected_offload(setup)
        assert zero["offload_optimizer"]["device"] == opt
        assert zero["offload_param"]["device"] == param
    if setup.multi_node:
        assert config.main_process_port == 29500


LIGHTNING_PRECISION = {
    Precision.BF16: "bf16-mixed",
    Precision.FP16: "16-mixed",
    Precision.FP32: "32-true",
}


@pytest.mark.parametrize("setup", GRID, ids=_id)
def test_lightning_trainer_reads_its_arguments(setup: TrainingSetup, in_tmp: Path) -> None:
    """The exported ``Trainer(...)`` call, built by Lightning itself with
    ``accelerator="cpu"`` in place of ``"auto"`` (no GPUs here; fp16 AMP then becomes
    bf16, which Lightning says); everything else exactly as exported."""
    import lightning as L
    from lightning.pytorch.strategies import DeepSpeedStrategy

    files = write_export(ExportFormat.LIGHTNING, setup, in_tmp)
    tree = ast.parse(files["train.py"])
    call = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "trainer"
    )
    source = ast.unparse(call).replace("accelerator='auto'", "accelerator='cpu'")
    assert "accelerator='cpu'" in source
    trainer = eval(source, {"L": L, "DeepSpeedStrategy": DeepSpeedStrategy})
    assert trainer.num_devices == setup.gpus_per_node
    assert trainer.num_nodes == setup.nodes
    assert trainer.accumulate_grad_batches == setup.accumulation_steps
    expected = LIGHTNING_PRECISION[setup.precision]
    if setup.zero_stage is ZeroStage.NONE and expected == "16-mixed":
        assert trainer.precision == "bf16-mixed"  # plain AMP on a CPU has no fp16
    else:
        assert trainer.precision == expected
    if setup.zero_stage is ZeroStage.NONE:
        assert type(trainer.strategy).__name__ == "DDPStrategy"
        return
    zero = trainer.strategy.config["zero_optimization"]
    assert zero["stage"] == int(setup.zero_stage)
    opt, param = _expected_offload(setup)
    assert ("offload_optimizer" in zero) is (opt == "cpu")
    assert ("offload_param" in zero) is (param == "cpu")


@pytest.mark.parametrize("setup", GRID, ids=_id)
def test_megatron_derives_our_accumulation_steps(setup: TrainingSetup, in_tmp: Path) -> None:
    from megatron.core import num_microbatches_calculator as calc
    from megatron.core.distributed import DistributedDataParallelConfig
    from megatron.core.optimizer import OptimizerConfig

    files = write_export(ExportFormat.MEGATRON, setup, in_tmp)
    text = files["megatron_args.sh"]
    body = text[text.index("BATCH_ARGS=(") + len("BATCH_ARGS=(") : text.index("\n)")]
    args = shlex.split(body)
    values = dict(itertools.pairwise(args))
    micro, global_batch = int(values["--micro-batch-size"]), int(values["--global-batch-size"])
    calc.destroy_num_microbatches_calculator()
    calc.init_num_microbatches_calculator(0, None, global_batch, micro, setup.gpus)
    try:
        assert calc.get_num_microbatches() == setup.accumulation_steps
        assert calc.get_current_global_batch_size() == setup.effective_batch
    finally:
        calc.destroy_num_microbatches_calculator()
    distributed = "--use-distributed-optimizer" in args
    fsdp = "--use-megatron-fsdp" in args
    strategy = values.get("--data-parallel-sharding-strategy", "no_shard")
    ddp = DistributedDataParallelConfig(
        use_distributed_optimizer=distributed,
        use_megatron_fsdp=fsdp,
        data_parallel_sharding_strategy=strategy,
    )
    expected = {0: "no_shard", 1: "no_shard", 2: "optim_grads", 3: "optim_grads_params"}
    assert ddp.data_parallel_sharding_strategy == expected[int(setup.zero_stage)]
    assert distributed is (setup.zero_stage is ZeroStage.OPTIMIZER)
    optimizer = OptimizerConfig(
        bf16="--bf16" in args,
        fp16="--fp16" in args,
        use_distributed_optimizer=distributed or fsdp,
        optimizer_cpu_offload="--optimizer-cpu-offload" in args,
    )
    assert optimizer.bf16 is (setup.precision is Precision.BF16)
    assert optimizer.fp16 is (setup.precision is Precision.FP16)
    assert optimizer.optimizer_cpu_offload is (setup.offload is not Offload.NONE)


@pytest.mark.parametrize(
    "fmt",
    [ExportFormat.HF, ExportFormat.ACCELERATE, ExportFormat.LIGHTNING, ExportFormat.TORCHRUN],
    ids=lambda f: f.value,
)
def test_launch_scripts_are_valid_bash(fmt: ExportFormat, in_tmp: Path) -> None:
    for setup in GRID[::7]:
        launch = export(fmt, setup).files["launch.sh"]
        result = subprocess.run(["bash", "-n"], input=launch, text=True, capture_output=True)
        assert result.returncode == 0, result.stderr


def test_cli_json_files_equal_the_export(capsys) -> None:  # type: ignore[no-untyped-def]
    from gradacc_desktop.cli import main

    argv = ["export", "--format", "accelerate", "--micro-batch", "2", "--accumulation-steps"]
    argv += ["3", "--gpus", "16", "--nodes", "2", "--zero-stage", "2", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    setup = TrainingSetup(2, 3, 16, nodes=2, zero_stage=ZeroStage(2))
    assert data["files"] == export(ExportFormat.ACCELERATE, setup).files


@pytest.mark.parametrize("fmt", ["hf", "hf-deepspeed"])
def test_training_arguments_take_the_fused_loss(  # type: ignore[no-untyped-def]
    fmt: str, in_tmp: Path, simulated_gpus
) -> None:
    """A description with the fused loss exports ``use_liger_kernel=True``, which
    TrainingArguments takes (the Trainer then applies Liger's kernels to the model)."""
    from gradacc_desktop.cli import main

    argv = ["export", "--format", fmt, "--micro-batch", "1", "--accumulation-steps", "4",
            "--gpus", "2", "--model", "llama-3.1-8b", "--seq-len", "2048", "--zero-stage",
            "2", "--fused-loss", "--out", str(in_tmp)]  # fmt: skip
    assert main(argv) == 0
    simulated_gpus(2)
    args = _exec_module(in_tmp / "train.py")["args"]
    assert args.use_liger_kernel is True
    assert args.gradient_accumulation_steps == 4
    assert main([*argv[:-3], "--out", str(in_tmp / "plain")]) == 0
    plain = _exec_module(in_tmp / "plain" / "train.py")["args"]
    assert plain.use_liger_kernel is False
