"""Rows in ASTRA's two formats, written for the import tests (made up; not from any release).

`rl_row()` is the note's museum example (a released-RL-style row); `pipeline_row()` is the same
task as env_synthesis pipeline output (decomposition_trace + env_result with
tool_call_statement). Both take overrides.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

QUERY = "Find the museum pass for Ana Ruiz on 2025-10-02 and tell me its entry gate."
Q1 = "What is Ana Ruiz's pass id for 2025-10-02?"
Q2 = "Which gate does pass MP-2231 enter by?"

PASS_LOOKUP = {
    "type": "function",
    "function": {
        "name": "pass_lookup",
        "description": "Find a visitor's pass by name and date.",
        "parameters": {"type": "object", "properties": {"name": {"type": "string"}, "date": {"type": "string"}}, "required": ["name", "date"]},
    },
}
GATE_FOR_PASS = {
    "type": "function",
    "function": {
        "name": "gate_for_pass",
        "description": "Entry gate of a pass.",
        "parameters": {"type": "object", "properties": {"pass_id": {"type": "string"}}, "required": ["pass_id"]},
    },
}
PASS_LOOKUP_CODE = (
    "def pass_lookup(name, date):\n"
    "    return {'pass_id': 'MP-2231'} if (name, date) == ('Ana Ruiz', '2025-10-02') else {'error': 'not found'}"
)
GATE_FOR_PASS_CODE = "def gate_for_pass(pass_id):\n    return {'gate': 'North 3'} if pass_id == 'MP-2231' else {'error': 'unknown pass'}"

TICKET_UUID = {
    "type": "function",
    "function": {
        "name": "issue_ticket",
        "description": "Issue a ticket for a visitor.",
        "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    },
}
TICKET_UUID_CODE = "import uuid\n\ndef issue_ticket(name):\n    return {'name': name, 'ticket': 'TK-' + uuid.uuid4().hex[:8]}"
TICKET_TIME_CODE = "import datetime\n\ndef issue_ticket(name):\n    return {'name': name, 'issued_at': datetime.datetime.now().isoformat()}"


def rl_row(**over: Any) -> dict[str, Any]:
    """The note's made-up example, as a released RL row."""
    row = {
        "query": QUERY,
        "tool_schema": [PASS_LOOKUP, GATE_FOR_PASS],
        "tool_dict": {"pass_lookup": PASS_LOOKUP_CODE, "gate_for_pass": GATE_FOR_PASS_CODE},
        "sub_qa_dict": {
            "1": {"question": Q1, "answer": "MP-2231", "dependency": []},
            "2": {"question": Q2, "answer": "North 3", "dependency": [1]},
        },
    }
    return {**copy.deepcopy(row), **over}


def node_result(question: str, answer: str, tool_document: Any, statement: str | None, code: str, output: str) -> dict[str, Any]:
    """One `env_result` entry as ASTRA's step 4 writes it."""
    data = {"tool_document": tool_document, "tool_call_statement": statement, "code": code, "tool_call_ans": output}
    return {"question": question, "answer": answer, "env_synthesis_result": {"data": data, "extra_info": {"tool_deployment_result": {}}}}


def pipeline_row(**over: Any) -> dict[str, Any]:
    """The same task as env_synthesis pipeline output: a DAG of three nodes, one needing no tool."""
    row = {
        "main_question": QUERY,
        "main_answer": "North 3",
        "tool_necessity_legitimacy": True,
        "verify_result": {"score": 0.92, "reason": "atomic and complete"},
        "decomposition_trace": [
            {"_uuid": 1, "sub_question": Q1, "sub_answer": "MP-2231", "dependency": "null", "hop_level": 1, "tool_necessity": True},
            {"_uuid": 2, "sub_question": Q2, "sub_answer": "North 3", "dependency": 1, "hop_level": 2, "tool_necessity": True},
            {"_uuid": 3, "sub_question": "Which city is the museum in?", "sub_answer": "Lisbon", "dependency": None, "hop_level": 1,
             "tool_necessity": False},
        ],
        "env_result": {
            "1": node_result(Q1, "MP-2231", json.dumps(PASS_LOOKUP["function"]), 'pass_lookup(name="Ana Ruiz", date="2025-10-02")',
                             PASS_LOOKUP_CODE, "{'pass_id': 'MP-2231'}\n"),
            "2": node_result(Q2 + "\n- Additional Information\n[{'question': '...', 'answer': 'MP-2231'}]", "North 3", GATE_FOR_PASS,
                             "print(gate_for_pass('MP-2231'))", GATE_FOR_PASS_CODE, "{'gate': 'North 3'}\n"),
            "3": None,
        },
    }
    return {**copy.deepcopy(row), **over}


def write_jsonl(path: Path, *rows: dict[str, Any] | str) -> Path:
    """Write rows (objects, or raw text for a broken line) one per line."""
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows), encoding="utf-8")
    return path
