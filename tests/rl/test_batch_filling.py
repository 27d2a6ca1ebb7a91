"""ASTRA's adaptive batch filling."""

from __future__ import annotations

import pytest

from rl.batch_filling import BatchFiller, reward_std


def rounds(*batches):
    it = iter(batches)
    return lambda: next(it, [])


def test_reward_std():
    assert reward_std([1.0, 1.0, 1.0]) == 0.0
    assert reward_std([0.0, 1.0]) == pytest.approx(0.5)
    assert reward_std([0.3]) == 0.0


def test_fills_with_first_valid_groups_and_buffers_surplus():
    filler = BatchFiller(n=2, rewards=lambda g: g[1])
    flat = [("a", [0.0, 0.0]), ("b", [1.0, 1.0])]
    good = [("c", [0.0, 1.0]), ("d", [0.2, 0.8]), ("e", [0.5, 0.0])]
    batch, stats = filler.fill(rounds(flat, good))
    assert [g[0] for g in batch] == ["c", "d"]
    assert (stats.valid, stats.invalid, stats.generation_rounds, stats.carried) == (3, 2, 2, 1)
    assert stats.filled
    # the surplus group leads the next batch
    batch, stats = filler.fill(rounds([("f", [1.0, 0.0])]))
    assert [g[0] for g in batch] == ["e", "f"]
    assert (stats.from_buffer, stats.valid, stats.invalid, stats.carried) == (1, 1, 0, 0)
    assert len(filler.history) == 2


def test_buffer_stays_below_n_and_delta_is_exclusive():
    filler = BatchFiller(n=2, rewards=lambda g: g, delta=0.25)
    groups = [[0.0, 0.5], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]  # std 0.25 is not > 0.25
    batch, stats = filler.fill(rounds(groups))
    assert batch == [[0.0, 1.0], [0.0, 1.0]]
    assert stats.invalid == 1
    assert len(filler.buffer) < 2
    assert stats.carried == len(filler.buffer) == 1


def test_partial_batch_when_generator_runs_dry():
    filler = BatchFiller(n=3, rewards=lambda g: g)
    batch, stats = filler.fill(rounds([[1.0, 1.0]], [[0.0, 1.0]]))
    assert batch == [[0.0, 1.0]]
    assert not stats.filled and stats.generation_rounds == 3


def test_rejects_bad_settings():
    with pytest.raises(ValueError):
        BatchFiller(n=0, rewards=lambda g: g)
    with pytest.raises(ValueError):
        BatchFiller(n=1, rewards=lambda g: g, delta=-1)
