"""The repository stands alone: no tracked source reaches for a path outside its own root.

The planted escapes the checks must catch are kept as data in `outside_paths.txt` beside this file. Data the
commands and tests read is vendored in `data/` (`synth.core.DATA_DIR`); a path outside
the checkout may only come from the user (an argument or an environment variable). Two ways code
used to escape, both caught here by reading the source:

- a literal naming a sibling of the checkout (relative, as a pathlib join, or this machine's `/work/...`);
- `Path(__file__).parents[k]` (or a `.parent` chain) climbing above the repository root.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from synth.core import DATA_DIR

REPO = Path(__file__).resolve().parents[1]
SOURCE_SUFFIXES = {".py", ".sh", ".toml", ".txt", ".cfg", ".ini", ".yaml", ".yml"}
OUTSIDE = re.compile(
    r"\.\./shared\b"  # the sibling folder, relative
    r"|\bshared/data\b"
    r"|[\"']shared[\"']\s*/|/\s*[\"']shared[\"']"  # a pathlib join on the quoted folder name
    r"|[\"']/work/"  # this machine's workspace, absolute
)
PLANTED = Path(__file__).resolve().with_name("outside_paths.txt")
"""Lines that reach outside a checkout, one per line: what `OUTSIDE` must catch."""
CLIMB = re.compile(r"__file__\)(?:\.resolve\(\))?(?:\.parents\[(\d+)\])?((?:\.parent\b)*)")


def tracked_sources() -> list[Path]:
    """Tracked source and script files, the vendored data, this file and its planted cases excepted."""
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    paths = [REPO / line for line in listed.splitlines()]
    return [
        p for p in paths
        if (p.suffix in SOURCE_SUFFIXES or p.parent.name in (".ci", "scripts"))
        and p.parts[len(REPO.parts)] != "data" and p not in (Path(__file__).resolve(), PLANTED) and p.is_file()
    ]  # fmt: skip


def climbs_out(source: str, depth: int) -> list[str]:
    """The `Path(__file__)` expressions in `source` that resolve above a root `depth` folders up."""
    found = []
    for match in CLIMB.finditer(source):
        index, chain = match.group(1), match.group(2)
        if index is None and not chain:
            continue
        # parents[k] is k + 1 folders up from the file; each `.parent` one more
        up = (int(index) + 1 if index is not None else 0) + chain.count(".parent")
        if up > depth:
            found.append(match.group(0))
    return found


def test_the_checks_catch_what_they_are_for() -> None:
    planted = PLANTED.read_text(encoding="utf-8").splitlines()
    assert len(planted) == 2 and all(OUTSIDE.search(line) for line in planted)
    assert not OUTSIDE.search("the shared prompt is encoded once; shared_prefix(group)")
    # a file two folders deep: parents[2] is the repository root, parents[3] its parent
    assert climbs_out("Path(__file__).resolve().parents[3]", depth=3) == ["__file__).resolve().parents[3]"]
    assert climbs_out("Path(__file__).resolve().parents[2].parent", depth=3)
    assert climbs_out("Path(__file__).parent.parent.parent.parent", depth=3)
    assert not climbs_out("Path(__file__).resolve().parents[2] / 'data'", depth=3)
    assert not climbs_out("Path(__file__).with_name('slice.jsonl')", depth=3)


def test_no_tracked_source_names_a_path_outside_the_repository() -> None:
    problems = []
    for path in tracked_sources():
        where = path.relative_to(REPO)
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                problems.append(f"{where}:{number}: {line.strip()}")
        if path.suffix == ".py":
            # a file at a/b/c.py sits 2 folders below the root: up to 2 + 1 steps stay inside
            problems += [f"{where}: climbs out: {expr}" for expr in climbs_out(text, len(where.parts))]
    assert problems == [], "read vendored data through synth.core.DATA_DIR instead:\n" + "\n".join(problems)


def test_the_vendored_data_is_inside_the_repository() -> None:
    assert DATA_DIR == REPO / "data" and DATA_DIR.is_dir()
    for relative in ("astra/knowledge/en/domains.jsonl", "astra/knowledge/zh/domains.jsonl", "astra/knowledge/en/context.jsonl",
                     "astra/knowledge/en/questions.jsonl", "astra/LICENSE", "astra/SOURCE.txt", "acebench/LICENSE.md", "acebench/SOURCE.txt"):
        assert (DATA_DIR / relative).is_file(), relative
