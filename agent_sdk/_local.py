"""`LocalChatModel`: a transformers model in this process (CPU or one GPU), batched across callers.

A 0.5B model generates ~5 tokens/s for one sequence on 2 CPU cores, but a padded batch of 8
costs little more per step than one sequence. So concurrent `complete()` calls (concurrent
episodes) are queued and run as one `generate` batch: the first waiting caller leads, takes
every compatible request queued behind it, runs the batch in a worker thread (torch blocks)
and hands the lead to the next waiter. Prompts are rendered with the tokenizer's own chat
template, tools included, and tool calls are parsed from the generated text.

A request with `SamplingSettings.output_schema` is decoded under that JSON Schema (llguidance,
see `_grammar`); requests with different schemas never share a batch.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from agent_sdk._cpu import cpu_has_bf16
from agent_sdk._embedded import STUDENT, load_causal_lm
from agent_sdk._local_targets import local_model_path, served_model_name
from agent_sdk._messages import ChatMessage, ModelResponse, SampledTokens, SamplingSettings, Usage
from agent_sdk._model import ModelProfile, merge_settings
from agent_sdk._schema_subset import map_schemas
from agent_sdk._tool_parsing import ParsedCalls, parse_tool_calls
from agent_sdk.exceptions import ContextOverflowError, ModelError, UserError

__all__ = ["LocalChatModel"]

logger = logging.getLogger(__name__)


@dataclass
class _Request:
    prompt: list[int]
    settings: SamplingSettings
    matcher: Any = None
    """The llguidance matcher that constrains this reply (None: unconstrained)."""
    done: anyio.Event = field(default_factory=anyio.Event)
    lead: bool = False
    text: str = ""
    completion_tokens: int = 0
    sampled: list[int] = field(default_factory=list)
    """The generated ids, the stop token included (what on-policy training trains on)."""
    logprobs: list[float] = field(default_factory=list)
    """The sampling distribution's logprob of each id of `sampled` (when asked for: `return_tokens`)."""
    finish_reason: str = "stop"
    error: BaseException | None = None

    def group(self) -> tuple[Any, ...]:
        """Requests with equal groups may share a batch: same sampling, same output schema."""
        s = self.settings
        schema = None if self.matcher is None else json.dumps(s.output_schema, sort_keys=True)
        return (s.temperature or 0.0, s.top_p, s.seed, tuple(s.stop or ()), schema)


