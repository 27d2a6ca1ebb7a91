"""BFCL-v3 multi-turn through MCP: BFCL's executable backends as MCP servers, scored by bfcl-eval.

Importing this package points `BFCL_PROJECT_ROOT` at a private temporary directory when it is
unset: bfcl-eval reads it at import time and otherwise writes into its own install location.
"""

import os
import tempfile

os.environ.setdefault("BFCL_PROJECT_ROOT", tempfile.mkdtemp(prefix="astra-bfcl-"))

from harness.bfcl._data import CATEGORIES, BfclEntry, load_entries  # noqa: E402
from harness.bfcl._run import EntryOutcome, play_entry, replay_ground_truth  # noqa: E402
from harness.bfcl._score import score_entry, write_result_file  # noqa: E402
from harness.bfcl._server import BfclEpisode, call_string, parse_call_string  # noqa: E402

__all__ = [
    "CATEGORIES",
    "BfclEntry",
    "BfclEpisode",
    "EntryOutcome",
    "call_string",
    "load_entries",
    "parse_call_string",
    "play_entry",
    "replay_ground_truth",
    "score_entry",
    "write_result_file",
]
