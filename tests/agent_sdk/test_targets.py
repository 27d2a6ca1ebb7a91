"""`model_from_target`: endpoint URLs, the environment default, local models, bad targets."""

from __future__ import annotations

import pytest

from agent_sdk import LocalChatModel, OpenAIChatModel, UserError, is_endpoint_target, is_local_target, model_fingerprint, model_from_target

pytestmark = pytest.mark.anyio


async def test_url_target_is_an_endpoint_model_closed_after_the_block():
    async with model_from_target("http://127.0.0.1:9/v1", model_name="m", api_key="k", max_concurrency=3) as model:
        assert isinstance(model, OpenAIChatModel)
        assert (model.base_url, model.model, model.api_key, model.max_concurrency) == ("http://127.0.0.1:9/v1", "m", "k", 3)
        model._http()
    assert model._client is None


async def test_no_target_uses_the_endpoint_from_the_environment(monkeypatch):
    monkeypatch.setenv("ASTRA_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    said: list[str] = []
    async with model_from_target(None, announce=said.append) as model:
        assert isinstance(model, OpenAIChatModel) and model.base_url == "http://127.0.0.1:9/v1"
    assert said == []


async def test_unknown_target_names_itself(tmp_path):
    with pytest.raises(UserError, match="no-such-dir"):
        async with model_from_target(str(tmp_path / "no-such-dir")):
            pass


def test_local_targets(tmp_path):
    assert is_local_target("embedded") and is_local_target(str(tmp_path))
    assert not is_local_target("https://api.example/v1") and not is_local_target("gpt-4o") and not is_local_target(None)


@pytest.mark.slow
@pytest.mark.timeout(1200)
async def test_no_target_and_no_endpoint_starts_the_embedded_model_and_says_so(monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.delenv("ASTRA_LLM_BASE_URL", raising=False)
    said: list[str] = []
    async with model_from_target(None, model_name="gpt-4o", backend="local", announce=said.append) as model:
        assert isinstance(model, LocalChatModel) and model.name == "qwen2.5-coder-0.5b"
    assert "starting the embedded model" in said[0] and "'gpt-4o' ignored" in said[0]


def test_a_fingerprint_names_what_the_target_is(tmp_path):
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "model.safetensors").write_bytes(b"weights v1")
    first = model_fingerprint(str(model_dir))
    assert first.startswith("weights:") and model_fingerprint(str(model_dir)) == first
    (model_dir / "model.safetensors").write_bytes(b"weights v2")
    assert model_fingerprint(str(model_dir)) not in (first, ""), "retrained in place: a new fingerprint"
    assert model_fingerprint("embedded").startswith("embedded:") and model_fingerprint("teacher") != model_fingerprint("embedded")
    assert model_fingerprint("http://127.0.0.1:9/v1") == "endpoint:http://127.0.0.1:9/v1"
    assert is_endpoint_target("https://x/v1") and not is_endpoint_target("embedded") and not is_endpoint_target(None)
