"""`CheckCode`: the declaration of one stable code a check can emit.

Every check of the project (verify here; the meaning checks, the synthesis funnels and the judges
in `synth`) declares each code it emits once, beside the module that emits it: the declarations are
data, a list in the sibling file `<module>.codes.yaml` that the module loads into its `CHECK_CODES`
tuple with `CheckCode.load_declarations(__name__)`. `synth.catalogue` collects them into the
catalogue that `astra checks` prints and `docs/checks.md` is generated from. The record lives here,
in the lowest package, because verify declares codes too and `mcp_servers` imports nothing of `synth`.

A code may be a template: `judge_<reply>` stands for `judge_` followed by any code of the family
`reply` (`judge_no_json`, `judge_copied_example`, ...), for the stages that prefix the code of an
unusable model reply with their own name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from importlib import resources

import yaml

__all__ = ["CheckCode"]

_CODE = re.compile(r"^[a-z][a-z0-9_]*(?:<[a-z_]+>)?$")
_SLOT = re.compile(r"<([a-z_]+)>")
_SUFFIX = ".codes.yaml"
"""The ending of the file beside a module that holds its declarations (`_verify_checks.codes.yaml`)."""


@dataclass(frozen=True, kw_only=True)
class CheckCode:
    """One code a check emits, with what it means and an input that triggers it.

    Attributes:
        code: the stable code as it appears in findings, `rejected.jsonl` and `stats.json`
            (lowercase snake case), or a template ending in `<family>` (`judge_<reply>`).
        family: the check that emits it (`verify`, `meaning`, `reply`, ...): `astra checks --family`.
        meaning: one line saying what is wrong when the code is emitted.
        example: a short concrete input that triggers it.

    Raises:
        ValueError: when the code is not snake case or a text is empty or runs over one line.
    """

    code: str
    family: str
    meaning: str
    example: str

    def __post_init__(self) -> None:
        if not _CODE.match(self.code):
            raise ValueError(f"check code {self.code!r}: lowercase snake case, optionally ending in a <family> slot")
        for name in ("family", "meaning", "example"):
            text = getattr(self, name)
            if not text.strip() or "\n" in text:
                raise ValueError(f"check code {self.code!r}: {name} must be one line of text")

    @property
    def slot(self) -> str | None:
        """The family whose codes fill the template's slot (`reply` for `judge_<reply>`), None for a plain code."""
        found = _SLOT.search(self.code)
        return found.group(1) if found else None

    @property
    def prefix(self) -> str:
        """The code before its slot (`judge_` for `judge_<reply>`; the whole code for a plain one)."""
        return _SLOT.sub("", self.code)

    @classmethod
    def load_declarations(cls, module: str) -> tuple[CheckCode, ...]:
        """The codes `module` (a dotted name: pass `__name__`) declares, in the order of its `<module>.codes.yaml`.

        The file beside the module is a YAML list of mappings with exactly the keys `code`, `family`,
        `meaning` and `example`, each a one-line string.

        Raises:
            ValueError: when the file is not YAML, is no such list, or a declaration is malformed (see the class).
            FileNotFoundError: when the module has no declarations file beside it.
        """
        package, _, name = module.rpartition(".")
        where = f"{module.replace('.', '/')}{_SUFFIX}"
        text = resources.files(package).joinpath(name + _SUFFIX).read_text(encoding="utf-8")
        try:
            declared = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ValueError(f"{where}: not YAML: {exc}") from exc
        keys = [f.name for f in fields(cls)]
        if not isinstance(declared, list):
            raise ValueError(f"{where}: a list of declarations ({', '.join(keys)}) is expected")
        for i, entry in enumerate(declared):
            if not isinstance(entry, dict) or sorted(entry) != sorted(keys) or not all(isinstance(v, str) for v in entry.values()):
                raise ValueError(f"{where}: declaration {i + 1} must map exactly {', '.join(keys)} to strings, not {entry!r}")
        return tuple(cls(**entry) for entry in declared)
