"""The catalogue of checks: every stable code a check emits, with its meaning and a failing example.

Each check declares its codes once, beside itself: the `CHECK_CODES` tuple of the module that emits
it (`mcp_servers._verify_checks` for verify, `synth.env._meaning` for the meaning checks, ...), which
the module loads from the data file beside it (`_meaning.codes.yaml`) with
`CheckCode.load_declarations(__name__)`. This module collects them, in the order of `SOURCES`, and
renders them for `astra checks` and `docs/checks.md` (generated: `astra checks --markdown > docs/checks.md`).

A new check declares a code by adding an entry (`code`, `family`, `meaning`, `example`) to its
module's `<module>.codes.yaml` (a module that declares its first code gets the file, the
`CHECK_CODES = CheckCode.load_declarations(__name__)` line and a line in `SOURCES`);
`tests/synth/test_catalogue.py` fails while a code the source emits is not declared, a declared code
is emitted nowhere, or `docs/checks.md` is not regenerated.

A code ending in a `<family>` slot is a template: `judge_<reply>` is `judge_` followed by a code of
the family `reply`. A rejection that joins several codes (`verify_failed:answer_missing,timeout`)
is found by the code before its colon.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import mcp_servers
from mcp_servers import CheckCode
from synth.core import checks as core_checks
from synth.core import structured
from synth.env import (
    _assemble,
    _code,
    _import_formats,
    _judge,
    _meaning,
    _merge,
    _tools,
    corpus_audit,
    importer,
    pipeline,
)
from synth.sft import (
    _answer_shape,
    _docs,
    _grounding,
    _request_shape,
    _rollout,
    _verify,
)
from synth.sft import _judge as sft_judge
from synth.world import _walk as world_walk
from synth.world import pipeline as world_pipeline
from synth.sft import _pipeline as sft_pipeline

__all__ = ["FAMILIES", "SOURCES", "Catalogue", "load_catalogue"]

FAMILIES: dict[str, str] = {
    "verify": "`astra env verify`: an environment is executable and self-consistent (findings of `verify.json`)",
    "meaning": "the meaning checks after verify: an environment's task means something (env synthesis and `astra env audit`)",
    "reply": "a structured model request unusable on every attempt; stages record these codes, some behind a prefix of their own",
    "env_synth": "`astra env synth`: why a stage rejected a sample (`rejected.jsonl`), besides the verify, meaning and reply codes",
    "env_import": "`astra env import`: defects of ASTRA's own rows (`import_report.jsonl`), besides the verify codes",
    "corpus_audit": "the leak audit of a synthesized corpus: an item that matches the development set or a benchmark",
    "world_synth": "`astra env synth --world`: why a walk over a world, or the environment built from it, was rejected (`rejected.jsonl`), besides the verify and meaning codes",
    "sft_ingest": "`astra sft synth`, ingest: a server or a tool dropped from the tool documents",
    "sft_chain": "`astra sft synth`, chains: a sampled tool chain rejected",
    "sft_request": "`astra sft synth`, tasks and score: a task's text that is no request a user would send",
    "sft_pipeline": "`astra sft synth`: rejections the stages add to their checks' codes (graph, tasks, score, rollout, judge, export)",
    "sft_rollout": "`astra sft synth`, rollout: a rollout that is no usable conversation (played again up to `attempts` times)",
    "sft_judge": "the trajectory judge: what a conversation shows about itself, and the judge's own failure",
}
"""Every family, in catalogue order, with what its codes are about."""

SOURCES: tuple[tuple[str, Sequence[CheckCode]], ...] = (
    ("mcp_servers._verify_checks", mcp_servers.CHECK_CODES),
    ("synth.env._meaning", _meaning.CHECK_CODES),
    ("synth.core.structured", structured.CHECK_CODES),
    ("synth.core.checks", core_checks.CHECK_CODES),
    ("synth.env._judge", _judge.CHECK_CODES),
    ("synth.env._tools", _tools.CHECK_CODES),
    ("synth.env._code", _code.CHECK_CODES),
    ("synth.env._merge", _merge.CHECK_CODES),
    ("synth.env._assemble", _assemble.CHECK_CODES),
    ("synth.env.pipeline", pipeline.CHECK_CODES),
    ("synth.env.importer", importer.CHECK_CODES),
    ("synth.env._import_formats", _import_formats.CHECK_CODES),
    ("synth.env.corpus_audit", corpus_audit.CHECK_CODES),
    ("synth.world._walk", world_walk.CHECK_CODES),
    ("synth.world.pipeline", world_pipeline.CHECK_CODES),
    ("synth.sft._docs", _docs.CHECK_CODES),
    ("synth.sft._verify", _verify.CHECK_CODES),
    ("synth.sft._request_shape", _request_shape.CHECK_CODES),
    ("synth.sft._pipeline", sft_pipeline.CHECK_CODES),
    ("synth.sft._rollout", _rollout.CHECK_CODES),
    ("synth.sft._answer_shape", _answer_shape.CHECK_CODES),
    ("synth.sft._grounding", _grounding.CHECK_CODES),
    ("synth.sft._judge", sft_judge.CHECK_CODES),
)
"""Every module that declares codes (its dotted name) and its `CHECK_CODES`."""


@dataclass(frozen=True)
class Catalogue:
    """Every declared code, with the module that declares it.

    Attributes:
        codes: the declarations, by family in `FAMILIES` order, each family in declaration order.
        modules: the declaring module of each code.
    """

    codes: tuple[CheckCode, ...]
    modules: dict[str, str]

    @classmethod
    def build(cls, sources: Sequence[tuple[str, Sequence[CheckCode]]], families: Sequence[str]) -> Catalogue:
        """The catalogue of `sources`.

        Raises:
            ValueError: when a code is declared twice, or a family (of a code or a template's slot)
                is not one of `families`.
        """
        modules: dict[str, str] = {}
        declared: list[CheckCode] = []
        for module, codes in sources:
            for code in codes:
                if code.code in modules:
                    raise ValueError(f"{code.code!r} is declared in {modules[code.code]} and again in {module}")
                unknown = {code.family, code.slot or code.family} - set(families)
                if unknown:
                    raise ValueError(f"{code.code!r} ({module}) names the unknown family {sorted(unknown)}; families: {', '.join(families)}")
                modules[code.code] = module
                declared.append(code)
        order = {name: i for i, name in enumerate(families)}
        return cls(codes=tuple(sorted(declared, key=lambda c: order[c.family])), modules=modules)

    def family(self, name: str) -> list[CheckCode]:
        """The codes of family `name`, in declaration order ([] for a family without codes)."""
        return [c for c in self.codes if c.family == name]

    def expand(self, code: CheckCode) -> list[str]:
        """The concrete codes `code` stands for: itself, or a template's prefix before each code of its slot's family."""
        if code.slot is None:
            return [code.code]
        return [code.prefix + filler for c in self.family(code.slot) for filler in self.expand(c)]

    def find(self, emitted: str) -> CheckCode | None:
        """The declaration of an emitted code (`judge_no_json`, `verify_failed:a,b`), None when it has none."""
        name = emitted.split(":", 1)[0]
        return next((c for c in self.codes if name in self.expand(c)), None)

    def text(self, families: Sequence[str] | None = None) -> str:
        """The catalogue (or the given families) as plain text for a terminal."""
        shown = [f for f in FAMILIES if f in (families or FAMILIES)]
        width = max(len(c.code) for c in self.codes) + 2
        lines: list[str] = []
        for name in shown:
            lines += [f"{name}: {FAMILIES[name]}"]
            for c in self.family(name):
                lines += [f"  {c.code:<{width}}{c.meaning}", f"  {'':<{width}}e.g. {c.example}"]
            lines.append("")
        return "\n".join(lines).rstrip("\n") + "\n"

    def markdown(self) -> str:
        """`docs/checks.md`: every family as a table of code, meaning and failing example."""
        lines = [
            "# Checks and their codes",
            "",
            "<!-- Generated by `astra checks --markdown` from the `CHECK_CODES` declarations beside each check; do not edit. -->",
            "",
            "Every check reports what it finds under a stable code: in `verify.json`, `rejected.jsonl`, `stats.json`,",
            "`import_report.jsonl` and the judges' verdicts. Each code is declared once, in the module that emits it, with",
            "its meaning and a short input that triggers it; `astra checks` prints them (`--family NAME` for one family).",
            "A code ending in `<family>` stands for the prefix followed by any code of that family (`judge_<reply>`:",
            "`judge_no_json`, `judge_copied_example`, ...); a rejection that joins several codes",
            "(`verify_failed:answer_missing,timeout`) is listed under the code before its colon. A new check declares its",
            "codes as `mcp_servers.CheckCode`s in its module's `CHECK_CODES` (listed in `synth.catalogue.SOURCES`);",
            "`tests/synth/test_catalogue.py` fails while a code the source emits is undeclared or this page is stale.",
            "",
            "| Family | Codes | Declared in |",
            "|---|---|---|",
        ]
        for name in FAMILIES:
            codes = self.family(name)
            modules = ", ".join(f"`{m}`" for m in dict.fromkeys(self.modules[c.code] for c in codes))
            lines.append(f"| [{name}](#{name}) | {len(codes)} | {modules} |")
        for name, about in FAMILIES.items():
            lines += ["", f"## {name}", "", _cell(about) + ".", "", "| Code | Meaning | Failing example |", "|---|---|---|"]
            lines += [f"| `{c.code}` | {_cell(c.meaning)} | {_code_span(c.example)} |" for c in self.family(name)]
        return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """`text` fit for a Markdown table cell: pipes escaped, and `<` written as an entity outside code spans."""
    parts = text.replace("|", "\\|").split("`")
    return "`".join(p if i % 2 else p.replace("<", "&lt;") for i, p in enumerate(parts))


def _code_span(text: str) -> str:
    """`text` as a code span in a table cell (a literal input, shown as written)."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    escaped = text.replace("|", "\\|")
    return f"{fence}{pad}{escaped}{pad}{fence}"


@functools.cache
def load_catalogue() -> Catalogue:
    """The catalogue of every check of the project (`SOURCES`), built once.

    Raises:
        ValueError: when two declarations share a code or name an unknown family.
    """
    return Catalogue.build(SOURCES, list(FAMILIES))
