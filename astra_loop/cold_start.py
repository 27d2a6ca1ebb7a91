"""The cold-start SFT data of the loop: judged SFT rows plus conversations from verified environments.

`cold_start_data` is the one function the cold-start stage calls. It builds golden-replay
conversations: every golden call of an environment is made over MCP against the real tools
(through an in-process arena), in dependency order, one call per assistant turn, under the
agent's one system prompt (`agent_sdk.DEFAULT_SYSTEM_PROMPT`, which GRPO's rows and the evaluation
also open with), and the
conversation ends with the task's answer. `rl.cold_start` (`astra sft cold-start`) is the
fuller source — parallel calls per dependency level, agent episodes kept at F1 = 1 — which
the loop has not been measured with.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent_sdk import DEFAULT_SYSTEM_PROMPT, read_jsonl


class ColdStartData(BaseModel):
    """What the cold-start data holds (`sft.jsonl`: OpenAI chat rows with `tools`)."""

    path: Path
    sft_rows: int = Field(description="Judged rows copied from the SFT synthesis export.")
    env_rows: int = Field(description="Conversations replayed from verified environments.")
    skipped_envs: list[str] = Field(default_factory=list, description="`dir: reason` for environments not replayed.")


def _tool_schema(tool: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": tool.name, "description": tool.description, "parameters": tool.input_schema}}


async def _replay(client: Any, env: Any) -> dict[str, Any]:
    from mcp_servers import golden_levels

    messages: list[dict[str, Any]] = [{"role": "system", "content": DEFAULT_SYSTEM_PROMPT}, {"role": "user", "content": env.spec.task.question}]
    for i, subtask in enumerate(s for level in golden_levels(env.spec) for s in level):
        call = subtask.golden_call
        result = await client.call_tool(call.tool, call.arguments)
        output = "".join(getattr(block, "text", "") for block in result.content)
        if result.is_error:
            raise ValueError(f"golden call {call.tool} failed: {output[:200]}")
        call_id = f"call_{i}"
        arguments = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
        messages.append({"role": "assistant", "content": "", "tool_calls": [{"id": call_id, "type": "function", "function": {"name": call.tool, "arguments": arguments}}]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": output})
    messages.append({"role": "assistant", "content": env.spec.task.answer})
    return {"messages": messages, "tools": [_tool_schema(t) for t in env.spec.tools], "env_id": env.spec.id}


async def golden_replays(envs_dirs: Sequence[Path]) -> tuple[list[dict[str, Any]], list[str]]:
    """One replayed conversation per environment under `envs_dirs`, and `dir: reason` for each failure."""
    from mcp import Client

    from mcp_servers import load_envs, serve_arena

    envs = load_envs(*envs_dirs)
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    if not envs:
        return rows, skipped
    async with serve_arena(envs) as arena:
        for env in envs:
            try:
                async with Client(arena.url(env.spec.id)) as client:
                    rows.append(await _replay(client, env))
            except Exception as exc:  # noqa: BLE001 — a bad environment is data: skip it, say why
                skipped.append(f"{env.path}: {type(exc).__name__}: {exc}")
    return rows, skipped


async def cold_start_data(*, envs_dirs: Sequence[Path], sft_files: Sequence[Path], out_dir: Path) -> ColdStartData:
    """Write `out_dir/sft.jsonl`: the judged SFT rows of `sft_files` and a golden replay of each environment.

    Raises:
        JsonlError: naming the file and line of a malformed row in `sft_files` (they are this
            loop's own exports, so a bad line is damage, not input to skip).
    """
    sft_rows = [row for f in sft_files if f.is_file() for row in read_jsonl(f).values]
    env_rows, skipped = await golden_replays(envs_dirs)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "sft.jsonl"
    lines = [json.dumps(r, ensure_ascii=False) for r in sft_rows + env_rows]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return ColdStartData(path=path, sft_rows=len(sft_rows), env_rows=len(env_rows), skipped_envs=skipped)
