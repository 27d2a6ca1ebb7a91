"""The cheap cold start on SmolLM2-135M (the packaged test model): the loss where the assistant speaks, the adapter
trained, saved, loaded and merged."""

from __future__ import annotations

import json
from pathlib import Path
import math

import pytest

from rl._models import smollm2_gguf

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

SMOLLM2 = str(smollm2_gguf())

CONVERSATION = json.loads((Path(__file__).parent / "data" / "forecast_conversation.json").read_text())
"""One tool call and its result, then the answer: the conversation both SFT recipes are tested on."""


@pytest.fixture(scope="module")
def smollm2():
    import torch

    from rl._models import load_model

    torch.manual_seed(0)
    return load_model(SMOLLM2)


def _sample(tokenizer):
    from rl._tokenize import tokenize_conversation

    return tokenize_conversation(tokenizer, CONVERSATION["messages"], CONVERSATION["tools"])


def test_the_output_layer_runs_only_where_the_assistant_speaks(smollm2):
    from rl.assistant_loss import assistant_loss

    model, tokenizer = smollm2
    sample = _sample(tokenizer)
    rows_seen = []
    hook = model.get_output_embeddings().register_forward_hook(lambda _m, args, _out: rows_seen.append(args[0].shape[-2]))
    try:
        loss, n = assistant_loss(model, sample["input_ids"], sample["assistant_masks"])
    finally:
        hook.remove()
    assert n == sum(sample["assistant_masks"][1:]) and 0 < n < len(sample["input_ids"]) // 2
    assert rows_seen == [n]  # logits for n positions, not for every token of the conversation
    assert math.isfinite(float(loss.detach()))


def test_its_gradients_are_those_of_the_full_loss_on_the_assistant_tokens(smollm2):
    import torch

    from rl.assistant_loss import assistant_loss

    model, tokenizer = smollm2
    sample = _sample(tokenizer)
    ids = torch.tensor([sample["input_ids"]])
    labels = ids.masked_fill(torch.tensor([sample["assistant_masks"]]) == 0, -100)
    watched = [model.model.layers[0].self_attn.q_proj.weight, model.model.layers[-1].mlp.down_proj.weight, model.model.norm.weight]

    model.zero_grad()
    loss, n = assistant_loss(model, sample["input_ids"], sample["assistant_masks"])
    (loss / n).backward()
    cheap = [w.grad.clone() for w in watched]
    model.zero_grad()
    full = model(input_ids=ids, labels=labels, use_cache=False).loss  # logits at every position, mean over the labelled ones
    full.backward()
    assert torch.allclose(loss / n, full, rtol=1e-5, atol=1e-6)
    for got, want in zip(cheap, (w.grad for w in watched), strict=True):
        assert torch.allclose(got, want, rtol=1e-4, atol=1e-7)
    model.zero_grad()


def test_batches_shuffle_by_seed_and_cover_the_epochs():
    from rl.adapter_sft import batches

    one = batches(5, batch_size=2, epochs=2, max_steps=-1, seed=3)
    assert one == batches(5, batch_size=2, epochs=2, max_steps=-1, seed=3)
    assert one != batches(5, batch_size=2, epochs=2, max_steps=-1, seed=4)
    flat = [i for batch in one for i in batch]
    assert len(one) == 5 and sorted(flat) == sorted(list(range(5)) * 2)
    assert len(batches(5, batch_size=2, epochs=1, max_steps=7, seed=0)) == 7


def test_the_rows_of_the_output_tokens_train_beside_the_adapter_and_nothing_below_it():
    import torch

    from rl._models import load_model
    from rl.adapter import AdapterSettings, attach_adapter, output_token_rows
    from rl.assistant_loss import assistant_loss

    model, tokenizer = load_model(SMOLLM2)
    model.lm_head.weight = torch.nn.Parameter(model.lm_head.weight.detach().clone())  # untied, as the embedded student's
    model.config.tie_word_embeddings = False
    tokens = ("<|im_start|>", "<|im_end|>", "<no such token>")
    ids = sorted(tokenizer.convert_tokens_to_ids(t) for t in tokens[:2])
    assert output_token_rows(model, tokenizer, tokens) == {"lm_head": ids}  # a token the vocabulary lacks is left out
    head, embedding = model.lm_head.weight.detach().clone(), model.get_input_embeddings().weight.detach().clone()

    adapted = attach_adapter(model, AdapterSettings(rank=4, alpha=8, top_layers=2, output_tokens=tokens), tokenizer)
    trainable = [(name, p) for name, p in adapted.named_parameters() if p.requires_grad]
    assert {"lora" in name or "trainable_tokens" in name for name, _ in trainable} == {True}
    assert not any("embed_tokens" in name for name, _ in trainable)  # backward still stops at the adapted layers
    sample = _sample(tokenizer)
    loss, n = assistant_loss(adapted, sample["input_ids"], sample["assistant_masks"])
    (loss / n).backward()
    optimizer = torch.optim.AdamW([p for _, p in trainable], lr=1e-2)
    optimizer.step()
    merged = adapted.merge_and_unload()
    changed = torch.nonzero((merged.lm_head.weight.detach() - head).abs().sum(dim=1)).flatten().tolist()
    assert changed == ids  # those rows, and no other row of the output layer
    assert torch.equal(merged.get_input_embeddings().weight.detach(), embedding)


