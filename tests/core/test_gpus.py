"""The GPU catalogue, format 3: architectures and dense FP8 peaks."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal as D
from pathlib import Path
from typing import Any

import pytest

from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.time.gpus import (
    CUSTOM_ID,
    FORMAT_VERSION,
    Generation,
    GpuTableError,
    Link,
    custom_card,
    custom_performance,
    load_gpu_table,
    parse_gpu_table,
)

PATH = Path(__file__).resolve().parents[2] / "resources" / "data" / "gpus.json"
TABLE = load_gpu_table()

#: the generations without FP8 Tensor Cores
NO_FP8 = {Generation.VOLTA, Generation.TURING, Generation.AMPERE}


def _raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PATH.read_text(encoding="utf-8"))
    return data


def _parse(data: dict[str, Any]):  # type: ignore[no-untyped-def]
    return parse_gpu_table(json.dumps(data).encode())


def _perf(card_id: str):  # type: ignore[no-untyped-def]
    perf = TABLE.by_id(card_id).performance
    assert perf is not None
    return perf


def test_the_bundled_file_is_format_3() -> None:
    assert FORMAT_VERSION == 3
    assert _raw()["version"] == 3
    assert _parse(_raw()) == TABLE


def test_a_format_2_file_is_refused() -> None:
    """The previous format: no architecture, no FP8, version 2."""
    data = _raw()
    data["version"] = 2
    for card in data["cards"]:
        del card["performance"]["architecture"], card["performance"]["fp8_tflops"]
    with pytest.raises(GpuTableError, match="unsupported version 2"):
        _parse(data)
    # nor does a format-3 body pass under version 2
    data = _raw()
    data["version"] = 2
    with pytest.raises(GpuTableError, match="unsupported version"):
        _parse(data)


def _set(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        data["cards"][0]["performance"][key] = value

    return mutate


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        del data["cards"][0]["performance"][key]

    return mutate


@pytest.mark.parametrize(
    "mutate",
    [
        _set("architecture", "pascal"),
        _set("architecture", "Hopper"),
        _set("architecture", None),
        _set("architecture", ["hopper"]),
        _drop("architecture"),
        _set("fp8_tflops", "-1"),
        _set("fp8_tflops", "0"),
        _set("fp8_tflops", 1979),
        _set("fp8_tflops", "1e3"),
        _set("fp8_tflops", "999999"),
        _drop("fp8_tflops"),
    ],
    ids=[
        "unknown architecture",
        "architecture in capitals",
        "null architecture",
        "architecture not a string",
        "no architecture",
        "negative fp8",
        "zero fp8",
        "fp8 as a number",
        "fp8 in exponent form",
        "implausible fp8",
        "no fp8",
    ],
)
def test_bad_architecture_or_fp8_is_refused(mutate: Callable[[dict[str, Any]], None]) -> None:
    data = _raw()
    mutate(data)
    with pytest.raises(GpuTableError):
        _parse(data)


def test_every_card_has_a_generation() -> None:
    expected = {
        "a100-40gb": Generation.AMPERE,
        "a100-pcie-80gb": Generation.AMPERE,
        "h100-80gb": Generation.HOPPER,
        "h800-80gb": Generation.HOPPER,
        "b200-180gb": Generation.BLACKWELL,
        "l4-24gb": Generation.ADA,
        "t4-16gb": Generation.TURING,
        "v100-32gb": Generation.VOLTA,
        "rtx-4090-24gb": Generation.ADA,
        "rtx-5090-32gb": Generation.BLACKWELL,
        "mi300x-192gb": Generation.CDNA3,
    }
    for card in TABLE.cards:
        assert card.performance is not None
        assert isinstance(card.performance.generation, Generation), card.id
    for card_id, generation in expected.items():
        assert _perf(card_id).generation is generation, card_id


def test_fp8_only_from_ada_and_hopper_on() -> None:
    for card in TABLE.cards:
        perf = card.performance
        assert perf is not None
        fp8 = perf.peak_tflops(Precision.BF16, fp8=True)
        assert fp8 == perf.fp8_tflops
        if perf.generation in NO_FP8:
            assert fp8 is None, card.id
        else:
            # dense FP8 doubles the dense 16-bit rate (a "with sparsity" figure would
            # make it 4x), give or take the datasheets' clocks and rounding (L40S: 733
            # FP8 and 362.05 BF16 dense; L4: 485 and 242 with sparsity)
            assert fp8 is not None, card.id
            assert D("1.95") <= fp8 / perf.fp16_tflops <= D("2.05"), card.id
    assert _perf("a100-80gb").peak_tflops(Precision.BF16, fp8=True) is None
    assert _perf("a100-pcie-80gb").peak_tflops(Precision.BF16, fp8=True) is None
    assert _perf("v100-16gb").peak_tflops(Precision.BF16, fp8=True) is None
    assert _perf("t4-16gb").peak_tflops(Precision.BF16, fp8=True) is None


def test_dense_fp8_peaks() -> None:
    expected = {
        "h100-80gb": "1979",
        "h100-pcie-80gb": "1513",
        "h200-141gb": "1979",
        "h800-80gb": "1979",
        "b200-180gb": "4500",
        "b200-192gb": "4500",
        "l4-24gb": "242.5",
        "l40s-48gb": "733",
        "rtx-4090-24gb": "330.3",
        "rtx-5090-32gb": "419",
        "mi300x-192gb": "2614.9",
    }
    for card_id, tflops in expected.items():
        assert _perf(card_id).peak_tflops(Precision.BF16, fp8=True) == D(tflops), card_id


def test_the_other_precisions_are_unchanged() -> None:
    h100 = _perf("h100-80gb")
    assert h100.peak_tflops(Precision.BF16) == D("989.5")
    assert h100.peak_tflops(Precision.FP16) == D("989.5")
    assert h100.peak_tflops(Precision.FP32) == D(67)
    assert _perf("v100-32gb").peak_tflops(Precision.BF16) is None


def test_names_say_the_form_factor_and_ids_stay() -> None:
    names = {card.id: card.name for card in TABLE.cards}
    assert names["a100-40gb"] == "NVIDIA A100 SXM4 40GB"
    assert names["a100-80gb"] == "NVIDIA A100 SXM4 80GB"
    assert names["a100-pcie-80gb"] == "NVIDIA A100 PCIe 80GB"
    assert names["v100-16gb"] == "NVIDIA V100 SXM2 16GB"
    assert names["v100-32gb"] == "NVIDIA V100 SXM2 32GB"
    assert names["h800-80gb"] == "NVIDIA H800 SXM5 80GB"
    assert len(set(names.values())) == len(names)


def test_the_new_cards() -> None:
    a100_pcie = TABLE.by_id("a100-pcie-80gb")
    perf = a100_pcie.performance
    assert perf is not None and a100_pcie.usable_gb == D(80)
    assert (perf.bf16_tflops, perf.fp32_tflops) == (D(312), D("19.5"))
    assert perf.memory_bandwidth_gbps == D(1935)
    assert (perf.link, perf.link_gbps) == (Link.PCIE, D(32))
    assert "NVLink bridge" in perf.source

    h800, h100 = _perf("h800-80gb"), _perf("h100-80gb")
    for precision in Precision:
        assert h800.peak_tflops(precision) == h100.peak_tflops(precision), precision
    assert h800.memory_bandwidth_gbps == D(3350)
    assert (h800.link, h800.link_gbps, h800.inter_node_gbps) == (Link.NVLINK, D(200), D(50))
    assert TABLE.by_id("h800-80gb").usable_gb == D(80)


def test_mi300x_link_is_one_infinity_fabric_link_per_direction() -> None:
    perf = _perf("mi300x-192gb")
    assert (perf.link, perf.link_gbps) == (Link.INFINITY_FABRIC, D(64))
    assert "one Infinity Fabric link" in perf.source


def test_custom_card_fp8_is_its_typed_peak() -> None:
    perf = custom_performance(D(100), D(2000), D(300), D(25))
    assert perf.generation is Generation.AMPERE
    for precision in Precision:
        assert perf.peak_tflops(precision) == D(100), precision
    assert custom_card(D(40), perf).performance == perf
    hopper = custom_performance(D(500), D(3000), D(450), D(50), generation=Generation.HOPPER)
    assert hopper.generation is Generation.HOPPER
    assert hopper.peak_tflops(Precision.BF16, fp8=True) == D(500)


def test_gpu_table_loads_and_is_sane() -> None:
    table = load_gpu_table()
    assert "decimal GB" in table.assumption
    ids = {card.id for card in table.cards}
    for expected in ("a100-80gb", "h100-80gb", "h200-141gb", "t4-16gb", "mi300x-192gb"):
        assert expected in ids
    for card in table.cards:
        assert D(0) < card.usable_gb <= card.vendor_gb
        assert card.source
    assert table.by_id("l4-24gb").usable_gb == D(24)
    for card in table.cards:
        perf = card.performance
        assert perf is not None and perf.source
        assert perf.fp32_tflops < perf.fp16_tflops  # tensor cores beat CUDA cores
        assert perf.inter_node_gbps <= perf.link_gbps
        assert D(0) < perf.efficiency <= D(1)
    # no bf16 before Ampere; dense, not "with sparsity", figures
    assert table.by_id("v100-32gb").performance.bf16_tflops is None  # type: ignore[union-attr]
    assert table.by_id("t4-16gb").performance.bf16_tflops is None  # type: ignore[union-attr]
    assert table.by_id("h100-80gb").performance.bf16_tflops == D("989.5")  # type: ignore[union-attr]
    assert table.by_id("a100-80gb").performance.bf16_tflops == D(312)  # type: ignore[union-attr]
    assert custom_card(D("12.5")).id == CUSTOM_ID and CUSTOM_ID not in ids


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(version=1),
        lambda d: d.update(version=2),
        lambda d: d.update(version=4),
        lambda d: d["cards"][0].pop("performance"),
        lambda d: d["cards"][0]["performance"].update(link="wifi"),
        lambda d: d["cards"][0]["performance"].update(efficiency="1.5"),
        lambda d: d["cards"][0]["performance"].update(fp16_tflops=None),
        lambda d: d["cards"][0]["performance"].update(bf16_tflops="0"),
        lambda d: d["cards"][0]["performance"].update(memory_bandwidth_gbps="999999"),
        lambda d: d["cards"][0]["performance"].update(extra="1"),
        lambda d: d.update(format="x"),
        lambda d: d["cards"][0].update(usable_gb=1),
        lambda d: d["cards"][0].update(usable_gb="999"),
        lambda d: d["cards"][0].update(id="custom"),
        lambda d: d["cards"][0].pop("source"),
        lambda d: d["cards"].append(dict(d["cards"][0])),
        lambda d: d.update(cards=[]),
    ],
)
def test_gpu_table_rejects_bad_data(mutate) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(PATH.read_text(encoding="utf-8"))
    mutate(data)
    with pytest.raises(GpuTableError):
        parse_gpu_table(json.dumps(data).encode())


def test_gpu_table_rejects_garbage() -> None:
    with pytest.raises(GpuTableError):
        parse_gpu_table(b"\xff")
    with pytest.raises(GpuTableError):
        load_gpu_table(Path("/nonexistent/gpus.json"))
