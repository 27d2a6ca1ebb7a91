"""The run's options: what `--model` accepts, the sampled protocol's fixed ids, where results go."""

from __future__ import annotations

import json

import pytest
from harness import EVAL_MAX_MODEL_LEN, PROTOCOLS_DIR, EvalConfig, EvalModels, load_protocol
from harness.acebench import AGENT_CATEGORIES, NORMAL_CATEGORIES, SPECIAL_CATEGORIES, acebench_dir, load_category
from harness.bfcl import CATEGORIES, load_entries
from harness.tau2 import DOMAINS, load_tasks
from pydantic import ValidationError

from agent_sdk import OpenAIChatModel, UserError


def test_model_is_a_url_a_checkpoint_embedded_or_local(tmp_path) -> None:
    (tmp_path / "config.json").write_text("{}")
    assert EvalConfig(model="http://127.0.0.1:8011/v1").model_kind == "endpoint"
    assert EvalConfig(model=str(tmp_path)).model_kind == "checkpoint"
    assert EvalConfig(model="embedded").model_kind == "checkpoint"
    assert EvalConfig(model="local").model_kind == "local"
    assert EvalConfig().model_kind is None and not EvalConfig().has_model
    assert EvalConfig().max_model_len == EVAL_MAX_MODEL_LEN >= 16384
    with pytest.raises(ValidationError, match="existing model directory"):
        EvalConfig(model=str(tmp_path / "missing"))
    with pytest.raises(ValidationError, match="endpoint URL"):
        EvalConfig(model="embedded", user_model_url=str(tmp_path))


def test_an_endpoint_is_used_as_given_and_the_user_defaults_to_it() -> None:
    config = EvalConfig(model="http://127.0.0.1:8011/v1", model_name="qwen2.5-coder-0.5b")
    with EvalModels(config) as models:
        agent, user = models.chat_model(), models.chat_model(user=True)
        assert isinstance(agent, OpenAIChatModel) and agent.base_url == "http://127.0.0.1:8011/v1"
        assert user.name == agent.name == "qwen2.5-coder-0.5b" and models.served is None
    other = EvalConfig(model="http://a:1/v1", user_model_url="http://b:2/v1", user_model_name="judge")
    assert EvalModels(other).chat_model(user=True).name == "judge"
    with pytest.raises(UserError, match="--model"):
        EvalModels(EvalConfig()).chat_model()


def test_labels_name_the_rows_and_separate_the_result_folders(tmp_path) -> None:
    base = EvalConfig(model="embedded", model_label="base", eval_out=tmp_path)
    trained = EvalConfig(model="http://127.0.0.1:8011/v1", model_name="ckpt/step 40", eval_out=tmp_path)
    assert (base.label, trained.label) == ("base", "ckpt/step 40")
    assert base.results_dir == tmp_path.resolve() / "base"
    assert trained.results_dir == tmp_path.resolve() / "ckpt_step_40"


def test_sampled_protocol_picks_fixed_ids_in_its_order_then_the_limit(tmp_path) -> None:
    config = EvalConfig(model="local", protocol="sampled")
    items = [f"multi_turn_base_{i}" for i in range(200)]
    ids = load_protocol("sampled").ids("bfcl", "multi_turn_base")
    assert config.select("bfcl", "multi_turn_base", items, str) == ids
    assert EvalConfig(model="local", protocol="sampled", limit=1).select("bfcl", "multi_turn_base", items, str) == ids[:1]
    assert EvalConfig(model="local").select("bfcl", "multi_turn_base", items, str) == items
    with pytest.raises(UserError, match="has no entries"):
        config.select("bfcl", "multi_turn_base", items[:10], str)
    custom = tmp_path / "mine.json"
    custom.write_text(json.dumps({"name": "mine", "description": "one", "entries": {"tau2:retail": ["3"]}}))
    mine = EvalConfig(model="local", protocol=str(custom))
    assert mine.skip_reason("tau2", "retail") is None
    assert mine.skip_reason("tau2", "airline") == "category not in protocol 'mine'"
    with pytest.raises(UserError, match="no such protocol"):
        load_protocol("nope")


def test_sampled_protocol_covers_every_category_with_ids_the_data_has() -> None:
    protocol = load_protocol("sampled")
    assert protocol.source == str(PROTOCOLS_DIR / "sampled.json")
    wanted = {f"bfcl:{c}" for c in CATEGORIES} | {f"tau2:{d}" for d in (*DOMAINS, "telecom-solo")}
    wanted |= {f"acebench:{c}" for c in NORMAL_CATEGORIES + SPECIAL_CATEGORIES + AGENT_CATEGORIES}
    assert set(protocol.entries) == wanted
    assert all(len(ids) == 3 == len(set(ids)) for ids in protocol.entries.values())
    config = EvalConfig(model="local", protocol="sampled")
    for category in CATEGORIES:
        assert len(config.select("bfcl", category, load_entries(category), lambda e: e.id)) == 3
    for variant in (*DOMAINS, "telecom-solo"):
        tasks = load_tasks(variant.removesuffix("-solo"))
        if variant.endswith("-solo"):
            tasks = [t for t in tasks if getattr(t, "ticket", None)]
        assert len(config.select("tau2", variant, tasks, lambda t: t.id)) == 3
    if (acebench_dir() / "data_en").is_dir():
        for category in NORMAL_CATEGORIES + SPECIAL_CATEGORIES + AGENT_CATEGORIES:
            assert len(config.select("acebench", category, load_category(category), lambda e: e.id)) == 3