class LocalChatModel:
    """A `ChatModel` running a Hugging Face causal LM in this process with transformers.

    Args:
        model: an embedded name ("embedded", the default Qwen2.5-Coder-0.5B-Instruct; "teacher",
            the 1.5B; see `embedded_model_dir`), a Hugging Face model directory, or a `.gguf`
            file (dequantized on load).
        name: the model name reported on responses (default: from the model).
        device: "cpu", "cuda" or "cuda:N" (default: cuda if available, else cpu).
        dtype: torch dtype name (default: bfloat16 on a GPU or a CPU with native bf16 support,
            else float32; bf16 generates ~1.7x faster on AVX512-BF16 CPUs when batched).
        threads: torch intra-op threads for this process (default: `$ASTRA_TORCH_THREADS`, else
            torch's own choice). On a CPU shared with other busy processes, 1 thread is several
            times faster than 2: spinning OpenMP workers wait on descheduled peers.
        max_batch_size: most requests generated together in one batch.
        batch_window_s: how long the first request waits for others to join its batch.
        settings: default sampling settings (greedy, 512 new tokens); per-call settings
            override field by field.

    Attributes:
        profile: `supports_output_schema` when llguidance is installed: `output_schema` is then
            enforced while decoding (tools are not offered to such a request).

    Raises:
        UserError: the model path does not exist or torch/transformers are missing.
        ModelError: transformers could not load the model.
    """

    def __init__(
        self,
        model: str | Path = STUDENT.target,
        *,
        name: str | None = None,
        device: str | None = None,
        dtype: str | None = None,
        threads: int | None = None,
        max_batch_size: int = 8,
        batch_window_s: float = 0.02,
        settings: SamplingSettings | None = None,
    ) -> None:
        if importlib.util.find_spec("torch") is None or importlib.util.find_spec("transformers") is None:
            raise UserError("LocalChatModel needs the local extra: pip install 'astra-mcp[local]'")
        import torch
        threads = threads or int(os.environ.get("ASTRA_TORCH_THREADS") or 0)
        if threads:
            torch.set_num_threads(threads)
        path = local_model_path(model)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        native_bf16 = self.device != "cpu" or cpu_has_bf16()
        torch_dtype = getattr(torch, dtype) if dtype else (torch.bfloat16 if native_bf16 else torch.float32)
        started = time.perf_counter()
        self.tokenizer, self._model = load_causal_lm(path, dtype=torch_dtype)
        self._model.to(self.device).eval()
        logger.info("loaded %s on %s in %.1fs", path, self.device, time.perf_counter() - started)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self._eos = self._eos_ids()
        self.name = name or served_model_name(model)
        self.settings = settings or SamplingSettings(max_tokens=512)
        self.max_batch_size = max_batch_size
        self.batch_window_s = batch_window_s
        self.max_context = int(getattr(self._model.config, "max_position_embeddings", 32768))
        self.profile = ModelProfile(supports_output_schema=importlib.util.find_spec("llguidance") is not None)
        self._grammar: Any = None
        self._grammar_lock = anyio.Lock()
        self._queue: list[_Request] = []
        self._leading = False
        self.batches_run = 0
        """Number of `generate` batches run so far (for tests and benchmarks)."""

    def _eos_ids(self) -> list[int]:
        ids = self._model.generation_config.eos_token_id
        found = set(ids if isinstance(ids, list) else [ids] if ids is not None else [])
        for token in ("<|im_end|>", "<|endoftext|>", "<|eot_id|>"):
            token_id = self.tokenizer.convert_tokens_to_ids(token)
            if isinstance(token_id, int) and token_id != self.tokenizer.unk_token_id and token_id >= 0:
                found.add(token_id)
        if self.tokenizer.eos_token_id is not None:
            found.add(self.tokenizer.eos_token_id)
        return sorted(found)

    def render(self, messages: Sequence[ChatMessage], tools: Sequence[dict[str, Any]] | None = None) -> str:
        """The prompt text for `messages` and `tools` (chat template, generation prompt appended)."""
        rendered = [_template_message(m) for m in messages]
        compact = [_compact_tool(t) for t in tools] if tools else None
        return str(self.tokenizer.apply_chat_template(rendered, tools=compact, add_generation_prompt=True, tokenize=False))

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[dict[str, Any]] | None = None,
        *,
        settings: SamplingSettings | None = None,
    ) -> ModelResponse:
        """Generate the next assistant message; batched with concurrent calls.

        With `settings.output_schema` (and llguidance installed) the reply is constrained to the
        schema, no tools are offered and the text is returned as generated.

        Raises:
            ContextOverflowError: the prompt plus `max_tokens` does not fit the model's context.
            ModelError: the output schema cannot be enforced, or generation failed.
        """
        merged = merge_settings(self.settings, settings)
        schema = merged.output_schema if self.profile.supports_output_schema else None
        if schema is not None:
            tools = None
        prompt = self.tokenizer(self.render(messages, tools), add_special_tokens=False)["input_ids"]
        budget = merged.max_tokens or 512
        if len(prompt) + budget > self.max_context:
            raise ContextOverflowError(
                f"{self.name}: prompt of {len(prompt)} tokens + {budget} new tokens does not fit: "
                f"this model's maximum context length is {self.max_context} tokens"
            )
        matcher = await self._matcher(schema) if schema is not None else None
        request = _Request(prompt=prompt, settings=merged.model_copy(update={"max_tokens": budget}), matcher=matcher)
        await self._submit(request)
        if request.error is not None:
            raise ModelError(f"{self.name}: generation failed: {request.error}") from request.error
        known = {t.get("function", {}).get("name") for t in tools or []}
        if matcher is None:
            parsed = parse_tool_calls(request.text, None, known_tools=known or None)
        else:
            # A schema-constrained reply is the answer itself, even when it looks like a call.
            parsed = ParsedCalls(content_without_calls=request.text)
        message = ChatMessage(role="assistant", content=parsed.content_without_calls, tool_calls=parsed.calls)
        finish = "tool_calls" if parsed.calls and request.finish_reason == "stop" else request.finish_reason
        usage = Usage(prompt_tokens=len(prompt), completion_tokens=request.completion_tokens, requests=1)
        tokens = (
            SampledTokens(prompt_ids=prompt, completion_ids=request.sampled, logprobs=request.logprobs)
            if merged.return_tokens and len(request.logprobs) == len(request.sampled) else None
        )  # fmt: skip
        return ModelResponse(message=message, usage=usage, finish_reason=finish, repairs=parsed.repairs, tokens=tokens)

    async def _matcher(self, schema: dict[str, Any]) -> Any:
        """A fresh llguidance matcher for `schema` (the tokenizer is converted once, in a thread)."""
        async with self._grammar_lock:
            if self._grammar is None:
                from agent_sdk._grammar import SchemaGrammar

                vocab = int(self._model.get_output_embeddings().weight.shape[0])
                self._grammar = await anyio.to_thread.run_sync(lambda: SchemaGrammar(self.tokenizer, vocab, self._eos))
        return self._grammar.matcher(schema)

    async def _submit(self, request: _Request) -> None:
        """Queue `request`; lead batches while it is the oldest waiter; return once it is done."""
        self._queue.append(request)
        if self._leading:
            try:
                await request.done.wait()
            except BaseException:
                if request in self._queue:
                    self._queue.remove(request)
                if request.lead:
                    self._pass_lead()
                raise
            if not request.lead:
                return
            request.done = anyio.Event()
        self._leading = True
        try:
            await anyio.sleep(self.batch_window_s)
            while not request.done.is_set():
                batch = self._take_batch()
                try:
                    await anyio.to_thread.run_sync(self._generate, batch)
                finally:
                    for item in batch:
                        item.done.set()
        finally:
            if request in self._queue:
                self._queue.remove(request)
            self._pass_lead()

    def _pass_lead(self) -> None:
        """Hand the lead to the oldest waiter, or stop leading when nobody waits."""
        if self._queue:
            heir = self._queue[0]
            heir.lead = True
            heir.done.set()
        else:
            self._leading = False

    def _take_batch(self) -> list[_Request]:
        key = self._queue[0].group()
        batch = [r for r in self._queue if r.group() == key][: self.max_batch_size]
        for item in batch:
            self._queue.remove(item)
            item.lead = False
        return batch

    def _generate(self, batch: list[_Request]) -> None:
        """Run one padded `generate` over `batch` (in a worker thread); results go on the requests."""
        import torch

        try:
            settings = batch[0].settings
            width = max(len(r.prompt) for r in batch)
            pad = self.tokenizer.pad_token_id
            ids = torch.tensor([[pad] * (width - len(r.prompt)) + r.prompt for r in batch], device=self.device)
            mask = torch.tensor([[0] * (width - len(r.prompt)) + [1] * len(r.prompt) for r in batch], device=self.device)
            sample = bool(settings.temperature)
            kwargs: dict[str, Any] = {"do_sample": sample}
            if sample:
                # top_k=0: the settings' distribution, not transformers' default top-50 cut (which a
                # trainer's logprobs would then differ from by ~0.14 nats a token)
                kwargs.update(temperature=settings.temperature, top_p=settings.top_p or 1.0, top_k=0)
            if settings.stop:
                kwargs.update(stop_strings=list(settings.stop), tokenizer=self.tokenizer)
            if settings.seed is not None:
                torch.manual_seed(settings.seed)
            if batch[0].matcher is not None:
                from transformers import LogitsProcessorList

                from agent_sdk._grammar import SchemaLogitsProcessor

                processor = SchemaLogitsProcessor([r.matcher for r in batch], self._grammar)
                kwargs["logits_processor"] = LogitsProcessorList([processor])
            scored = any(r.settings.return_tokens for r in batch)
            with torch.inference_mode():
                out = self._model.generate(
                    input_ids=ids,
                    attention_mask=mask,
                    max_new_tokens=max(r.settings.max_tokens or 512 for r in batch),
                    eos_token_id=self._eos,
                    pad_token_id=pad,
                    output_scores=scored,
                    return_dict_in_generate=True,
                    **kwargs,
                )
            self.batches_run += 1
            rows = out.sequences[:, width:]
            # `scores` are the logits after temperature / top-p: the distribution each token was drawn from
            logprobs = (
                torch.stack(out.scores, dim=1).float().log_softmax(-1).gather(2, rows[:, :, None]).squeeze(2).tolist() if scored else None
            )  # fmt: skip
            for i, (row, request) in enumerate(zip(rows.tolist(), batch, strict=True)):
                self._finish(request, row, logprobs[i] if logprobs is not None else None)
        except Exception as exc:  # noqa: BLE001 - delivered to every caller of the batch as ModelError
            for request in batch:
                request.error = exc

    def _finish(self, request: _Request, row: list[int], logprobs: list[float] | None = None) -> None:
        limit = request.settings.max_tokens or 512
        tokens: list[int] = []
        request.finish_reason = "length"
        for token in row[:limit]:
            if token in self._eos:
                request.finish_reason = "stop"
                break
            tokens.append(token)
        request.sampled = row[: len(tokens) + (request.finish_reason == "stop")]
        request.logprobs = logprobs[: len(request.sampled)] if logprobs is not None else []
        text = self.tokenizer.decode(tokens, skip_special_tokens=True)
        for stop in request.settings.stop or ():
            if stop in text:
                text = text[: text.index(stop)]
                request.finish_reason = "stop"
        request.text = text
        request.completion_tokens = len(tokens)


def _template_message(message: ChatMessage) -> dict[str, Any]:
    """A message as chat templates expect it: tool-call arguments as objects, not JSON text."""
    out: dict[str, Any] = {"role": message.role, "content": message.content or ""}
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ]
    if message.role == "tool":
        out["tool_call_id"] = message.tool_call_id
        if message.name:
            out["name"] = message.name
    return out


def _compact_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """The tool schema without JSON-Schema noise (titles, $schema) that only lengthens the prompt."""
    function = tool.get("function", tool)
    compact = {k: v for k, v in function.items() if k in ("name", "description", "parameters")}
    if isinstance(compact.get("parameters"), dict):
        compact["parameters"] = _strip_schema(compact["parameters"])
    return {"type": "function", "function": compact}


def _strip_schema(schema: Any) -> Any:
    return map_schemas(schema, lambda s: {key: value for key, value in s.items() if key not in ("title", "$schema")})
