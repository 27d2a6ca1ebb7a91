"""Chat messages, tool calls and usage: the records every model backend and the agent share.

They mirror the OpenAI chat format so that exports load as-is in TRL and veRL.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ToolCall(BaseModel):
    """One function call requested by the model."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="Call id, unique within the episode.")
    name: str = Field(description="Tool name as presented to the model.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Parsed (possibly repaired) arguments.")
    raw_arguments: str | None = Field(default=None, description="The argument text as the model wrote it.")

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI `tool_calls[]` item."""
        import json

        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments, ensure_ascii=False)},
        }


class ChatMessage(BaseModel):
    """One message of a conversation in OpenAI chat format."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = Field(default=None, description="For role=tool: the call it answers.")
    name: str | None = Field(default=None, description="For role=tool: the tool's name.")

    def to_openai(self) -> dict[str, Any]:
        """The message as an OpenAI chat dict (no null fields)."""
        out: dict[str, Any] = {"role": self.role, "content": self.content if self.content is not None else ""}
        if self.tool_calls:
            out["tool_calls"] = [c.to_openai() for c in self.tool_calls]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None and self.role == "tool":
            out["name"] = self.name
        return out


class Usage(BaseModel):
    """Token counts of one or more model requests."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            requests=self.requests + other.requests,
        )


class SamplingSettings(BaseModel):
    """Sampling parameters passed to the model backend (None = backend default)."""

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = 1024
    seed: int | None = None
    stop: list[str] | None = None
    frequency_penalty: float | None = Field(
        default=None,
        description="OpenAI-style penalty on tokens by how often they already occur (OpenAI-compatible backends; "
        "the local backend ignores it).",
    )
    output_schema: dict[str, Any] | None = Field(
        default=None,
        description="A JSON Schema the reply text must satisfy. A backend whose `supports_output_schema` "
        "is true constrains decoding to it (per request, so schemas never mix) and offers no tools; "
        "others ignore it, so callers still validate the reply.",
    )
    return_tokens: bool | None = Field(
        default=None,
        description="Ask for the prompt's and the reply's token ids and the reply's logprobs (vLLM's `return_token_ids` "
        "and `logprobs`); `ModelResponse.tokens` holds them when the backend returned them.",
    )
    top_logprobs: int | None = Field(
        default=None,
        ge=1,
        le=20,
        description="Ask for the k most likely tokens at every position of the reply (OpenAI `logprobs` with "
        "`top_logprobs`); `ModelResponse.token_choices` holds them when the backend returned them. Judges read "
        "how sure the model was of a verdict from them.",
    )


class SampledTokens(BaseModel):
    """The tokens behind one reply, as the backend saw and sampled them: what on-policy training trains on."""

    prompt_ids: list[int] = Field(description="The rendered prompt, as the backend tokenized it.")
    completion_ids: list[int] = Field(description="The reply's sampled token ids.")
    logprobs: list[float] = Field(description="The sampler's logprob of each completion id.")


class TokenChoice(BaseModel):
    """One position of a reply: the token sampled there and the model's most likely tokens at that position."""

    token: str = Field(description="The sampled token's text.")
    logprob: float = Field(description="Its logprob under the model's own distribution.")
    top: dict[str, float] = Field(default_factory=dict, description="The k most likely tokens there -> logprob.")


class ArgumentRepair(BaseModel):
    """How the arguments of one tool call were repaired (or failed to parse).

    Backends record one per call whose argument text was not strict JSON, so that
    trajectories can count repairs and training data can be filtered on them.
    """

    call_id: str = Field(description="Id of the repaired call.")
    tool: str = Field(description="Tool name of the call.")
    raw: str = Field(description="The argument text as the model wrote it.")
    fixes: list[str] = Field(default_factory=list, description="Repairs applied, e.g. single_quotes, trailing_commas.")
    ok: bool = Field(default=True, description="False when the text could not be parsed even after repair.")
    error: str | None = Field(default=None, description="Why parsing failed (when ok is False).")

    def failure_message(self) -> str:
        """The error a model reads for a call whose arguments could not be parsed (when ok is False).

        The agent loop and the RL episodes answer such a call with this text, so a policy meets the
        same observation in training and in evaluation.
        """
        return f"the arguments of {self.tool!r} are not a JSON object ({self.error}); call it again with valid JSON"


class ModelResponse(BaseModel):
    """What a `ChatModel` returns: one assistant message plus usage."""

    message: ChatMessage
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None
    repairs: list[ArgumentRepair] = Field(
        default_factory=list, description="Argument repairs made while parsing the message's tool calls."
    )
    tokens: SampledTokens | None = Field(default=None, description="The sampled tokens, when asked for (`SamplingSettings.return_tokens`).")
    token_choices: list[TokenChoice] | None = Field(
        default=None, description="The reply's tokens with the likeliest alternatives, when asked for (`SamplingSettings.top_logprobs`)."
    )
