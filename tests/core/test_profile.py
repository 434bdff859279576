"""The measured speed profile: strict parsing, every refusal, the interpolation rule."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.recompute import MEASURED, Recompute
from gradacc_desktop.core.time.profile import (
    ProfileError,
    SpeedProfile,
    load_profile,
    parse_profile,
    profile_to_json,
    seconds_text,
)


def raw(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "format": "gradacc-speed-profile",
        "version": 1,
        "device": "cuda:0 (NVIDIA A100-SXM4-80GB)",
        "dtype": "bfloat16",
        "model": "LlamaForCausalLM (Llama-2-7b-hf)",
        "params": 6_738_415_616,
        "seq_len": 4096,
        "recompute": "none",
        "attention": "sdpa",
        "points": [
            {"micro_batch": 1, "seconds": "0.5", "repeats": 3},
            {"micro_batch": 2, "seconds": "0.6", "repeats": 3},
            {"micro_batch": 4, "seconds": "1.0", "repeats": 3},
            {"micro_batch": 8, "seconds": "1.8", "repeats": 5},
        ],
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not _DROP}


_DROP = object()


def parse(data: dict[str, Any]) -> SpeedProfile:
    return parse_profile(json.dumps(data).encode())


def point(b: Any, seconds: Any = "1", repeats: Any = 1) -> dict[str, Any]:
    return {"micro_batch": b, "seconds": seconds, "repeats": repeats}


PROFILE = parse(raw())


# --- parsing ---------------------------------------------------------------------------


def test_parses_every_field() -> None:
    p = PROFILE
    assert p.device == "cuda:0 (NVIDIA A100-SXM4-80GB)"
    assert p.dtype is Precision.BF16
    assert p.model == "LlamaForCausalLM (Llama-2-7b-hf)"
    assert (p.params, p.seq_len, p.target_seq_len) == (6_738_415_616, 4096, None)
    assert p.recompute is Recompute.NONE and p.attention == "sdpa"
    assert p.points == (
        (1, Fraction(1, 2)),
        (2, Fraction(3, 5)),
        (4, Fraction(1)),
        (8, Fraction(9, 5)),
    )
    assert all(type(s) is Fraction for _, s in p.points)
    assert p.repeats == (3, 3, 3, 5)
    assert (p.smallest, p.largest) == (1, 8)


@pytest.mark.parametrize(
    ("name", "precision"),
    [("bfloat16", Precision.BF16), ("float16", Precision.FP16),
     ("float32", Precision.FP32)],
)  # fmt: skip
def test_dtypes(name: str, precision: Precision) -> None:
    assert parse(raw(dtype=name)).dtype is precision


def test_full_recompute_eager_cpu_and_target_length() -> None:
    p = parse(raw(recompute="full", attention="eager", device="cpu", target_seq_len=128))
    assert p.recompute is Recompute.FULL and p.attention == "eager"
    assert p.device == "cpu" and p.target_seq_len == 128


def test_points_in_any_order_come_out_ascending() -> None:
    p = parse(raw(points=[point(4, "2", 2), point(1, "1", 7), point(2, "1.5", 3)]))
    assert p.points == ((1, 1), (2, Fraction(3, 2)), (4, 2))
    assert p.repeats == (7, 3, 2)


def test_seconds_are_exact_decimals() -> None:
    p = parse(raw(points=[point(1, "0.000000000001"), point(2, "1000000"), point(3, "0.1")]))
    assert p.points == ((1, Fraction(1, 10**12)), (2, 10**6), (3, Fraction(1, 10)))


def test_load_profile_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(raw()), encoding="utf-8")
    assert load_profile(path) == PROFILE
    assert load_profile(str(path)) == PROFILE


def test_load_profile_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="cannot read"):
        load_profile(tmp_path / "nope.json")


# --- refusals --------------------------------------------------------------------------

REFUSED: list[tuple[bytes | dict[str, Any], str]] = [
    (b"\xff\xfe", "not UTF-8"),
    (b"{", "not valid JSON"),
    (b"[]", "not a speed profile"),
    (b'{"format": "gradacc-gpus", "version": 1}', "not a speed profile"),
    (raw(format=_DROP), "not a speed profile"),
    (raw(version=2), "unsupported version 2"),
    (raw(version="1"), "unsupported version"),
    (raw(version=True), "unsupported version"),
    (raw(version=1.0), "unsupported version"),
    (raw(version=_DROP), "unsupported version None"),
    (raw(extra=1), "unknown key.*extra"),
    (raw(device=_DROP), "missing key.*device"),
    (raw(points=_DROP, seq_len=_DROP), "missing key.*points, seq_len"),
    (raw(device=""), "“device” must be a non-empty string"),
    (raw(device=3), "“device” must be a non-empty string"),
    (raw(model="a\nb"), "“model” must be one line"),
    (raw(model="x" * 201), "“model” must be one line"),
    (raw(dtype="bf16"), "dtype must be bfloat16, float16 or float32"),
    (raw(dtype=["bfloat16"]), "dtype must be"),
    (raw(recompute="selective"), "recompute must be none or full"),
    (raw(recompute=None), "recompute must be"),
    (raw(attention="flash"), "attention must be eager or sdpa"),
    (raw(attention={}), "attention must be"),
    (raw(params=0), "“params” must be between 1"),
    (raw(params=1.5), "“params” must be an integer"),
    (raw(params="7"), "“params” must be an integer"),
    (raw(params=False), "“params” must be an integer"),
    (raw(params=10**16), "“params” must be between"),
    (raw(seq_len=-1), "“seq_len” must be between"),
    (raw(target_seq_len=0), "“target_seq_len” must be between"),
    (raw(target_seq_len="8"), "“target_seq_len” must be an integer"),
    (raw(points=[]), "points must be a non-empty list"),
    (raw(points={"1": "1"}), "points must be a non-empty list"),
    (raw(points=[point(1)] * 1001), "at most 1000 points"),
    (raw(points=[1]), "point 1 must be an object"),
    (raw(points=[{"micro_batch": 1, "seconds": "1"}]), "point 1: missing repeats"),
    (raw(points=[dict(point(1), note="x")]), "point 1: unknown key.*note"),
    (raw(points=[point(1), point(2, "1", 1), point(1, "2")]), "micro_batch 1 is measured twice"),
    (raw(points=[point(0)]), "micro_batch” must be between 1"),
    (raw(points=[point(-2)]), "micro_batch” must be between 1"),
    (raw(points=[point(True)]), "micro_batch” must be an integer"),
    (raw(points=[point(2.0)]), "micro_batch” must be an integer"),
    (raw(points=[point(1, "0")]), "seconds must be above 0"),
    (raw(points=[point(1, "0.000")]), "seconds must be above 0"),
    (raw(points=[point(1, "-1")]), "seconds must be a decimal string"),
    (raw(points=[point(1, "1000000.5")]), "seconds must be at most 1000000"),
    (raw(points=[point(1, "9999999")]), "seconds must be at most"),
    (raw(points=[point(1, "10000000")]), "seconds must be a decimal string"),
    (raw(points=[point(1, 0.5)]), "seconds must be a decimal string"),
    (raw(points=[point(1, 1)]), "seconds must be a decimal string"),
    (raw(points=[point(1, "1e-3")]), "seconds must be a decimal string"),
    (raw(points=[point(1, "NaN")]), "seconds must be a decimal string"),
    (raw(points=[point(1, "Infinity")]), "seconds must be a decimal string"),
    (raw(points=[point(1, ".5")]), "seconds must be a decimal string"),
    (raw(points=[point(1, "01")]), "seconds must be a decimal string"),
    (raw(points=[point(1, " 1")]), "seconds must be a decimal string"),
    (raw(points=[point(1, "0.0000000000001")]), "seconds must be a decimal string"),
    (raw(points=[point(1, "1", 0)]), "micro_batch 1: repeats” must be between 1"),
    (raw(points=[point(1, "1", "3")]), "micro_batch 1: repeats” must be an integer"),
    (b'{"format": "gradacc-speed-profile", "format": "gradacc-speed-profile"}', "appears twice"),
    (b'{"format": "gradacc-speed-profile", "version": NaN}', "NaN is not a number"),
    (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
]


@pytest.mark.parametrize(("data", "message"), REFUSED)
def test_refusals(data: bytes | dict[str, Any], message: str) -> None:
    encoded = data if isinstance(data, bytes) else json.dumps(data).encode()
    with pytest.raises(ProfileError, match=message) as info:
        parse_profile(encoded)
    assert "\n" not in str(info.value)


def test_profile_error_is_a_value_error() -> None:
    assert issubclass(ProfileError, ValueError)


def test_the_dataclass_refuses_what_the_parser_refuses() -> None:
    good: dict[str, Any] = {
        "device": "cpu",
        "dtype": Precision.FP32,
        "model": "m",
        "params": 10,
        "seq_len": 8,
        "recompute": Recompute.NONE,
        "attention": "eager",
        "points": ((1, Fraction(1)), (2, Fraction(2))),
        "repeats": (1, 1),
    }
    SpeedProfile(**good)
    for change, message in [
        ({"points": ((2, Fraction(1)), (1, Fraction(2)))}, "ascending"),
        ({"points": ((1, Fraction(1)), (1, Fraction(2)))}, "measured twice"),
        ({"points": ((1, Fraction(1, 3)), (2, Fraction(2)))}, "at most 12 decimals"),
        ({"points": ((1, 0.5), (2, Fraction(2)))}, "must be a Fraction"),
        ({"points": ((1, Fraction(0)), (2, Fraction(2)))}, "above 0"),
        ({"points": ((1, Fraction(10**6 + 1)), (2, Fraction(2)))}, "at most 1000000"),
        ({"points": ()}, "non-empty"),
        ({"points": [(1, Fraction(1)), (2, Fraction(2))]}, "non-empty tuple"),
        ({"points": ((1, Fraction(1), 3), (2, Fraction(2)))}, r"\(micro_batch, seconds\)"),
        ({"repeats": (1,)}, "one count per point"),
        ({"repeats": (1, 0)}, "repeats” must be between"),
        ({"dtype": "bfloat16"}, "bf16, fp16 or fp32"),
        ({"dtype": "fp8"}, "bf16, fp16 or fp32"),
        ({"recompute": "none"}, "none or full"),
        ({"recompute": Recompute.SELECTIVE}, "none or full"),
        ({"attention": "flash"}, "eager or sdpa"),
        ({"params": 0}, "“params”"),
        ({"target_seq_len": 0}, "“target_seq_len”"),
        ({"device": ""}, "“device”"),
    ]:
        with pytest.raises(ProfileError, match=message):
            SpeedProfile(**dict(good, **change))


# --- the interpolation rule ------------------------------------------------------------


def test_exact_at_every_measured_size() -> None:
    for b, seconds in PROFILE.points:
        assert PROFILE.micro_step_seconds(b) == seconds


def test_linear_between_two_measured_sizes() -> None:
    # between (4, 1.0) and (8, 1.8): 0.2 s per sample, exactly
    assert PROFILE.micro_step_seconds(5) == Fraction(6, 5)
    assert PROFILE.micro_step_seconds(6) == Fraction(7, 5)
    assert PROFILE.micro_step_seconds(7) == Fraction(8, 5)
    # between (2, 0.6) and (4, 1.0)
    assert PROFILE.micro_step_seconds(3) == Fraction(4, 5)


def test_below_the_smallest_is_the_smallest_time() -> None:
    p = parse(raw(points=[point(4, "0.8"), point(8, "1.2")]))
    assert [p.micro_step_seconds(b) for b in (1, 2, 3, 4)] == [Fraction(4, 5)] * 4


def test_above_the_largest_is_its_time_per_sample() -> None:
    # (8, 1.8): 0.225 s per sample
    assert PROFILE.micro_step_seconds(9) == Fraction(81, 40)
    assert PROFILE.micro_step_seconds(16) == Fraction(18, 5)
    assert PROFILE.micro_step_seconds(1000) == 225


def test_a_single_point() -> None:
    p = parse(raw(points=[point(4, "2")]))
    assert p.micro_step_seconds(1) == 2
    assert p.micro_step_seconds(4) == 2
    assert p.micro_step_seconds(6) == 3
    assert [p.covers(b) for b in (3, 4, 5)] == [False, True, False]


def test_covers_the_measured_range_ends_included() -> None:
    p = parse(raw(points=[point(2), point(8, "3")]))
    assert [p.covers(b) for b in (1, 2, 5, 8, 9)] == [False, True, True, True, False]


@pytest.mark.parametrize("bad", [0, -1, True, 1.0, "2", None])
def test_micro_batch_must_be_a_positive_integer(bad: Any) -> None:
    with pytest.raises(ValueError, match="micro_batch must be an integer >= 1"):
        PROFILE.micro_step_seconds(bad)
    with pytest.raises(ValueError, match="micro_batch must be an integer >= 1"):
        PROFILE.covers(bad)


_SIZES = st.lists(st.integers(1, 4096), min_size=1, max_size=8, unique=True).map(sorted)
_SECONDS = st.integers(1, 10**15).map(lambda n: Fraction(n, 10**9))


@st.composite
def profiles(draw: st.DrawFn, monotonic: bool = False) -> SpeedProfile:
    sizes = draw(_SIZES)
    seconds = draw(st.lists(_SECONDS, min_size=len(sizes), max_size=len(sizes)))
    if monotonic:
        seconds.sort()
    return SpeedProfile(
        device=draw(st.sampled_from(["cpu", "cuda:0 (NVIDIA H100 80GB HBM3)", "cuda:1 (ä)"])),
        dtype=draw(st.sampled_from(list(Precision))),
        model=draw(st.text(st.characters(blacklist_characters="\r\n\t\x00",
                                         blacklist_categories=("Cs",)), min_size=1,
                           max_size=40).filter(str.strip)),
        params=draw(st.integers(1, 10**15)),
        seq_len=draw(st.integers(1, 10**6)),
        recompute=draw(st.sampled_from(MEASURED)),
        attention=draw(st.sampled_from(["eager", "sdpa"])),
        points=tuple(zip(sizes, seconds, strict=True)),
        repeats=tuple(draw(st.lists(st.integers(1, 100), min_size=len(sizes),
                                    max_size=len(sizes)))),
        target_seq_len=draw(st.none() | st.integers(1, 10**6)),
    )  # fmt: skip


@settings(max_examples=200)
@given(profiles(monotonic=True), st.integers(1, 10_000), st.integers(1, 10_000))
def test_monotonic_in_b_when_the_points_are(p: SpeedProfile, x: int, y: int) -> None:
    low, high = sorted((x, y))
    assert p.micro_step_seconds(low) <= p.micro_step_seconds(high)


@settings(max_examples=200)
@given(profiles(), st.integers(1, 10_000))
def test_interpolation_stays_between_neighbours(p: SpeedProfile, b: int) -> None:
    seconds = p.micro_step_seconds(b)
    assert isinstance(seconds, Fraction) and seconds > 0
    assert p.covers(b) == (p.smallest <= b <= p.largest)
    if b in dict(p.points):
        assert seconds == dict(p.points)[b]
    elif p.covers(b):
        below = max(pt for pt in p.points if pt[0] < b)
        above = min(pt for pt in p.points if pt[0] > b)
        assert min(below[1], above[1]) <= seconds <= max(below[1], above[1])
    elif b < p.smallest:
        assert seconds == p.points[0][1]
    else:
        assert seconds / b == p.points[-1][1] / p.largest


@settings(max_examples=200)
@given(profiles())
def test_round_trip_through_profile_to_json(p: SpeedProfile) -> None:
    text = profile_to_json(p)
    assert text.endswith("\n")
    assert parse_profile(text.encode("utf-8")) == p


def test_written_file_reads_as_documented() -> None:
    root = json.loads(profile_to_json(parse(raw(target_seq_len=64))))
    assert root["format"] == "gradacc-speed-profile" and root["version"] == 1
    assert root["dtype"] == "bfloat16" and root["recompute"] == "none"
    assert root["target_seq_len"] == 64
    assert root["points"][0] == {"micro_batch": 1, "seconds": "0.5", "repeats": 3}
    assert "target_seq_len" not in json.loads(profile_to_json(PROFILE))


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(Fraction(1, 2), "0.5"), (Fraction(2), "2"), (Fraction(1, 10**12), "0.000000000001"),
     (Fraction(10**6), "1000000"), (Fraction(123456789, 1000), "123456.789")],
)  # fmt: skip
def test_seconds_text(seconds: Fraction, text: str) -> None:
    assert seconds_text(seconds) == text


def test_a_label_that_cannot_be_saved_is_refused() -> None:
    # a lone surrogate (an undecodable file name read with surrogateescape)
    with pytest.raises(ProfileError, match="valid Unicode"):
        replace(PROFILE, model="model-\udcff")