def test_bf16_autocast_runs_only_where_bf16_is_native_and_still_learns(tmp_path):
    from agent_sdk._cpu import cpu_has_bf16
    from rl.adapter import AdapterSettings
    from rl.adapter_sft import step_precision
    from rl.trl import SftRecipe, train_sft

    assert step_precision("cpu", False) == "float32" and step_precision("cuda", True) == "bfloat16 autocast"
    assert step_precision("cpu", True) == ("bfloat16 autocast" if cpu_has_bf16() else "float32")
    data = tmp_path / "sft.jsonl"
    data.write_text("\n".join([json.dumps(CONVERSATION)] * 2) + "\n")
    report = train_sft(SftRecipe(
        data=data, output_dir=tmp_path / "out", model=SMOLLM2, max_steps=3, batch_size=2, lr=5e-3, torch_threads=1, save=False,
        adapter=AdapterSettings(rank=4, alpha=8, top_layers=2, bf16_autocast=True),
    ))  # fmt: skip
    assert report.precision == step_precision("cpu", True)
    assert report.losses[-1] < report.losses[0]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """An adapter trained 3 steps on the test conversation at a high rate, so its replies differ from the base's,
    with the row of the assistant's end-of-turn token trained too (tied to the input embedding in SmolLM2)."""
    from rl.adapter import AdapterSettings
    from rl.trl import SftRecipe, train_sft

    tmp = tmp_path_factory.mktemp("adapter")
    data = tmp / "sft.jsonl"
    data.write_text("\n".join([json.dumps(CONVERSATION)] * 4) + "\n")
    report = train_sft(SftRecipe(
        data=data, output_dir=tmp / "out", model=SMOLLM2, max_steps=3, batch_size=2, lr=5e-3, torch_threads=1,
        adapter=AdapterSettings(rank=4, alpha=8, top_layers=2, output_tokens=("<|im_end|>",)),
    ))  # fmt: skip
    return tmp, report


def _prompt(tokenizer):
    return tokenizer.apply_chat_template(CONVERSATION["messages"][:2], add_generation_prompt=True, return_tensors="pt", return_dict=True)


def test_the_adapter_trains_only_the_top_layers_and_merges_into_the_same_replies(trained):
    import torch

    from rl._models import load_model
    from rl.adapter import load_adapted

    tmp, report = trained
    assert report.steps == 3 and report.rows == 4 and report.conversations_per_minute > 0
    assert report.losses[-1] < report.losses[0]  # a high rate on one repeated row: the adapter learns it
    steps = [json.loads(line) for line in (tmp / "out/steps.jsonl").read_text().splitlines()]
    assert [s["step"] for s in steps] == [1, 2, 3]
    config = json.loads((tmp / "out/adapter/adapter_config.json").read_text())
    assert config["base_model_name_or_path"] == str(smollm2_gguf().resolve())  # the base as named, so the adapter loads anywhere it exists
    base, tokenizer = load_model(SMOLLM2)
    n_layers = len(base.model.layers)
    assert sorted(config["layers_to_transform"]) == [n_layers - 2, n_layers - 1] and config["r"] == 4

    adapted = load_adapted(base, tmp / "out/adapter")
    merged, _ = load_model(report.model_dir)
    with torch.no_grad():
        from_adapter = adapted.generate(**_prompt(tokenizer), max_new_tokens=24, do_sample=False)
        from_merged = merged.generate(**_prompt(tokenizer), max_new_tokens=24, do_sample=False)
    assert from_adapter.tolist() == from_merged.tolist()
    lora_b = [p for name, p in adapted.named_parameters() if "lora_B" in name]  # zero at the start: training moved it
    assert lora_b and any(float(p.abs().sum()) > 0 for p in lora_b)


@pytest.mark.anyio
async def test_an_adapter_directory_is_served_as_a_model_and_replies_as_its_merged_weights(trained, tmp_path, monkeypatch):
    import torch

    from agent_sdk import ChatMessage, OpenAIChatModel, SamplingSettings, local_model_path, model_fingerprint, serve_model
    from rl._models import load_model

    tmp, report = trained
    monkeypatch.setenv("ASTRA_CACHE_DIR", str(tmp_path / "cache"))
    adapter = tmp / "out/adapter"
    merged_dir = local_model_path(adapter)  # merged into its base once, cached by the adapter's content
    assert merged_dir.parent == tmp_path / "cache/models" and local_model_path(adapter) == merged_dir
    assert model_fingerprint(str(adapter)) != model_fingerprint(SMOLLM2)
    from agent_sdk._cpu import cpu_has_bf16

    # in the dtype the local backend serves in: bfloat16 where the CPU has it
    merged, tokenizer = load_model(report.model_dir, dtype="bfloat16" if cpu_has_bf16() else "float32")
    with torch.no_grad():
        prompt = _prompt(tokenizer)
        ids = merged.generate(**prompt, max_new_tokens=16, do_sample=False)[0, prompt["input_ids"].shape[1]:]
    expected = tokenizer.decode(ids, skip_special_tokens=True).strip()
    async with serve_model(adapter, backend="local", startup_timeout_s=300) as served:
        assert served.model_name == "adapter"
        async with OpenAIChatModel(served.model_name, base_url=served.base_url, timeout_s=300) as client:
            response = await client.complete(
                [ChatMessage(role="system", content=CONVERSATION["messages"][0]["content"]), ChatMessage(role="user", content=CONVERSATION["messages"][1]["content"])],
                None, settings=SamplingSettings(max_tokens=16, temperature=0),
            )  # fmt: skip
    assert (response.message.content or "").strip() == expected
