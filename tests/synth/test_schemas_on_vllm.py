"""Every schema the pipelines send compiles in vLLM's grammar engine (the vLLM test group).

A schema the engine refuses costs the request its enforcement: the fallback pastes the schema
into the prompt, and the embedded model answers with a copy of it (measured: all six
necessity requests of a 15-row run, `uniqueItems`).
"""

from __future__ import annotations

import pytest

from agent_sdk import ChatMessage, OpenAIChatModel, SamplingSettings, VllmOptions, find_vllm_python, serve_model
from synth.env import _schemas as env_schemas
from synth.sft import _graph, _judge, _tasks, _verify

pytestmark = pytest.mark.anyio


def pipeline_schemas() -> dict[str, dict]:
    """One instance of every request schema of synth/env and synth/sft."""
    ids = ["q1", "q2", "q3"]
    return {
        "decomposition": env_schemas.decomposition_schema(2, 4),
        "necessity": env_schemas.necessity_schema(ids),
        "check": env_schemas.CHECK_SCHEMA,
        "groups": env_schemas.groups_schema(ids),
        "doc": env_schemas.doc_schema(["Palais Royal", "2025-09-04"]),
        "doc_without_values": env_schemas.doc_schema([]),
        "merged_doc": env_schemas.merged_doc_schema(ids[:2]),
        "sft_questions": _tasks.questions_schema(3),
        "sft_server_tasks": _tasks.server_tasks_schema(["a", "b", "c"], 3, 2),
        "sft_rewrite": _tasks.REWRITE_SCHEMA,
        "sft_score": _tasks.score_schema(["search_flights", "book_flight"]),
        "sft_judge": _judge.judge_schema(3),
        "sft_vote": _verify.VOTE_SCHEMA,
        "sft_proposals": _graph.proposals_schema(["a", "b"], 2),
    }


@pytest.mark.slow
@pytest.mark.timeout(1200)
async def test_every_pipeline_schema_is_enforced_by_vllm():
    if find_vllm_python() is None:
        pytest.skip("vLLM is not installed (run scripts/install_vllm.sh)")
    async with serve_model("embedded", backend="vllm", options=VllmOptions(enforce_eager=True), startup_timeout_s=600) as served:
        async with OpenAIChatModel(served.model_name, base_url=served.base_url, timeout_s=300) as model:
            for name, schema in pipeline_schemas().items():
                # an HTTP 400 (schema refused) raises ModelHTTPError and fails the test
                response = await model.complete(
                    [ChatMessage(role="user", content="Reply with JSON.")],
                    settings=SamplingSettings(max_tokens=2, temperature=0, output_schema=schema),
                )
                assert response.message.content is not None, name
