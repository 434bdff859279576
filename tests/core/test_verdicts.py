"""DeepSpeed's and Megatron's verdicts on a recipe's batch with one pair, and the advice
the CLI and the window give with them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gradacc_desktop.core.batch import deepspeed_check
from gradacc_desktop.core.frameworks import batch_verdicts, megatron_check


def test_both_accept_an_exact_pair_and_no_advice_is_given() -> None:
    v = batch_verdicts(512, 4, 16, 8)
    assert v.both_accept and v.megatron_agrees
    assert v.deepspeed_advice() is None and v.megatron_advice() is None


def test_a_pair_past_the_target_gets_the_batch_it_reaches() -> None:
    v = batch_verdicts(100, 3, 17, 2)  # 3 x 17 x 2 = 102
    assert not v.deepspeed.ok and not v.megatron.ok and v.effective_batch == 102
    assert str(v.deepspeed_advice()) == (
        "Give it train_batch_size 102 (the exported configuration does), or choose a "
        "micro-batch that reaches 100 exactly."
    )
    assert str(v.megatron_advice()).startswith("Give it --global-batch-size 102 ")


def test_megatron_deriving_other_steps_is_told_the_pair_s_batch() -> None:
    v = batch_verdicts(4096, 4, 3, 1024)  # Megatron starts and derives 1 step, not 3
    assert v.megatron.ok and v.megatron.derived_steps == 1 and not v.megatron_agrees
    assert "--global-batch-size 12288" in str(v.megatron_advice())


@given(
    target=st.integers(1, 10**6),
    b=st.integers(1, 512),
    a=st.integers(1, 512),
    g=st.integers(1, 4096),
)
def test_advice_follows_the_frameworks_own_rules(target: int, b: int, a: int, g: int) -> None:
    v = batch_verdicts(target, b, a, g)
    assert v.deepspeed == deepspeed_check(target, b, a, g)
    assert v.megatron == megatron_check(target, b, g)
    # DeepSpeed accepts exactly the pairs whose product is the target; so does Megatron
    # when it also derives these steps — then neither gets advice
    exact = b * a * g == target
    assert v.deepspeed.ok == exact and v.megatron_agrees == exact
    assert (v.deepspeed_advice() is None) == exact and (v.megatron_advice() is None) == exact
    # the advised batch is what the pair reaches, which both frameworks would start with
    if not exact:
        assert batch_verdicts(v.effective_batch, b, a, g).both_accept
