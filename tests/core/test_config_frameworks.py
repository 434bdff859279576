"""Framework rules of ``gradacc check``: accelerate's split of the processes over the
machines, FSDP sections read as ZeRO stages and offload (accelerate and axolotl), and
the keys axolotl does not know.

Each rule is the framework's own (accelerate 1.16, axolotl 0.21.0): see the comments in
``core/frameworks/config_import/accelerate.py``, ``fsdp.py`` and ``axolotl.py``. The trainer tier
(tests/trainers/test_config_corpus.py) checks the accelerate rules against accelerate
itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gradacc_desktop.cli import main
from gradacc_desktop.core.frameworks.config_import import (
    ImportedConfig,
    UnknownKey,
    Unread,
    read_config,
)
from gradacc_desktop.core.frameworks.config_import.axolotl_keys import (
    AXOLOTL_KEYS,
    AXOLOTL_PLUGIN_KEYS,
)
from gradacc_desktop.core.memory.setup import Offload
from gradacc_desktop.core.memory.zero import ZeroStage

CORPUS = Path(__file__).resolve().parents[1] / "data" / "trainer_configs"


def check(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    text: str,
    *argv: str,
    name: str = "config.yaml",
    code: int = 0,
) -> dict[str, Any]:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    capsys.readouterr()
    assert main(["check", str(path), "--json", *argv]) == code
    out, err = capsys.readouterr()
    assert err == ""
    data = json.loads(out)
    assert data["framework_accepts"] is (code == 0)
    return data


def accelerate(body: str, processes: int = 8, machines: int | None = None) -> str:
    text = f"distributed_type: {body}\nnum_processes: {processes}\nmixed_precision: bf16\n"
    if machines is not None:
        text += f"num_machines: {machines}\n"
    return text


def fsdp(settings: str = "", machines: int | None = None) -> ImportedConfig:
    text = accelerate("FSDP", machines=machines)
    if settings:
        text += "fsdp_config:\n" + "".join(f"  {line}\n" for line in settings.splitlines())
    return read_config(text)


def refused(config: ImportedConfig) -> list[Unread]:
    return [u for u in config.unread if u.refused]


# --------------------------------------------------------------------------- machines


def test_eight_processes_over_three_machines_start_six(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # accelerate's launchers start num_processes // num_machines per machine: 2 x 3
    config = read_config(accelerate("MULTI_GPU", 8, 3))
    assert config.gpus == 8  # as read
    assert config.started_gpus == 6
    d = config.derived()
    assert d.gpus == 6 and d.gpus_from == "file" and d.data_parallel == 6
    assert d.warnings == (
        "accelerate launch starts num_processes // num_machines = 8 // 3 = 2 processes "
        "on each of the 3 machines: 6 in all, not 8.",
    )
    data = check(tmp_path, capsys, accelerate("MULTI_GPU", 8, 3))
    assert data["gpus"] == 6 and data["values"]["gpus"] == 8
    assert data["problems"] == [d.warnings[0]]  # it runs: a warning, exit 0
    main(["check", str(tmp_path / "config.yaml")])
    assert "Warning: accelerate launch starts" in capsys.readouterr().out


def test_an_even_split_and_gpus_override_keep_the_count() -> None:
    even = read_config(accelerate("MULTI_GPU", 8, 2))
    assert even.started_gpus is None and even.derived().gpus == 8
    assert even.derived().warnings == ()
    # --gpus is the GPUs in all, as before: no split
    uneven = read_config(accelerate("MULTI_GPU", 8, 3))
    d = uneven.derived(8)
    assert d.gpus == 8 and d.gpus_from == "argument" and d.warnings == ()


@pytest.mark.parametrize("kind", ["FSDP", "MEGATRON_LM", "MULTI_XPU", "MULTI_NEURON"])
def test_every_multi_device_launcher_splits(kind: str) -> None:
    assert read_config(accelerate(kind, 10, 4)).derived().gpus == 8


@pytest.mark.parametrize("kind", ["NO", "MULTI_CPU"])
def test_the_simple_launcher_does_not_split(kind: str) -> None:
    config = read_config(accelerate(kind, 8, 3))
    assert config.started_gpus is None and config.derived().gpus == 8


def test_fewer_processes_than_machines_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 2 // 3 = 0 per machine: torchrun's WorkerSpec refuses local_world_size 0
    data = check(tmp_path, capsys, accelerate("MULTI_GPU", 2, 3), code=1)
    assert data["problems"][0] == (
        "num_machines = 3: accelerate launch starts num_processes // num_machines = 2 // 3 "
        "= 0 processes per machine: torchrun refuses that"
    )


def test_deepspeed_standard_launcher_splits_like_torchrun() -> None:
    text = accelerate("DEEPSPEED", 8, 3) + (
        "deepspeed_config:\n  zero_stage: 2\n  deepspeed_multinode_launcher: standard\n"
    )
    assert read_config(text).derived().gpus == 6
    # pdsh (the default): deepspeed --num_gpus 2 on each host of the hostfile
    pdsh = accelerate("DEEPSPEED", 8, 3) + "deepspeed_config:\n  zero_stage: 2\n"
    assert read_config(pdsh).derived().gpus == 6


def test_deepspeed_hostfile_decides_with_a_filter_or_zero_per_machine() -> None:
    text = accelerate("DEEPSPEED", 8, 2) + (
        "deepspeed_config:\n  zero_stage: 2\n  deepspeed_inclusion_filter: host1@host2\n"
    )
    config = read_config(text)
    assert config.gpus is None and config.derived().gpus is None
    assert "GPU count" in config.missing()
    (unread,) = config.unread
    assert unread.key == "num_processes" and not unread.refused
    assert "deepspeed_config.deepspeed_inclusion_filter is set" in unread.reason
    assert config.derived(16).gpus == 16  # --gpus gives it
    zero = read_config(accelerate("DEEPSPEED", 2, 3) + "deepspeed_config:\n  zero_stage: 2\n")
    assert zero.gpus is None and "2 // 3 = 0" in zero.unread[0].reason
    assert refused(zero) == []  # --num_gpus 0 keeps every slot: it runs


def test_split_setup_over_the_machines(tmp_path: Path) -> None:
    # the batch from the DeepSpeed JSON accelerate follows, on the 6 processes started
    (tmp_path / "ds.json").write_text(
        json.dumps({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4}),
        "utf-8",
    )
    path = tmp_path / "acc.yaml"
    path.write_text(
        accelerate("DEEPSPEED", 8, 3)
        + "deepspeed_config:\n  zero_stage: 2\n  deepspeed_config_file: ds.json\n",
        "utf-8",
    )
    config = read_config(path)
    setup, reasons = config.setup()
    assert reasons == [] and setup is not None
    assert (setup.gpus, setup.nodes, setup.effective_batch) == (6, 3, 2 * 4 * 6)
    # without the split, 8 GPUs over 3 nodes would not even divide
    assert config.setup(8) == (None, ["8 GPUs cannot be split evenly over 3 nodes."])


# --------------------------------------------------------------------------- accelerate FSDP


@pytest.mark.parametrize(
    ("value", "stage"),
    [
        ("FULL_SHARD", ZeroStage.WEIGHTS),
        ("full_shard", ZeroStage.WEIGHTS),
        ("1", ZeroStage.WEIGHTS),
        ("SHARD_GRAD_OP", ZeroStage.GRADIENTS),
        ("2", ZeroStage.GRADIENTS),
        ("NO_SHARD", ZeroStage.NONE),
        ("3", ZeroStage.NONE),
        ("HYBRID_SHARD", ZeroStage.WEIGHTS),  # one machine: FULL_SHARD
        ("4", ZeroStage.WEIGHTS),
        ("HYBRID_SHARD_ZERO2", ZeroStage.GRADIENTS),
        ("_HYBRID_SHARD_ZERO2", ZeroStage.GRADIENTS),  # torch's member name
        ("5", ZeroStage.GRADIENTS),
    ],
)
def test_sharding_strategy_by_name_and_number(value: str, stage: ZeroStage) -> None:
    config = fsdp(f"fsdp_sharding_strategy: {value}")
    assert config.unread == ()
    assert config.zero_stage is stage
    assert config.key_of("zero_stage") == "fsdp_config.fsdp_sharding_strategy"
    note = config.derived().notes[0]
    assert note.startswith("FSDP ") and note.endswith(f"read as {_zero_text(stage)}.")


def _zero_text(stage: ZeroStage) -> str:
    return "no ZeRO (stage 0)" if stage is ZeroStage.NONE else f"ZeRO-{int(stage)}"


def test_keys_without_the_fsdp_prefix() -> None:
    # _validate_launch_command prefixes "fsdp_" to keys that do not start with "fsdp"
    config = fsdp("sharding_strategy: SHARD_GRAD_OP\noffload_params: false")
    assert config.zero_stage is ZeroStage.GRADIENTS and config.offload is Offload.NONE
    assert config.key_of("zero_stage") == "fsdp_config.sharding_strategy"


@pytest.mark.parametrize("value", ["6", "0", "HALF_SHARD", "true", "null"])
def test_sharding_strategy_accelerate_refuses(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = fsdp(f"fsdp_sharding_strategy: {value}")
    (unread,) = refused(config)
    assert unread.key == "fsdp_config.fsdp_sharding_strategy"
    assert "accelerate's FSDP plugin refuses it" in unread.reason
    assert config.zero_stage is None and "ZeRO stage" in config.missing()
    text = accelerate("FSDP") + f"fsdp_config:\n  fsdp_sharding_strategy: {value}\n"
    check(tmp_path, capsys, text, code=1)


def test_fsdp_defaults_are_accelerate_launch_defaults() -> None:
    # launch: --fsdp_version "1", --fsdp_sharding_strategy FULL_SHARD,
    # --fsdp_offload_params "false"
    for config in (fsdp(), fsdp("fsdp_offload_params: false")):
        assert config.zero_stage is ZeroStage.WEIGHTS and config.key_of("zero_stage") is None
        d = config.derived()
        assert "zero_stage" in d.derived
        assert any("default FSDP sharding is FULL_SHARD" in n for n in d.notes)
    assert fsdp("fsdp_version: 2").derived().notes == (
        "ZeRO-3: accelerate launch's default for FSDP2 is fsdp_reshard_after_forward true "
        "(FULL_SHARD), which shards the parameters, gradients and optimizer states.",
    )


@pytest.mark.parametrize(
    ("value", "stage"),
    [
        ("true", ZeroStage.WEIGHTS),
        ("false", ZeroStage.GRADIENTS),
        ('"yes"', ZeroStage.WEIGHTS),
        ("0", ZeroStage.GRADIENTS),
    ],
)
def test_fsdp2_reshard_after_forward(value: str, stage: ZeroStage) -> None:
    config = fsdp(f"fsdp_version: 2\nfsdp_reshard_after_forward: {value}")
    assert config.zero_stage is stage and config.unread == ()
    assert config.derived().notes[0].startswith("FSDP2 with reshard_after_forward")


def test_fsdp2_refuses_a_strategy_name_and_ignores_sharding_strategy() -> None:
    bad = fsdp("fsdp_version: 2\nfsdp_reshard_after_forward: FULL_SHARD")
    assert [u.key for u in refused(bad)] == ["fsdp_config.fsdp_reshard_after_forward"]
    ignored = fsdp("fsdp_version: 2\nfsdp_sharding_strategy: NO_SHARD")
    assert ignored.zero_stage is ZeroStage.WEIGHTS  # the default reshard true
    (unread,) = ignored.unread
    assert not unread.refused and "not read with fsdp_version 2" in unread.reason


def test_cpu_ram_efficient_loading_needs_sync_module_states() -> None:
    # prepare_multi_gpu_env raises ValueError; both default to "true" in launch
    config = fsdp("fsdp_sync_module_states: false")
    assert [u.key for u in refused(config)] == ["fsdp_config.fsdp_sync_module_states"]
    off = fsdp("fsdp_sync_module_states: false\nfsdp_cpu_ram_efficient_loading: false")
    assert refused(off) == []


def test_fsdp_version_must_be_a_number() -> None:
    config = fsdp("fsdp_version: two")
    assert [u.key for u in refused(config)] == ["fsdp_config.fsdp_version"]
    other = fsdp("fsdp_version: 3")
    assert refused(other) == [] and "ZeRO stage" in other.missing()


def test_fsdp1_does_not_read_reshard_after_forward() -> None:
    # with version 1 the launcher always exports FSDP_SHARDING_STRATEGY (FULL_SHARD by
    # default), which the plugin takes before reshard_after_forward
    config = fsdp("fsdp_version: 1\nfsdp_reshard_after_forward: SHARD_GRAD_OP")
    assert config.zero_stage is ZeroStage.WEIGHTS
    (warning,) = config.derived().warnings
    assert warning.startswith("accelerate runs FSDP FULL_SHARD (the default)")
    assert "does not read fsdp_config.fsdp_reshard_after_forward" in warning
    same = fsdp("fsdp_sharding_strategy: NO_SHARD\nfsdp_reshard_after_forward: NO_SHARD")
    assert same.derived().warnings == () and same.zero_stage is ZeroStage.NONE


def test_cpu_offload_with_full_shard_is_offload_all() -> None:
    config = fsdp("fsdp_sharding_strategy: FULL_SHARD\nfsdp_offload_params: true")
    assert config.offload is Offload.ALL
    assert config.key_of("offload") == "fsdp_config.fsdp_offload_params"
    assert config.derived().notes[1] == (
        "FSDP CPU offload (fsdp_config.fsdp_offload_params) keeps the parameters and "
        "gradients on the CPU and runs the optimizer step there: read as offloading the "
        "optimizer and the parameters."
    )
    v2 = fsdp("fsdp_version: 2\nfsdp_offload_params: true")
    assert v2.zero_stage is ZeroStage.WEIGHTS and v2.offload is Offload.ALL


def test_cpu_offload_without_full_shard_is_not_modelled() -> None:
    config = fsdp("fsdp_sharding_strategy: SHARD_GRAD_OP\nfsdp_offload_params: true")
    assert config.zero_stage is ZeroStage.GRADIENTS and config.offload is None
    (unread,) = config.unread
    assert unread.key == "fsdp_config.fsdp_offload_params" and not unread.refused
    assert "FSDP CPU offload with SHARD_GRAD_OP is not modelled" in unread.reason
    assert "offload" in config.missing()


def test_cpu_offload_accelerate_refuses() -> None:
    config = fsdp("fsdp_offload_params: maybe")
    assert [u.key for u in refused(config)] == ["fsdp_config.fsdp_offload_params"]
    assert config.zero_stage is ZeroStage.WEIGHTS  # the strategy still reads


def test_hybrid_shard_over_machines_is_not_modelled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = fsdp("fsdp_sharding_strategy: HYBRID_SHARD", machines=2)
    assert config.zero_stage is None
    (unread,) = config.unread
    assert not unread.refused  # accelerate runs it; gradacc does not model it
    assert "within each machine and replicates across the 2 machines" in unread.reason
    assert config.missing() == ["micro-batch", "accumulation steps", "ZeRO stage", "offload"]
    one = fsdp("fsdp_sharding_strategy: HYBRID_SHARD", machines=1)
    assert one.zero_stage is ZeroStage.WEIGHTS
    text = accelerate("FSDP", 16, 2) + "fsdp_config:\n  fsdp_sharding_strategy: 4\n"
    data = check(tmp_path, capsys, text)
    assert data["values"]["zero_stage"] is None and "ZeRO stage" in data["missing"]


def test_fsdp2_hybrid_through_parallelism_config() -> None:
    text = accelerate("FSDP") + (
        "fsdp_config:\n  fsdp_version: 2\nparallelism_config:\n"
        "  parallelism_config_dp_replicate_size: 2\n  parallelism_config_dp_shard_size: 4\n"
    )
    config = read_config(text)
    assert config.zero_stage is None
    (unread,) = config.unread
    assert unread.key == "parallelism_config.parallelism_config_dp_replicate_size"
    assert "replicates them 2 times (hybrid sharding)" in unread.reason
    assert config.derived().data_parallel == 8


def test_fsdp_config_ignored_without_fsdp() -> None:
    text = accelerate("MULTI_GPU") + "fsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n"
    config = read_config(text)
    assert config.zero_stage is None
    assert config.unread == (
        Unread(
            "fsdp_config.fsdp_sharding_strategy",
            '"FULL_SHARD"',
            "ignored: distributed_type is MULTI_GPU, not FSDP",
        ),
    )


def test_fsdp_setup_is_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = accelerate("FSDP") + "fsdp_config:\n  fsdp_offload_params: true\n"
    config = read_config(text)
    d = config.derived()
    assert (config.zero_stage, config.offload, d.gpus) == (ZeroStage.WEIGHTS, Offload.ALL, 8)
    data = check(tmp_path, capsys, text)
    assert data["values"]["zero_stage"] == 3 and data["values"]["offload"] == "all"
    assert data["derived"]["names"] == ["zero_stage"]


# --------------------------------------------------------------------------- axolotl FSDP

AXOLOTL = "base_model: m\nmicro_batch_size: 2\ngradient_accumulation_steps: 4\n"


def axolotl(extra: str) -> ImportedConfig:
    return read_config(AXOLOTL + extra, "axolotl.yml")


def test_axolotl_fsdp_config_defaults_to_full_shard() -> None:
    config = axolotl("fsdp_config:\n  fsdp_version: 2\n")
    assert config.zero_stage is ZeroStage.WEIGHTS and config.offload is None
    assert config.unread == () and config.unknown_keys == ()
    d = config.derived(8)
    index = d.derived.index("zero_stage")
    assert "axolotl runs FSDP2" in d.notes[index]
    setup, _ = config.setup(8)
    assert setup is not None and setup.zero_stage is ZeroStage.WEIGHTS


@pytest.mark.parametrize(
    ("settings", "stage", "offload"),
    [
        ("reshard_after_forward: false", ZeroStage.GRADIENTS, None),
        ("reshard_after_forward: true\noffload_params: true", ZeroStage.WEIGHTS, Offload.ALL),
        ('reshard_after_forward: "no"', ZeroStage.GRADIENTS, None),  # pydantic's bool
        ("offload_params: false", ZeroStage.WEIGHTS, Offload.NONE),
    ],
)
def test_axolotl_fsdp_settings(settings: str, stage: ZeroStage, offload: Offload | None) -> None:
    body = "".join(f"  {line}\n" for line in settings.splitlines())
    config = axolotl("fsdp_config:\n" + body)
    assert (config.zero_stage, config.offload) == (stage, offload)
    assert config.unread == ()


def test_axolotl_fsdp_prefix_is_stripped_with_a_warning() -> None:
    config = axolotl("fsdp_config:\n  fsdp_offload_params: true\n  fsdp_version: 2\n")
    assert config.offload is Offload.ALL
    assert config.key_of("offload") == "fsdp_config.fsdp_offload_params"
    assert config.derived(8).warnings == (
        "axolotl warns that the fsdp_ prefix of fsdp_config keys is deprecated (it reads "
        "fsdp_offload_params as offload_params).",
    )


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ("fsdp_sharding_strategy: FULL_SHARD", "fsdp_config.fsdp_sharding_strategy"),
        ("sharding_strategy: FULL_SHARD", "fsdp_config.sharding_strategy"),
        ("forward_prefetch: false", "fsdp_config.forward_prefetch"),
        ("fsdp_version: 1", "fsdp_config.fsdp_version"),
        ("version: 1", "fsdp_config.version"),
        ("offload_params: sometimes", "fsdp_config.offload_params"),
        ("reshard_after_forward: FULL_SHARD", "fsdp_config.reshard_after_forward"),
    ],
)
def test_axolotl_refuses_fsdp1_settings(
    settings: str, key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = AXOLOTL + "fsdp_config:\n  " + settings + "\n"
    config = read_config(text, "axolotl.yml")
    assert [u.key for u in refused(config)] == [key]
    data = check(tmp_path, capsys, text, "--world-size", "8", name="a.yml", code=1)
    assert data["problems"][0].startswith(key)


def test_axolotl_fsdp1_only_settings_it_drops() -> None:
    config = axolotl("fsdp_config:\n  use_orig_params: true\n  limit_all_gathers: true\n")
    assert config.zero_stage is ZeroStage.WEIGHTS and refused(config) == []
    assert config.derived(8).warnings == (
        "axolotl warns that fsdp_config.use_orig_params is an FSDP1-only setting and drops "
        "it (it runs FSDP2).",
        "axolotl warns that fsdp_config.limit_all_gathers is an FSDP1-only setting and drops "
        "it (it runs FSDP2).",
    )


def test_axolotl_refuses_the_fsdp_list_and_other_versions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = AXOLOTL + "fsdp:\n  - full_shard\n  - auto_wrap\n"
    data = check(tmp_path, capsys, text, "--world-size", "8", name="a.yml", code=1)
    assert data["problems"][0] == (
        "fsdp = a list of 2 item(s): axolotl refuses the top-level fsdp list (FSDP1 was "
        "removed): use fsdp_config"
    )
    config = axolotl("fsdp_version: 1\nfsdp_config:\n  offload_params: true\n")
    assert [u.key for u in refused(config)] == ["fsdp_version"]
    # an empty fsdp (the old examples' "fsdp:") is not set
    assert refused(axolotl("fsdp:\nfsdp_config:\n")) == []


def test_axolotl_refuses_deepspeed_with_fsdp(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ds.json").write_text('{"zero_optimization": {"stage": 2}}', "utf-8")
    text = AXOLOTL + "deepspeed: ds.json\nfsdp_config:\n  offload_params: true\n"
    data = check(tmp_path, capsys, text, "--world-size", "8", name="a.yml", code=1)
    assert data["problems"][0] == (
        "fsdp_config = a mapping of 1 key(s): axolotl refuses deepspeed together with "
        "fsdp_config: deepspeed and fsdp cannot be used together"
    )
    assert data["values"]["zero_stage"] == 2  # the DeepSpeed JSON is still read


def test_axolotl_hsdp_is_not_modelled() -> None:
    config = axolotl("dp_shard_size: 4\ndp_replicate_size: 2\nfsdp_config:\n  fsdp_version: 2\n")
    assert config.zero_stage is None and "ZeRO stage" in config.missing(8)
    (unread,) = config.unread
    assert unread.key == "dp_replicate_size" and not unread.refused
    assert config.derived(8).data_parallel == 8


def test_axolotl_unknown_fsdp_config_key() -> None:
    config = axolotl("fsdp_config:\n  offload_param: true\n")
    assert config.unknown_keys == (
        UnknownKey(
            "fsdp_config.offload_param",
            "offload_params",
            False,
            "axolotl ignores it: FSDPConfig has no such setting (no warning)",
        ),
    )
    assert config.offload is None


# --------------------------------------------------------------------------- axolotl keys

IGNORES = "axolotl ignores it: its config schema drops keys it does not know (no warning)"


def test_axolotl_misspelled_keys_are_named_with_the_key_meant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = AXOLOTL + "micro_batch_sizee: 4\ngradient_acumulation_steps: 8\n"
    config = read_config(text, "axolotl.yml")
    assert config.unknown_keys == (
        UnknownKey("micro_batch_sizee", "micro_batch_size", False, IGNORES),
        UnknownKey("gradient_acumulation_steps", "gradient_accumulation_steps", False, IGNORES),
    )
    # ignored: the batch is the one of the keys axolotl knows, and it runs (exit 0)
    data = check(tmp_path, capsys, text, "--world-size", "2", name="a.yml")
    assert data["effective_batch"] == 2 * 4 * 2
    assert data["unknown_keys"][0] == {
        "key": "micro_batch_sizee",
        "suggestion": "micro_batch_size",
        "refused": False,
        "reason": IGNORES,
    }
    main(["check", str(tmp_path / "a.yml"), "--world-size", "2"])
    assert (
        f"  micro_batch_sizee: {IGNORES} (did you mean micro_batch_size?)\n"
        in capsys.readouterr().out
    )


def test_axolotl_misspelled_batch_key_leaves_it_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the misspelled steps key is dropped: only micro_batch_size is set, and axolotl's
    # check_batch_size_fields refuses that
    text = "base_model: m\nmicro_batch_size: 2\ngradient_acumulation_steps: 4\n"
    data = check(tmp_path, capsys, text, "--world-size", "2", name="a.yml", code=1)
    assert data["problems"][0].startswith("axolotl refuses it: at least two of")
    assert data["unknown_keys"][0]["suggestion"] == "gradient_accumulation_steps"


def test_axolotl_plugin_keys() -> None:
    unlisted = axolotl("liger_rope: true\n")
    assert unlisted.unknown_keys == (
        UnknownKey(
            "liger_rope",
            None,
            False,
            "axolotl ignores it: only the LigerPlugin plugin reads it, and plugins does not "
            "list it",
        ),
    )
    listed = axolotl("plugins:\n  - axolotl.integrations.liger.LigerPlugin\nliger_rope: true\n")
    assert listed.unknown_keys == ()
    # the built-in plugins' keys are always known
    assert axolotl("expert_parallel_size: 2\n").unknown_keys == ()
    # a plugin axolotl does not ship may read keys of its own
    other = axolotl("plugins:\n  - my_pkg.plugin:MyPlugin\nmy_setting: 3\n")
    (unknown,) = other.unknown_keys
    assert unknown.key == "my_setting" and not unknown.refused
    assert unknown.reason == (
        "not an axolotl key: axolotl ignores it unless a plugin it does not ship "
        "(MyPlugin) reads it"
    )


def test_axolotl_known_keys_and_empty_unknown_ones() -> None:
    text = (
        "model_type: LlamaForCausalLM\ntype_of_model: x\nlearning_rate: 0.0002\n"
        "num_epochs: 1\ndebug:\ngptq_groupsize:\n"
    )
    # aliases and field names are known; a key left empty sets nothing: not named
    assert axolotl(text).unknown_keys == ()
    assert {"micro_batch_size", "model_type", "type_of_model", "fsdp_config"} <= AXOLOTL_KEYS
    assert "liger_rope" not in AXOLOTL_KEYS and "liger_rope" in AXOLOTL_PLUGIN_KEYS["LigerPlugin"]


def test_axolotl_corpus_has_no_false_unknown_keys() -> None:
    # the published examples: the keys axolotl 0.21.0 no longer has (moe_kernels,
    # flash_attn_fuse_qkv) are the only ones named, and none is refused
    named = {}
    for path in sorted(CORPUS.glob("axolotl__*.yml")):
        config = read_config(path)
        assert all(not u.refused for u in config.unknown_keys)
        named[path.name] = [u.key for u in config.unknown_keys]
    assert named == {
        "axolotl__examples-code-llama-7b-lora.yml": [],
        "axolotl__examples-deepseek-v3-deepseek-v3-1b-moe.yml": ["moe_kernels"],
        "axolotl__examples-falcon-config-7b.yml": [],
        "axolotl__examples-gemma3-gemma-3-1b-qlora.yml": [],
        "axolotl__examples-llama-2-fft_optimized.yml": ["flash_attn_fuse_qkv"],
    }


@pytest.mark.parametrize(
    ("line", "checkpointing", "refused", "derived"),
    [
        ("gradient_checkpointing: true\n", True, False, False),
        ("gradient_checkpointing: false\n", False, False, False),
        ('gradient_checkpointing: "yes"\n', True, False, False),  # pydantic's lax bool
        ("gradient_checkpointing: offload\n", True, False, False),  # noted, not modelled
        ("gradient_checkpointing: unsloth\n", None, True, False),  # not in 0.21.0's Literal
        ("", False, False, True),  # axolotl's default
    ],
)
def test_axolotl_gradient_checkpointing(
    line: str, checkpointing: bool | None, refused: bool, derived: bool
) -> None:
    config = read_config(
        "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 2\n"
        "gradient_accumulation_steps: 4\nbf16: true\n" + line
    )
    assert config.checkpointing is checkpointing
    assert any(u.refused for u in config.unread) is refused
    assert ("checkpointing" in config.derived(1).derived) is derived
    if "offload" in line:
        assert [u.key for u in config.unread] == ["gradient_checkpointing"]


def test_axolotl_context_parallel_under_deepspeed_is_ulysses() -> None:
    # axolotl 0.21.0 _get_parallel_config_kwargs(is_deepspeed=True): cp becomes
    # DeepSpeed's sequence-parallel axis and the other GPUs replicate
    text = (
        "base_model: m\nmicro_batch_size: 1\ngradient_accumulation_steps: 4\n"
        "deepspeed: zero3.json\ncontext_parallel_size: 2\n"
    )
    d = read_config(text).derived(8)
    assert (d.data_parallel, dict(d.parallel)) == (4, {"context": 2, "replicate": 4})
    assert d.problem is None
    refused = read_config(text + "dp_replicate_size: 2\n").derived(8)
    assert refused.problem is not None
    assert "must equal GPUs / context_parallel_size = 4 under DeepSpeed" in refused.problem
    # without DeepSpeed the same sizes shard the rest with FSDP's dp_shard
    plain = read_config(text.replace("deepspeed: zero3.json\n", "")).derived(8)
    assert (plain.data_parallel, dict(plain.parallel)) == (4, {"context": 2, "shard": 4})


def test_accelerate_process_config_rules() -> None:
    # accelerate 1.16 config_args.py process_config(): an old fp16 key is the mixed
    # precision, and a file without distributed_type is refused
    old = read_config(
        "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nfp16: true\n"
    )
    assert old.precision is not None and old.precision.value == "fp16"
    assert old.key_of("precision") == "fp16" and old.unknown_keys == ()
    off = read_config("compute_environment: LOCAL_MACHINE\ndistributed_type: NO\nfp16: false\n")
    assert off.precision is not None and off.precision.value == "fp32"
    missing = read_config("compute_environment: LOCAL_MACHINE\nnum_processes: 2\n")
    assert [(u.key, u.refused) for u in missing.unread] == [("distributed_type", True)]
    bad = read_config("compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_TPUS\n")
    assert [(u.key, u.refused) for u in bad.unread] == [("distributed_type", True)]
