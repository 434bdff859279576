"""Model-state memory equals DeepSpeed's own estimators on a grid.

``estimate_zero2_model_states_mem_needs`` and ``estimate_zero3_model_states_mem_needs``
evaluate ``int(P * 16 * (1 / nodes) * 1.5)`` and the like in floating point; ours is
exact. Where the two differ, the difference must be DeepSpeed's rounding: the same
expression in exact arithmetic gives our figure, and DeepSpeed's is one byte below.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs as zero3
from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs as zero2

from gradacc_desktop.core.memory.model_states import model_states
from gradacc_desktop.core.memory.setup import Offload
from gradacc_desktop.core.memory.zero import ZeroStage

PARAMS = [1, 7, 124_439_808, 6_738_415_616, 70_553_706_496, 405_000_000_007, 10**13]
LAYOUTS = [(1, 1), (1, 8), (2, 8), (3, 1), (3, 7), (8, 8), (7, 3)]  # (nodes, GPUs per node)
LAYERS = [0, 1, 131_072_000, 1_000_000_007]


def _agrees(ours: int, theirs: int, exact: Fraction) -> bool:
    """Equal, or DeepSpeed's float lost the last byte of an exactly computed figure."""
    return ours == theirs or (ours == int(exact) and theirs == ours - 1)


@pytest.mark.parametrize("nodes,per_node", LAYOUTS)
@pytest.mark.parametrize("params", PARAMS)
def test_zero2_equals_deepspeed(params: int, nodes: int, per_node: int) -> None:
    gpus = nodes * per_node
    for offload in (False, True):
        cpu, gpu = zero2(params, per_node, nodes, cpu_offload=offload)
        ours = model_states(
            params, gpus, ZeroStage(2), Offload.OPTIMIZER if offload else Offload.NONE, nodes=nodes
        )
        if offload:
            exact_cpu = Fraction(params * max(4 * gpus, 16) * 3, 2)
        else:
            exact_cpu = Fraction(params * 4 * per_node * 3, 2)
        assert ours.gpu_bytes == gpu
        assert _agrees(ours.cpu_bytes, cpu, exact_cpu)


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("nodes,per_node", LAYOUTS)
@pytest.mark.parametrize("params", PARAMS)
def test_zero3_equals_deepspeed(params: int, nodes: int, per_node: int, layer: int) -> None:
    gpus = nodes * per_node
    cases = [
        (Offload.NONE, False, False, Fraction(layer * 4 * per_node * 3, 2)),
        (Offload.OPTIMIZER, True, False, Fraction(params * 16 * 3, 2 * nodes)),
        (Offload.ALL, True, True, Fraction(params * 18 * 3, 2 * nodes)),
    ]
    for offload, cpu_offload, offload_params, exact_cpu in cases:
        cpu, gpu, largest = zero3(
            params,
            layer,
            per_node,
            nodes,
            cpu_offload=cpu_offload,
            cpu_offload_params=offload_params,
        )
        ours = model_states(params, gpus, ZeroStage(3), offload, nodes=nodes, largest_layer=layer)
        assert ours.gpu_bytes == gpu
        assert _agrees(ours.cpu_bytes, cpu, exact_cpu)
        assert largest == 4 * layer


def test_the_float_rounding_case_is_real() -> None:
    """P = 7 on 3 nodes: DeepSpeed says 55 bytes for 7 * 16 / 3 * 1.5 = 56 exactly."""
    cpu, _gpu, _ = zero3(7, 0, 1, 3, cpu_offload=True, cpu_offload_params=False)
    assert cpu == 55
    assert model_states(7, 3, ZeroStage(3), Offload.OPTIMIZER, nodes=3).cpu_bytes == 56
