"""The trained student the project ships: an adapter on the embedded student, with its model card."""

from __future__ import annotations

import json

import pytest

from agent_sdk import is_local_target, local_model_path, model_fingerprint
from agent_sdk._adapted import ADAPTED_MODELS, STUDENT_TRAINED

ADAPTER = STUDENT_TRAINED.adapter


def test_the_shipped_adapter_is_small_names_its_base_and_has_a_model_card():
    assert "student-trained" in ADAPTED_MODELS and is_local_target("student-trained")
    config = json.loads((ADAPTER / "adapter_config.json").read_text())
    assert config["base_model_name_or_path"] == "embedded"  # the embedded student, by name: it loads on any machine
    assert all(0 <= layer < 24 for layer in config["layers_to_transform"])
    size = sum(f.stat().st_size for f in ADAPTER.iterdir() if f.is_file())
    assert size <= 40 * 1024 * 1024
    card = (ADAPTER / "README.md").read_text()
    for needed in ("astra loop", "bench/sft_step.py", "examples/envs", "subtask recall", "answer correctness"):
        assert needed in card
    assert model_fingerprint("student-trained") != model_fingerprint("embedded")


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_trained_student_is_merged_into_the_embedded_student_once(tmp_path, monkeypatch):
    monkeypatch.setenv("ASTRA_CACHE_DIR", str(tmp_path))
    from agent_sdk import embedded_model_dir

    base = embedded_model_dir()  # the embedded student under the test's cache (assembled from its chunk packages)
    merged = local_model_path("student-trained")
    assert merged.parent == base.parent and (merged / "config.json").is_file()
    assert local_model_path("student-trained") == merged  # cached by the adapter's content
    assert (merged / "chat_template.jinja").read_text() == (base / "chat_template.jinja").read_text()
