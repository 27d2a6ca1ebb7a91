"""Replies that copy the prompt's example, and checks that keep their own reason codes.

Small models copy the example a prompt shows. Prompts therefore show only placeholders
(`<why>`) and values that fail; a `PromptExample` still recognises a reply that repeats it,
whole or by one of its placeholder texts, and `ReplyCheck` turns that into the reason code
`copied_example` (each stage prefixes it like its other codes, e.g. `judge_copied_example`).

`PromptExample.format_section(model)` is the one way a prompt shows its example: every
prompt builder appends it, and it is empty when the model's engine enforces the output schema
(`enforces_schema`), else the example's JSON.

`ReplyCheck` is the `check=` of `ask_structured` for every stage: the copy test first, then
the stage's own check, whose failures may carry their own codes (`hop_count`, ...). After the
request, `ReplyCheck.settle` puts the code of the failure that ended it on the result.
"""

from __future__ import annotations

import dataclasses
import json
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from agent_sdk import ChatMessage, SamplingSettings
from mcp_servers import CheckCode
from synth.core.structured import StructuredResult, ask_structured, enforces_schema

__all__ = ["CHECK_CODES", "COPIED_EXAMPLE", "CheckOutcome", "PromptExample", "ReplyCheck"]

T = TypeVar("T", bound=BaseModel)

COPIED_EXAMPLE = "copied_example"
"""Reason code of a reply that repeats the prompt's example."""

CHECK_CODES: tuple[CheckCode, ...] = CheckCode.load_declarations(__name__)
"""The reason code this module adds to the `reply` family (the others: `synth.core.structured.CHECK_CODES`)."""

CheckOutcome = str | tuple[str, str] | None
"""What a stage check returns: None (fine), a feedback message, or `(reason code, feedback)`."""


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def string_leaves(value: Any) -> list[str]:
    """Every string inside a JSON-like value (mapping values and list items, depth first)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in string_leaves(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in string_leaves(v)]
    return []


def _same(reply: Any, example: Any) -> bool:
    """Whether `reply` holds `example`: every key the example shows, with the example's value."""
    if isinstance(example, Mapping):
        return isinstance(reply, Mapping) and all(k in reply and _same(reply[k], v) for k, v in example.items())
    if isinstance(example, list | tuple):
        return isinstance(reply, list | tuple) and len(reply) == len(example) and all(map(_same, reply, example))
    if isinstance(example, str):
        return isinstance(reply, str) and _norm(reply) == _norm(example)
    if isinstance(example, bool) or example is None:
        return reply is example
    if isinstance(example, int | float):
        return isinstance(reply, int | float) and not isinstance(reply, bool) and float(reply) == float(example)
    return bool(reply == example)


class PromptExample:
    """A format example shown in a prompt, and the test whether a reply copied it.

    Args:
        value: the example as shown (a JSON object).
        markers: texts no genuine reply contains; a reply with a string containing one is a
            copy. Default: the example's placeholders, its strings written `<like this>`.
        feedback: what the model is told when it copied (fed back on the retry).
    """

    def __init__(
        self,
        value: Mapping[str, Any],
        *,
        markers: Sequence[str] | None = None,
        feedback: str = "you copied the format example from the prompt; reply with your own content for this input",
    ) -> None:
        self.value = dict(value)
        if markers is None:
            markers = [t for t in string_leaves(self.value) if t.startswith("<") and t.endswith(">")]
        self.markers = tuple(dict.fromkeys(m for m in (_norm(x) for x in markers) if m))
        self.feedback = feedback

    @property
    def text(self) -> str:
        """The example as it appears in the prompt (compact JSON)."""
        return json.dumps(self.value, ensure_ascii=False)

    def format_section(self, model: object, how: str = "replace every value with your own") -> str:
        """The prompt's closing format section: "" when `model` enforces the output schema.

        Otherwise a new line, `Format (<how>):` and the example (`text`), to append to the prompt's
        last line. An enforced schema already fixes the format, and shown values anchor a small
        model: the embedded 0.5B gave a judge example's scores back as its own verdict, and shown
        `needs_tool: false` a small teacher answered with it whatever its reason said.

        Args:
            model: the `ChatModel` the prompt is for (its profile says whether it enforces schemas).
            how: what to replace, in the section's heading (`replace every <...>`).
        """
        return "" if enforces_schema(model) else f"\nFormat ({how}):\n{self.text}"

    def copied(self, reply: BaseModel | Mapping[str, Any]) -> bool:
        """Whether `reply` equals the example or repeats one of its markers."""
        data = reply.model_dump(mode="json") if isinstance(reply, BaseModel) else reply
        if _same(data, self.value):
            return True
        return any(marker in _norm(s) for s in string_leaves(data) for marker in self.markers)


class ReplyCheck(Generic[T]):
    """The `check=` of one `ask_structured` request: copy detection, then the stage's check.

    Args:
        examples: the prompt's examples, shown or hidden: a hidden one is still tested, since a
            cached or echoed format is no more a reply than a copied one.
        check: the stage's semantic check; a bare message is coded `invalid_output`.
    """

    def __init__(self, *examples: PromptExample, check: Callable[[T], CheckOutcome] | None = None) -> None:
        self.examples = list(examples)
        self.check = check
        self._last: tuple[str, str] | None = None

    def __call__(self, value: T) -> str | None:
        """The feedback for an unusable reply, None for a usable one (records the failure's code)."""
        copied = next((e for e in self.examples if e.copied(value)), None)
        if copied is not None:
            self._last = (COPIED_EXAMPLE, copied.feedback)
            return copied.feedback
        outcome = self.check(value) if self.check is not None else None
        if outcome is None:
            self._last = None
            return None
        self._last = outcome if isinstance(outcome, tuple) else ("invalid_output", outcome)
        return self._last[1]

    def reason(self, result: StructuredResult[T]) -> str | None:
        """The reason code of `result`: the check's own code when its failure ended the request."""
        if result.value is not None:
            return None
        if result.reason_code == "invalid_output" and self._last is not None and self._last[1] == result.detail:
            return self._last[0]
        return result.reason_code or "invalid_output"

    def settle(self, result: StructuredResult[T]) -> StructuredResult[T]:
        """`result` with `reason_code` set to `reason(result)` (a check's code may lie outside `ReasonCode`)."""
        reason = self.reason(result)
        return result if reason == result.reason_code else dataclasses.replace(result, reason_code=reason)  # type: ignore[arg-type]

    async def ask(
        self, model: Any, prompt: str, output_type: type[T], *, settings: SamplingSettings, schema: dict[str, Any] | None = None
    ) -> StructuredResult[T]:
        """One user `prompt` asked for an `output_type` under this check, settled (`settle`).

        The prompt carries its own format section, so the schema is sent to the engine (when it
        enforces one) but not written into the prompt.
        """
        messages = [ChatMessage(role="user", content=prompt)]
        return self.settle(await ask_structured(model, messages, output_type, check=self, include_schema=False, settings=settings, schema=schema))
