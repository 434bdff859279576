"""``gradacc check`` on real published configs, against what each framework does with them.

The corpus (``tests/data/trainer_configs``, sources in its ``SOURCES.md``) holds DeepSpeed
JSONs, accelerate YAMLs and axolotl YAMLs copied verbatim from public repositories.
Every file goes through ``gradacc check --json``; then:

* DeepSpeed JSON: DeepSpeed's own ``DeepSpeedConfig`` reads it for ``GPUS`` data-parallel
  ranks (given through an ``mpu``). A file with "auto" values is first filled the way the
  Hugging Face integration does (``TrainingArguments(deepspeed=...)`` and
  ``trainer_config_finalize`` with a stand-in model), with a micro-batch of 2 and 3
  accumulation steps; there we compare acceptance, ZeRO stage and offload, and that we
  leave the auto batch values unknown (the framework's numbers come from the Trainer).
  Files without "auto" batch values are compared on acceptance (an exception = refusal),
  train batch size, micro-batch and accumulation steps, ZeRO stage, offload, precision.
* accelerate YAML: ``load_config_from_file`` (it refuses unknown keys) - acceptance,
  ``num_processes``, ``num_machines``, distributed type, the DeepSpeed plugin's ZeRO stage
  and offload, mixed precision.
* axolotl YAML: axolotl is not installed; these are rule-checked, not run: our reading
  against the file's own ``micro_batch_size`` / ``gradient_accumulation_steps`` (or
  ``batch_size`` // ``micro_batch_size`` when the steps are missing, axolotl's
  ``normalize_config``) and train batch = micro-batch x steps x GPUs.

Every file must also be read without a crash: exit 0 or 1, one JSON object, no traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gradacc_desktop.cli import main
from tests.trainers.corpus import CORPUS, FILES, KINDS

# SOURCES.md's kinds and the "kind" gradacc check --json gives for them
KIND_VALUES = {
    "DeepSpeed JSON": "deepspeed",
    "accelerate YAML": "accelerate",
    "axolotl YAML": "axolotl",
    "TrainingArguments JSON": "transformers",
    "TRL recipe YAML": "transformers",
    "LLaMA-Factory YAML": "llama-factory",
    "torchtune YAML": "torchtune",
    "GPT-NeoX YAML": "gpt-neox",
}
DS_FILES = [p for p in FILES if KINDS.get(p.name) == "DeepSpeed JSON"]
ACCELERATE_FILES = [p for p in FILES if KINDS.get(p.name) == "accelerate YAML"]
AXOLOTL_FILES = [p for p in FILES if KINDS.get(p.name) == "axolotl YAML"]


def test_every_file_has_its_source() -> None:
    assert sorted(KINDS) == [p.name for p in FILES]
    text = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    repositories = {
        line.split("|")[3].strip() for line in text.splitlines() if line.startswith("| `")
    }
    # the corpus the issue asks for, and SOURCES.md says how large it is
    assert len(FILES) >= 40 and len(repositories) >= 10
    assert f"{len(FILES)} files from {len(repositories)} repositories." in text


# GPUs in all for the files that do not say it (DeepSpeed JSON, axolotl YAML); every
# DeepSpeedExamples train_batch_size in the corpus divides by it.
GPUS = 4
# What the Hugging Face integration fills "auto" batch values with (per device, steps).
HF_MICRO, HF_STEPS = 2, 3

# Known differences between our reading and the framework's (file name -> reason);
# each stays visible as a strict xfail.
XFAIL: dict[str, str] = {}
# The same for the "auto" precision check.
#: files whose precision section is the old "bfloat16" name with "auto": the Trainer
#: fills only "bf16.enabled", DeepSpeed drops the leftover "auto" (bf16 stays off)
LEGACY_BF16_AUTO = ("transformers__tests-deepspeed-ds_config_zero3_bf16.json",)


def _id(p: Path) -> str:
    return p.name


def _marks(p: Path) -> Any:
    if p.name in XFAIL:
        return pytest.param(
            p, id=p.name, marks=pytest.mark.xfail(strict=True, reason=XFAIL[p.name])
        )
    return pytest.param(p, id=p.name)


def _gpus_arg(path: Path) -> list[str]:
    return [] if KINDS.get(path.name) == "accelerate YAML" else ["--world-size", str(GPUS)]


def _check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    capsys.readouterr()
    code = main(["check", str(path), "--json", *_gpus_arg(path)])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


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


def _offload(ds: Any) -> str:
    zero = ds.zero_config

    def on(section: Any) -> bool:
        return bool(section) and str(getattr(section.device, "value", section.device)) != "none"

    optimizer, param = on(zero.offload_optimizer), on(zero.offload_param)
    return {(False, False): "none", (True, False): "optimizer", (True, True): "all"}.get(
        (optimizer, param), "param"
    )


def _enabled(raw: dict[str, Any], *sections: str) -> Any:
    for name in sections:
        if isinstance(raw.get(name), dict) and "enabled" in raw[name]:
            return raw[name]["enabled"]
    return None


BATCH_KEYS = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")


def _has_auto(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_auto(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_auto(v) for v in value)
    return value == "auto"


def _hf_filled(
    path: Path,
    raw: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    bf16: bool | None = None,
    fp16: bool | None = None,
) -> dict[str, Any]:
    """The config as the Hugging Face Trainer hands it to DeepSpeed (auto values filled)."""
    from types import SimpleNamespace

    import transformers.training_args as training_args
    from transformers import TrainingArguments

    monkeypatch.setattr(training_args, "is_torch_bf16_gpu_available", lambda *a, **k: True)
    monkeypatch.setattr(training_args.TrainingArguments, "world_size", property(lambda self: GPUS))
    args = TrainingArguments(
        output_dir=str(path.parent),
        deepspeed=str(path),
        per_device_train_batch_size=HF_MICRO,
        gradient_accumulation_steps=HF_STEPS,
        bf16=_enabled(raw, "bf16", "bfloat16") is True if bf16 is None else bf16,
        fp16=_enabled(raw, "fp16") is True if fp16 is None else fp16,
        report_to="none",
    )
    hf = args.hf_deepspeed_config
    model = SimpleNamespace(config=SimpleNamespace(hidden_size=64))
    hf.trainer_config_finalize(args, model, 100)
    return dict(hf.config)


@pytest.mark.parametrize("path", [_marks(p) for p in FILES])
def test_every_file_is_read_without_a_crash(path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, data, err = _check(path, capsys)
    assert code in (0, 1)
    assert isinstance(data, dict) and data["file"] == str(path)
    assert "Traceback" not in err
    assert code == (0 if data["framework_accepts"] else 1)
    # the kind recognised from the content is the kind SOURCES.md names
    assert data["kind"] == KIND_VALUES[KINDS[path.name]]


@pytest.mark.parametrize("path", [_marks(p) for p in DS_FILES])
def test_deepspeed_reads_the_file_as_we_do(path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("deepspeed")
    code, data, _ = _check(path, capsys)
    raw = json.loads(path.read_text(encoding="utf-8"))
    derived, values = data["derived"], data["values"]
    auto_batch = any(raw.get(k) == "auto" for k in BATCH_KEYS)
    config: Any = raw
    if _has_auto(raw):
        pytest.importorskip("transformers")
        config = _hf_filled(path, raw, monkeypatch)
    try:
        ds = _deepspeed_config(config if config is not raw else str(path), GPUS, monkeypatch)
    except Exception as exc:  # DeepSpeed's refusal, whatever its type
        ds, refusal = None, exc
    else:
        refusal = None
    assert data["framework_accepts"] is (ds is not None), f"DeepSpeed: {refusal!r}"
    assert code == (0 if ds is not None else 1)
    if ds is None:
        return
    assert values["zero_stage"] in (None, ds.zero_optimization_stage)
    if values["zero_stage"] is None:
        assert ds.zero_optimization_stage == 0
    assert values["offload"] in (None, _offload(ds))
    if auto_batch:
        # The numbers come from the Trainer: we must not claim any. (A batch key the file
        # leaves out stays out: DeepSpeed derives it, e.g. 1 accumulation step.)
        assert ds.train_micro_batch_size_per_gpu == HF_MICRO
        steps = ds.gradient_accumulation_steps
        assert steps == (HF_STEPS if "gradient_accumulation_steps" in raw else 1)
        assert ds.train_batch_size == HF_MICRO * steps * GPUS
        for key in BATCH_KEYS:
            if raw.get(key) == "auto":
                assert key in data["auto_keys"]
        assert derived["train_batch_size"] in (None, ds.train_batch_size)
        return
    assert derived["train_batch_size"] == ds.train_batch_size
    assert derived["micro_batch"] == ds.train_micro_batch_size_per_gpu
    assert derived["accumulation_steps"] == ds.gradient_accumulation_steps
    assert derived["gpus"] == GPUS == data["data_parallel_size"]
    precision = (
        "bf16" if ds.bfloat16_config.enabled else "fp16" if ds.float16_config.enabled else None
    )
    if values["precision"] in ("bf16", "fp16"):
        assert values["precision"] == precision
    else:
        assert precision is None


@pytest.mark.parametrize("path", [_marks(p) for p in ACCELERATE_FILES])
def test_accelerate_reads_the_file_as_we_do(path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("accelerate")
    from accelerate.commands.config.config_args import load_config_from_file

    code, data, _ = _check(path, capsys)
    values = data["values"]
    try:
        config = load_config_from_file(str(path))
    except Exception as exc:  # accelerate's refusal, whatever its type
        config, refusal = None, exc
    else:
        refusal = None
    if config is None:
        assert data["framework_accepts"] is False and code == 1, f"accelerate: {refusal!r}"
        return
    # accelerate loads the file; we may still refuse what its launcher refuses later
    # (e.g. parallel sizes that do not multiply to num_processes) - not the case here.
    assert data["framework_accepts"] is True and code == 0, data["problems"]
    distributed = str(getattr(config.distributed_type, "value", config.distributed_type))
    assert values["distributed_type"] in (None, distributed)
    assert data["derived"]["gpus"] == config.num_processes
    assert values["nodes"] in (None, config.num_machines)
    mixed = str(getattr(config.mixed_precision, "value", config.mixed_precision))
    expected_precision = {"bf16": "bf16", "fp16": "fp16", "no": "fp32"}.get(mixed)
    assert values["precision"] in (None, expected_precision)
    ds = config.deepspeed_config or {}
    if distributed == "DEEPSPEED" and "zero_stage" in ds:
        assert values["zero_stage"] == ds["zero_stage"]
        if "offload_optimizer_device" not in ds and "offload_param_device" not in ds:
            # accelerate then takes the devices from its environment (ACCELERATE_DEEPSPEED_
            # OFFLOAD_*_DEVICE, "none" when unset): we leave offload open, as for zero_stage
            assert values["offload"] is None
            return
        optimizer = ds.get("offload_optimizer_device", "none") not in ("none", None)
        param = ds.get("offload_param_device", "none") not in ("none", None)
        expected = {(False, False): "none", (True, False): "optimizer", (True, True): "all"}
        assert values["offload"] == expected[(optimizer, param)]


@pytest.mark.parametrize("path", [_marks(p) for p in ACCELERATE_FILES])
@pytest.mark.parametrize("variant", ["no distributed_type", "old fp16 key", "unknown type"])
def test_accelerate_process_config_variants(
    path: Path, variant: str, tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    """accelerate's process_config() on variants of each real file: a file without
    distributed_type is refused, an old ``fp16`` key is the mixed precision, an unknown
    distributed type is refused - as accelerate's own loader does."""
    pytest.importorskip("accelerate")
    from accelerate.commands.config.config_args import load_config_from_file

    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if variant == "no distributed_type":
        raw.pop("distributed_type", None)
    elif variant == "old fp16 key":
        raw.pop("mixed_precision", None)
        raw["fp16"] = True
    else:
        raw["distributed_type"] = "MULTI_TPUS"
    changed = tmp_path / path.name
    changed.write_text(yaml.safe_dump(raw), encoding="utf-8")
    code, data, _ = _check(changed, capsys)
    try:
        config = load_config_from_file(str(changed))
    except Exception:  # accelerate's refusal, whatever its type
        config = None
    assert data["framework_accepts"] is (config is not None) and code == (0 if config else 1)
    if config is not None and variant == "old fp16 key":
        assert str(getattr(config.mixed_precision, "value", config.mixed_precision)) == "fp16"
        assert data["values"]["precision"] == "fp16"


