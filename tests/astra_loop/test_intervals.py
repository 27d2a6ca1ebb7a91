"""Bootstrap intervals and paired differences on known data."""

from __future__ import annotations

import pytest

from astra_loop.intervals import bootstrap_interval, paired_interval


def test_a_constant_has_a_point_interval_and_environments_weigh_alike():
    i = bootstrap_interval({"a": [1.0, 1.0, 1.0, 1.0], "b": [0.0]})
    assert i.mean == 0.5, "the mean of environment means, not of episodes"
    assert (i.envs, i.episodes) == (2, 5)
    same = bootstrap_interval({"a": [0.3] * 4, "b": [0.3] * 2})
    assert (same.mean, same.low, same.high) == (pytest.approx(0.3), pytest.approx(0.3), pytest.approx(0.3))


def test_the_interval_covers_the_mean_and_shrinks_with_more_environments():
    few = bootstrap_interval({f"e{i}": [float(i % 2)] * 4 for i in range(4)})
    many = bootstrap_interval({f"e{i}": [float(i % 2)] * 4 for i in range(64)})
    assert few.low <= few.mean <= few.high and many.low <= many.mean <= many.high
    assert many.high - many.low < few.high - few.low
    assert 0.0 <= few.low < 0.5 < few.high <= 1.0
    assert bootstrap_interval({"a": [0.0, 1.0]}, seed=3) == bootstrap_interval({"a": [0.0, 1.0]}, seed=3), "deterministic for a seed"


def test_paired_difference_uses_only_shared_episodes_and_says_when_it_excludes_zero():
    before = {(e, s): 0.2 for e in "abcdef" for s in (1, 2)}
    after = {(e, s): 0.5 + 0.05 * s for e in "abcdef" for s in (1, 2)} | {("z", 1): 9.0}
    d = paired_interval(before, after)
    assert d.mean == pytest.approx(0.375) and d.excludes_zero and d.episodes == 12
    noisy = paired_interval({(e, 1): 0.5 for e in "abcd"}, {("a", 1): 1.0, ("b", 1): 0.0, ("c", 1): 0.9, ("d", 1): 0.1})
    assert noisy.mean == pytest.approx(0.0) and not noisy.excludes_zero
    with pytest.raises(ValueError, match="share no"):
        paired_interval({("a", 1): 0.0}, {("b", 1): 0.0})
