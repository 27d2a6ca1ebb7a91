"""Write `slice.jsonl`: the fixed rows on which synthesis yield is compared between models.

4 rows of each of the 10 English domains of ASTRA's `knowledge/en/context.jsonl` and 10 of its
Chinese domain rows (`knowledge/zh/domains.jsonl`), drawn with a fixed seed, never rows a prompt
was tuned on. Usage: `python examples/synth_slice/make_slice.py [KNOWLEDGE_DIR]`, by default the
vendored `data/astra/knowledge` (`synth.core.DATA_DIR`).
"""

from __future__ import annotations

import json
import random
import sys
from collections import defaultdict
from pathlib import Path

from synth.core import DATA_DIR

PER_DOMAIN = 4
ZH_ROWS = 10
SEED = 19


def main(knowledge: Path) -> None:
    rng = random.Random(SEED)
    by_domain: dict[str, list[dict]] = defaultdict(list)
    for line in (knowledge / "en" / "context.jsonl").read_text().splitlines():
        row = json.loads(line)
        by_domain[row["domain"]].append(row)
    rows = [row for domain in sorted(by_domain) for row in rng.sample(by_domain[domain], PER_DOMAIN)]
    zh = [json.loads(line) for line in (knowledge / "zh" / "domains.jsonl").read_text().splitlines()]
    rows += [{**row, "language": "zh"} for row in rng.sample(zh, ZH_ROWS)]
    out = Path(__file__).with_name("slice.jsonl")
    out.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    print(f"{out}: {len(rows)} rows")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR / "astra" / "knowledge")