def _accelerate_launch(path: Path) -> tuple[Any, int, dict[str, str]]:
    """What ``accelerate launch --config_file PATH train.py`` would start, without
    starting it: its own argument handling (``_validate_launch_command``) and
    environment (``prepare_multi_gpu_env`` / ``prepare_deepspeed_cmd_env``). Returns the
    arguments, the processes in all and the environment it exports."""
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils.launch import prepare_deepspeed_cmd_env, prepare_multi_gpu_env

    args = launch_command_parser().parse_args(["--config_file", str(path), "train.py"])
    args, defaults, _mixed = _validate_launch_command(args)
    if args.use_deepspeed:
        # as launch_command() does before deepspeed_launcher()
        args.deepspeed_fields_from_accelerate_config = ",".join(defaults.deepspeed_config)
        cmd, env = prepare_deepspeed_cmd_env(args)
        if cmd is not None:  # the deepspeed runner: --num_gpus on each host
            return args, int(cmd[cmd.index("--num_gpus") + 1]) * args.num_machines, env
    else:
        env = prepare_multi_gpu_env(args)
    return args, int(args.nproc_per_node) * int(getattr(args, "nnodes", 1)), env


def _fsdp_plugin(env: dict[str, str]) -> Any:
    """accelerate's FullyShardedDataParallelPlugin as the Accelerator builds it from the
    launcher's environment. Loading on rank 0 only (sync_module_states) needs a GPU: it
    is switched off, which changes neither the sharding nor the offload."""
    from accelerate.utils import FullyShardedDataParallelPlugin, patch_environment

    fsdp = {k: v for k, v in env.items() if k.startswith("FSDP_")}
    fsdp.update(FSDP_SYNC_MODULE_STATES="false", FSDP_CPU_RAM_EFFICIENT_LOADING="false")
    with patch_environment(**fsdp):
        return FullyShardedDataParallelPlugin()


