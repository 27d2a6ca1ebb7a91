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


def test_round_cap_ends_an_all_zero_streak_with_a_clear_error():
    from rl.exceptions import BatchFillingError

    filler = BatchFiller(n=2, rewards=lambda g: g, delta=0.0, max_rounds=3)
    with pytest.raises(BatchFillingError) as caught:
        filler.fill(lambda: [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    error = caught.value
    assert (error.max_rounds, error.rounds, error.kept, error.needed, error.streak) == (3, 3, 0, 2, 6)
    assert "cap of 3 generation rounds" in str(error) and "last 6 groups" in str(error)


def test_stats_report_kept_discarded_carried_and_dropped():
    filler = BatchFiller(n=2, rewards=lambda g: g)
    _, stats = filler.fill(rounds([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.5, 1.0], [0.2, 0.4]]))
    # two surplus groups, but the buffer keeps fewer than n: the freshest one stays
    assert (stats.kept, stats.invalid, stats.carried, stats.dropped, stats.streak) == (2, 1, 1, 1, 0)
    assert filler.buffer == [[0.2, 0.4]]
    metrics = stats.metrics()
    assert metrics["batch_filling/kept"] == 2 and metrics["batch_filling/discarded"] == 1
    assert metrics["batch_filling/carried"] == 1 and metrics["batch_filling/valid_share"] == pytest.approx(0.8)
    assert "kept 2 groups" in stats.summary()


def test_reward_std_ignores_unscorable_rollouts():
    assert reward_std([float("nan"), 1.0]) == 0.0
    assert reward_std([float("nan"), 0.0, 1.0]) == pytest.approx(0.5)


@pytest.mark.anyio
async def test_async_fill_follows_the_same_rule():
    filler = BatchFiller(n=2, rewards=lambda g: g)
    rounds_played = iter([[[0.0, 0.0]], [[0.0, 1.0], [1.0, 0.0], [0.0, 0.5]]])

    async def generate():
        return next(rounds_played, [])

    batch, stats = await filler.afill(generate)
    assert batch == [[0.0, 1.0], [1.0, 0.0]]
    assert (stats.valid, stats.invalid, stats.generation_rounds, stats.carried, stats.filled) == (3, 1, 2, 1, True)
