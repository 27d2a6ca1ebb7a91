"""A scripted LLM for synth/env tests: answers each stage's prompt from a `Script`.

The reply is chosen by the stage (recognised from the first user message) and, for a tool's
data rows, by the attempt number (how many rows replies that tool was already given).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_sdk import ChatMessage, read_jsonl

LANDMARK_ROWS = json.dumps({"rows": [
    {"key": ["colosseum"], "value": "Rome", "details": "Italy"},
    {"key": ["big ben"], "value": "London"},
    {"key": ["sagrada familia"], "value": "Barcelona"},
]})

WEATHER_ROWS = json.dumps({"rows": [
    {"key": ["rome"], "value": "24°C"},
    {"key": ["berlin"], "value": "12°C", "details": "light rain"},
    {"key": ["madrid"], "value": "27°C"},
]}, ensure_ascii=False)


def rows(*items: tuple[list[str], str]) -> str:
    """A rows reply: `(key, value)` pairs."""
    return json.dumps({"rows": [{"key": k, "value": v} for k, v in items]}, ensure_ascii=False)


def doc(name: str, params: dict[str, str], golden: dict[str, Any], description: str = "Look up data.") -> str:
    return json.dumps(
        {
            "tool": {
                "name": name,
                "description": description,
                "parameters": {"type": "object", "properties": {k: {"type": v} for k, v in params.items()}, "required": list(params)},
            },
            "golden_arguments": golden,
        },
        ensure_ascii=False,
    )


@dataclass
class Script:
    """Replies per stage. Lists are consumed per attempt; a callable gets the messages."""

    decompose: list[Any] = field(default_factory=lambda: [json.dumps({
        "main_question": "What is the current temperature in the city where the Eiffel Tower stands?",
        "final_answer": "18°C",
        "sub_questions": [
            {"id": "q1", "question": "In which city is the Eiffel Tower located?", "answer": "Paris", "depends_on": []},
            {"id": "q2", "question": "What is the current temperature in Paris?", "answer": "18°C", "depends_on": ["q1"]},
        ],
    })])
    necessity: Any = None
    judge: Any = '{"reason": "looks right", "verdict": "yes"}'
    docs: dict[str, Any] = field(default_factory=lambda: {
        "q1": doc("get_landmark_city", {"landmark": "string"}, {"landmark": "Eiffel Tower"}, "Find the city of a landmark."),
        "q2": doc("get_city_weather", {"city": "string"}, {"city": "Paris"}, "Current weather of a city."),
    })
    scale: Any = None
    rows: dict[str, list[Any]] = field(default_factory=lambda: {
        "get_landmark_city": [LANDMARK_ROWS],
        "get_city_weather": [WEATHER_ROWS],
    })
    groups: Any = '{"groups": []}'
    merged: Any = None
    crash_on: str | None = None
    log: list[str] = field(default_factory=list)

    def __call__(self, messages: list[ChatMessage], tools: Any, settings: Any) -> Any:
        if len(messages) > 3 and messages[2].role == "assistant" and "Break the main question into" in (messages[1].content or ""):
            assert json.loads(messages[2].content)["sub_questions"], "the worked example is a whole decomposition"
            messages = [messages[0], *messages[3:]]  # the worked example's turn: the script answers the request after it
        first = next(m.content or "" for m in messages if m.role == "user")
        answered = sum(1 for m in messages if m.role == "assistant")
        stage, key = self._stage(first)
        self.log.append(f"{stage}:{key}")
        if self.crash_on is not None and f"{stage}:{key}" == self.crash_on:
            raise Crash(self.crash_on)
        reply = self._reply(stage, key, first, answered)
        return reply(messages) if callable(reply) else reply

    def _stage(self, first: str) -> tuple[str, str]:
        if "Break the main question into" in first:
            return "decompose", ""
        if "For every id decide needs_tool" in first:
            return "necessity", ""
        if "Judge this criterion only" in first:
            return "check", re.search(r"Judge this criterion only.\n(\w+)", first).group(1).lower()
        if "Judge lookup" in first:
            return "check", "coherence"
        if "Design one reusable API tool" in first:
            return "doc", re.search(r"Sub-question \((\w+)\)", first).group(1)
        if "Write the arguments of the call to" in first:
            return "args", re.search(r"answers sub-question (\w+)\.", first).group(1)
        if "Make this tool more realistic" in first:
            return "scale", json.loads(first.split("Tool document:\n", 1)[1].split("\n\n", 1)[0])["name"]
        if "Its data already has these inputs" in first:
            return "inputs", re.search(r"Tool: (\w+)\(", first).group(1)
        if "Its data table has rows for" in first:
            return "rows", re.search(r"Tool: (\w+)\(", first).group(1)
        if "Group the sub-questions" in first:
            return "groups", ""
        if "share one intent" in first:
            return "merged", ""
        raise AssertionError(f"unrecognised prompt: {first[:200]}")

    def _reply(self, stage: str, key: str, first: str, answered: int) -> Any:
        if stage == "decompose":
            return self.decompose[min(answered, len(self.decompose) - 1)]
        if stage == "necessity":
            if self.necessity is not None:
                return self.necessity
            ids = re.search(r"Give one item per id \(([^)]*)\)", first).group(1).split(", ")
            return json.dumps({"items": [{"id": i, "needs_tool": True, "reason": "needs a lookup"} for i in ids]})
        if stage == "check":
            return self.judge[key] if isinstance(self.judge, dict) else self.judge
        if stage == "doc":  # a list: one reply per attempt, the last one repeated
            attempts = self.docs[key] if isinstance(self.docs[key], list) else [self.docs[key]]
            done = sum(1 for entry in self.log[:-1] if entry == f"doc:{key}")
            return attempts[min(done, len(attempts) - 1)]
        if stage == "args":
            # the golden call is asked for after the document: replay the one written beside the last
            written = self.docs[key][-1] if isinstance(self.docs[key], list) else self.docs[key]
            return json.dumps(json.loads(written)["golden_arguments"], ensure_ascii=False)
        if stage == "scale":
            if self.scale is not None:
                return self.scale.get(key, "no") if isinstance(self.scale, dict) else self.scale
            base = json.loads(first.split("Tool document:\n", 1)[1].split("\n\n", 1)[0])
            props = dict(base["parameters"]["properties"])
            props["language" if "landmark" in props else "units"] = {"type": "string", "enum": ["en", "fr"] if "landmark" in props else ["metric", "imperial"]}
            return json.dumps({**base, "parameters": {**base["parameters"], "properties": props}})
        if stage == "inputs":
            return self._inputs(key, first)
        if stage == "rows":
            attempts = self.rows[key]
            done = sum(1 for entry in self.log[:-1] if entry == f"rows:{key}")
            return attempts[min(done, len(attempts) - 1)]
        if stage == "groups":
            return self.groups
        if stage == "merged":
            return self.merged
        raise AssertionError(stage)


    def _inputs(self, tool: str, first: str) -> str:
        """Other inputs: the keys of the tool's first rows reply (what a model would then write rows for)."""
        params = [p.strip() for p in re.search(rf"Tool: {tool}\(([^)]*)\)", first).group(1).split(",")]
        reply = self.rows[tool][0]
        text = reply([ChatMessage(role="user", content=first)] * 2) if callable(reply) else reply
        try:
            keys = [row["key"] for row in json.loads(text)["rows"]]
        except (ValueError, KeyError, TypeError):
            keys = [[f"other {i}"] * len(params) for i in range(4)]
        keys = (keys * 4)[:4]
        return json.dumps({p: [k[i] for k in keys] for i, p in enumerate(params)}, ensure_ascii=False)


class Crash(BaseException):
    """Simulates the process dying mid-run (not an Exception, so nothing catches it)."""


QUESTION_ROW = {"question": "What is the current temperature in the city where the Eiffel Tower stands?", "domain": "travel"}


def write_rows(path: Path, *rows: dict) -> Path:
    """`rows` written to `path` as JSONL."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def rejected(out: Path) -> list[dict]:
    """The records of a run's `rejected.jsonl` (none when nothing was rejected)."""
    p = out / "rejected.jsonl"
    return read_jsonl(p).values if p.exists() else []