def _plugin_reading(plugin: Any) -> tuple[int, bool]:
    """(ZeRO stage, parameters offloaded) of accelerate's FSDP plugin."""
    if plugin.fsdp_version == 2:
        stage = 3 if plugin.reshard_after_forward else 2
        return stage, type(plugin.cpu_offload).__name__ == "CPUOffloadPolicy"
    # ShardingStrategy: FULL_SHARD 1, SHARD_GRAD_OP 2, NO_SHARD 3, HYBRID_SHARD 4,
    # _HYBRID_SHARD_ZERO2 5 (the hybrids as on one machine)
    stage = {1: 3, 2: 2, 3: 0, 4: 3, 5: 2}[plugin.sharding_strategy.value]
    return stage, bool(plugin.cpu_offload.offload_params)


FSDP_FILES = [
    p
    for p in ACCELERATE_FILES
    if yaml.safe_load(p.read_text("utf-8"))["distributed_type"] == "FSDP"
]
# fsdp_config changes made to each FSDP file: every strategy by name and number, FSDP2's
# reshard_after_forward, the CPU offload, keys without the prefix and values accelerate
# refuses
FSDP_VARIANTS: list[dict[str, Any]] = [
    {},
    {"fsdp_version": 1, "fsdp_sharding_strategy": "SHARD_GRAD_OP"},
    {"fsdp_version": 1, "fsdp_sharding_strategy": 3},
    {"fsdp_version": 1, "fsdp_sharding_strategy": "hybrid_shard"},
    {"fsdp_version": 1, "fsdp_sharding_strategy": "_HYBRID_SHARD_ZERO2"},
    {"fsdp_version": 1, "sharding_strategy": 2, "offload_params": True},
    {"fsdp_version": 1, "fsdp_sharding_strategy": "FULL_SHARD", "fsdp_offload_params": True},
    {"fsdp_version": 1, "fsdp_reshard_after_forward": "SHARD_GRAD_OP"},
    {"fsdp_version": 1, "fsdp_sharding_strategy": "QUARTER_SHARD"},
    {"fsdp_version": 2, "fsdp_reshard_after_forward": False},
    {"fsdp_version": 2, "fsdp_reshard_after_forward": "yes", "fsdp_offload_params": True},
    {"fsdp_version": 2, "fsdp_reshard_after_forward": "FULL_SHARD"},
    {"fsdp_version": 2, "fsdp_offload_params": "maybe"},
    {"fsdp_sync_module_states": False},
]


