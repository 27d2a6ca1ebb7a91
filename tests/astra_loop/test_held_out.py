"""GRPO's held-out world environments: built over MCP from a real world file, none of them a training one."""

from __future__ import annotations

from pathlib import Path

import pytest

from astra_loop import StageError
from astra_loop.held_out import held_out_world_envs
from mcp_servers import SandboxConfig, load_envs
from synth.world import WorldSynthConfig, load_world_file, synthesize_from_worlds

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

CAR_RENTAL = Path(__file__).resolve().parents[2] / "examples" / "worlds" / "car_rental.yaml"


async def test_held_out_environments_share_no_id_or_question_with_training(tmp_path: Path) -> None:
    world = load_world_file(CAR_RENTAL)
    async with SandboxConfig.from_env().build() as sandbox:
        await synthesize_from_worlds([world], tmp_path / "train", WorldSynthConfig(per_world=12, seed=0), sandbox=sandbox)
    kept = await held_out_world_envs([world], tmp_path / "train" / "envs", tmp_path / "val", wanted=4, seed=0)
    training, held = load_envs(tmp_path / "train" / "envs"), load_envs(kept)
    assert len(held) == 4
    assert not {e.spec.id for e in held} & {e.spec.id for e in training}
    assert not {e.spec.task.question for e in held} & {e.spec.task.question for e in training}
    assert all(e.spec.source.kind == "world" for e in held)
    # Every scenario is validated on, multi-hop included.
    assert {e.spec.task.scenario for e in held} == {"single_hop", "parallel_single_hop", "multi_hop", "parallel_multi_hop"}
    # A training set that already holds every environment of the held-out walk leaves nothing to validate on.
    with pytest.raises(StageError, match="also a training one"):
        await held_out_world_envs([world], tmp_path / "val" / "envs", tmp_path / "again", wanted=4, seed=0)
