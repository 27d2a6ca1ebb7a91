"""Environments built and verified per second from worlds, on the code path, beside `verify` over MCP.

The code path is what `synthesize_from_worlds` does before the sandbox: walk, build, replay the
golden calls and verify's perturbations in process, and the meaning checks. The baseline is
`verify_paths` (what `astra env verify` runs) on the same environments, in the sandbox, in the
same run. Target: >= 20 environments/s on the code path on 2 cores (5,000 in under 5 minutes).

    python bench/world_synth.py [--worlds N] [--per-world N]

Worlds: `examples/worlds/car_rental.yaml` and the proposed worlds under `examples/worlds/domains/`
(the first N of them), each with its own seed.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import anyio

from mcp_servers import SandboxConfig, verify_paths
from synth.world import WorldSynthConfig, build_world_envs, load_world_file

ROOT = Path(__file__).resolve().parents[1]


def _worlds(limit: int) -> list:
    files = [ROOT / "examples/worlds/car_rental.yaml", *sorted((ROOT / "examples/worlds/domains").glob("*.json"))]
    return [load_world_file(p) for p in files[:limit]]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=20)
    parser.add_argument("--per-world", type=int, default=50)
    args = parser.parse_args()
    worlds = _worlds(args.worlds)
    config = WorldSynthConfig(per_world=args.per_world)
    started = time.perf_counter()
    envs = [env for world in worlds for env in build_world_envs(world, config)[0]]
    code_s = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as tmp:
        paths = [env.write(Path(tmp) / f"env-{i:05d}") for i, env in enumerate(envs)]
        async with SandboxConfig.from_env().build() as sandbox:
            started = time.perf_counter()
            report = await verify_paths(paths, sandbox=sandbox, concurrency=8)
            verify_s = time.perf_counter() - started
    code_rate, verify_rate = len(envs) / code_s, len(envs) / verify_s
    print(f"worlds {len(worlds)}, environments {len(envs)} (code path: built, replayed, perturbed, meaning-checked)")
    print(f"code path:        {code_s:8.2f} s  {code_rate:8.1f} environments/s")
    print(f"verify over MCP:  {verify_s:8.2f} s  {verify_rate:8.1f} environments/s  ({len(envs) - report.failed}/{len(envs)} passed)")
    print(f"ratio code path / verify: {code_rate / verify_rate:.2f}x; 5,000 on the code path: {5000 / code_rate / 60:.1f} min")


if __name__ == "__main__":
    anyio.run(main)