@pytest.mark.parametrize("variant", FSDP_VARIANTS, ids=[str(i) for i in range(len(FSDP_VARIANTS))])
@pytest.mark.parametrize("path", FSDP_FILES, ids=_id)
def test_accelerate_fsdp_plugin_reads_it_as_we_do(  # type: ignore[no-untyped-def]
    path: Path, variant: dict[str, Any], tmp_path: Path, capsys
) -> None:
    """Our ZeRO stage and offload of an FSDP config against accelerate's own plugin,
    built from the environment its launcher exports for the file."""
    pytest.importorskip("accelerate")
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    fsdp = dict(raw.get("fsdp_config") or {})
    for key in list(fsdp):  # the variant decides the sharding keys
        if key in ("fsdp_version", "fsdp_sharding_strategy", "fsdp_reshard_after_forward"):
            del fsdp[key]
    fsdp.update(variant)
    raw["fsdp_config"] = fsdp
    file = tmp_path / "fsdp.yaml"
    file.write_text(yaml.safe_dump(raw), encoding="utf-8")
    capsys.readouterr()
    code = main(["check", str(file), "--json"])
    data = json.loads(capsys.readouterr().out)
    try:
        _args, processes, env = _accelerate_launch(file)
        plugin = _fsdp_plugin(env)
    except (ValueError, KeyError) as exc:  # the launcher's or the plugin's refusal
        assert data["framework_accepts"] is False and code == 1, f"accelerate: {exc!r}"
        return
    assert data["framework_accepts"] is True and code == 0, data["problems"]
    assert data["gpus"] == processes
    stage, offloaded = _plugin_reading(plugin)
    values = data["values"]
    assert values["zero_stage"] == stage
    if offloaded and stage != 3:  # CPU offload without FULL_SHARD: not modelled
        assert values["offload"] is None and "offload" in data["missing"]
    else:
        assert values["offload"] in ({"all"} if offloaded else {None, "none"})


