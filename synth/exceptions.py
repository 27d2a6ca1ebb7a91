"""Errors raised by the synthesis pipelines.

Hierarchy::

    SynthError                      base of everything `synth` raises
    ├── LeakAuditUnavailable        the leak audit's embedding model is not installed (also a RuntimeError)
    ├── StoreCorrupt                a stage file holds a bad line before its last (edited by hand)
    ├── SchemaConversionError       a tool's input schema cannot become OpenAI `parameters` (also a ValueError)
    ├── RowError                    an imported row is neither ASTRA format, or lacks what both need (also a ValueError)
    └── CodeProblem                 control signal: generated tool code that must not run; its `code` is the
                                    rejection reason and its message the feedback for the next attempt

Misuse (an unknown stage name, no input) raises `ValueError`. Failures of a record during a
run are data, not exceptions: a rejected record is written to `rejected.jsonl` with its reason
code, and a bad input line is an `agent_sdk.JsonlProblem` counted in `stats.json` (a record,
not an exception).
"""

from __future__ import annotations

__all__ = ["CodeProblem", "LeakAuditUnavailable", "RowError", "SchemaConversionError", "StoreCorrupt", "SynthError"]


class SynthError(Exception):
    """Base class of the errors raised by `synth`."""


class LeakAuditUnavailable(SynthError, RuntimeError):
    """The embedding model of the leak audit is not installed (extra `embed`)."""


class StoreCorrupt(SynthError):
    """A line other than the last of a stage file is not valid JSON (the file was edited by hand)."""


class SchemaConversionError(SynthError, ValueError):
    """A tool's input schema cannot become an OpenAI `parameters` object."""


class RowError(SynthError, ValueError):
    """A row that is not either ASTRA format (or lacks what both need); the message names the field."""


class CodeProblem(SynthError):
    """Generated code that must not run: `code` is the rejection reason, the message is the feedback.

    Attributes:
        code: the rejection reason code, e.g. `forbidden_import`, `nondeterministic`.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