SPLITS = [(8, 3), (10, 4), (8, 2), (2, 1)]


@pytest.mark.parametrize(("processes", "machines"), SPLITS, ids=lambda v: str(v))
@pytest.mark.parametrize("path", ACCELERATE_FILES, ids=_id)
def test_accelerate_starts_the_processes_we_say(  # type: ignore[no-untyped-def]
    path: Path, processes: int, machines: int, tmp_path: Path, capsys
) -> None:
    """The GPUs we report for a file (num_processes over num_machines) against the
    processes accelerate's launcher would start: torchrun's nproc_per_node x nnodes, or
    the deepspeed runner's --num_gpus on each machine."""
    pytest.importorskip("accelerate")
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    raw.update(num_processes=processes, num_machines=machines, main_process_ip="10.0.0.1")
    raw.setdefault("main_process_port", 29517)
    raw.pop("parallelism_config", None)  # the sizes are checked on their own above
    file = tmp_path / "machines.yaml"
    file.write_text(yaml.safe_dump(raw), encoding="utf-8")
    capsys.readouterr()
    code = main(["check", str(file), "--json"])
    data = json.loads(capsys.readouterr().out)
    _args, started, _env = _accelerate_launch(file)
    if raw["distributed_type"] in ("NO", "MULTI_CPU"):
        return  # the simple launcher: one process or CPU processes
    assert data["gpus"] == started, data["problems"]
    assert code == (0 if data["framework_accepts"] else 1)
    split = [w for w in data["problems"] if w.startswith("accelerate launch starts")]
    assert bool(split) is (started != processes)


@pytest.mark.parametrize("path", [_marks(p) for p in AXOLOTL_FILES])
def test_axolotl_rule_checked_not_run(path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, data, _ = _check(path, capsys)
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    micro = raw["micro_batch_size"]
    steps = raw.get("gradient_accumulation_steps") or raw["batch_size"] // micro
    derived = data["derived"]
    assert data["framework_accepts"] is True and code == 0
    assert derived["micro_batch"] == micro
    assert derived["accumulation_steps"] == steps
    assert derived["train_batch_size"] == micro * steps * GPUS
    assert data["effective_batch"] == micro * steps * GPUS


_SECTIONS = {"bf16": ("bf16",), "fp16": ("fp16",)}
#: (file, precision) where the file leaves that precision "auto" for the Trainer
AUTO_PRECISION = [
    (p, precision)
    for p in DS_FILES
    for precision, names in _SECTIONS.items()
    if any(_enabled(json.loads(p.read_text(encoding="utf-8")), n) == "auto" for n in names)
]


@pytest.mark.parametrize(
    ("path", "precision"),
    [pytest.param(p, precision, id=f"{p.name}-{precision}") for p, precision in AUTO_PRECISION],
)
def test_auto_precision_follows_the_trainer(  # type: ignore[no-untyped-def]
    path: Path, precision: str, capsys, monkeypatch
) -> None:
    """Where we say the precision is "auto" (the Trainer sets it), the Trainer's bf16/fp16
    argument really reaches DeepSpeed."""
    pytest.importorskip("deepspeed")
    pytest.importorskip("transformers")
    _, data, _ = _check(path, capsys)
    raw = json.loads(path.read_text(encoding="utf-8"))
    auto = [k for k in data["auto_keys"] if k.endswith(".enabled")]
    assert auto, "we did not report the auto precision"
    assert data["values"]["precision"] is None
    assert any(_enabled(raw, n) == "auto" for n in _SECTIONS[precision])
    config = _hf_filled(path, raw, monkeypatch, bf16=precision == "bf16", fp16=precision == "fp16")
    ds = _deepspeed_config(config, GPUS, monkeypatch)
    enabled = ds.bfloat16_config.enabled if precision == "bf16" else ds.float16_config.enabled
    assert enabled is True


@pytest.mark.parametrize("name", LEGACY_BF16_AUTO)
def test_the_old_bfloat16_auto_stays_off(  # type: ignore[no-untyped-def]
    name: str, capsys, monkeypatch
) -> None:
    """The old section name with "auto": the Trainer's bf16=True does not reach it, and
    DeepSpeed runs without bf16 — as we say (fp32, the key named as not filled)."""
    pytest.importorskip("deepspeed")
    pytest.importorskip("transformers")
    path = CORPUS / name
    _, data, _ = _check(path, capsys)
    assert data["values"]["precision"] == "fp32"
    assert "bfloat16.enabled" not in data["auto_keys"]
    assert any(u["key"] == "bfloat16.enabled" for u in data["unread"])
    raw = json.loads(path.read_text(encoding="utf-8"))
    config = _hf_filled(path, raw, monkeypatch, bf16=True, fp16=False)
    ds = _deepspeed_config(config, GPUS, monkeypatch)
    assert ds.bfloat16_config.enabled is False and ds.float16_config.enabled is False


PARALLEL_FILES = [
    p
    for p in ACCELERATE_FILES
    if "parallelism_config" in (yaml.safe_load(p.read_text(encoding="utf-8")) or {})
]


@pytest.mark.parametrize("gpus", [None, 3, 4])
@pytest.mark.parametrize("path", [_marks(p) for p in PARALLEL_FILES])
def test_accelerate_parallelism_config_as_we_read_it(  # type: ignore[no-untyped-def]
    path: Path, gpus: int | None, capsys
) -> None:
    """accelerate's ParallelismConfig, built from the file's sizes, validated as the
    Accelerator does (``_validate_accelerator``) for the file's num_processes or --gpus."""
    from types import SimpleNamespace

    pytest.importorskip("accelerate")
    from accelerate.parallelism_config import ParallelismConfig
    from accelerate.utils import DistributedType

    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    capsys.readouterr()
    argv = ["check", str(path), "--json"] + ([] if gpus is None else ["--world-size", str(gpus)])
    code = main(argv)
    data = json.loads(capsys.readouterr().out)
    pc_raw = raw["parallelism_config"]
    sizes = {
        name: pc_raw.get(f"parallelism_config_{name}_size")
        for name in ("dp_replicate", "dp_shard", "tp", "cp", "sp")
    }
    kwargs: dict[str, Any] = {f"{k}_size": v for k, v in sizes.items() if v is not None}
    if "parallelism_config_sp_backend" in pc_raw:
        kwargs["sp_backend"] = pc_raw["parallelism_config_sp_backend"]
    pc = ParallelismConfig(**kwargs)
    processes = raw["num_processes"] if gpus is None else gpus
    kind = DistributedType[raw["distributed_type"]]
    fsdp2 = kind == DistributedType.FSDP and raw.get("fsdp_config", {}).get("fsdp_version") == 2
    accelerator = SimpleNamespace(
        multi_device=processes > 1,
        num_processes=processes,
        is_fsdp2=fsdp2,
        distributed_type=kind,
    )
    try:
        pc._validate_accelerator(accelerator)
    except ValueError as exc:
        accepted, refusal = False, exc
    else:
        accepted, refusal = True, None
    assert data["framework_accepts"] is accepted, f"accelerate: {refusal!r}; us: {data['problems']}"
    assert code == (0 if accepted else 1)
    if accepted and data["data_parallel_size"] is not None:
        assert data["data_parallel_size"] == pc.data_parallel_size
