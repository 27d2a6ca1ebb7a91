"""Regenerate `examples/envs/`, `examples/train_envs/` and `examples/broken/` from their authored sources.

Usage: `python examples/build_examples.py` (from the repository root or anywhere).

Each environment's tool module is authored in place, `examples/envs/<slug>/tools.py`;
`examples/authored/<slug>.py` defines its `FIELDS` (the spec fields without `id`), and
`Environment.build` computes the content-derived id, so an edit to the code, the tools or
the task changes the id. The training set is authored the same way in
`examples/train_authored/<slug>.py` and `examples/train_envs/<slug>/tools.py`: environments
the loop may train on (`astra loop --train-envs examples/train_envs`) and that evaluation on
`examples/envs` never sees. `examples/authored/_broken.py` defines one
environment per verify finding code; the ones whose defect `EnvSpec` itself rejects are
written as raw env.json files, bypassing `Environment.build`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

from mcp_servers import Environment

HERE = Path(__file__).resolve().parent
AUTHORED = HERE / "authored"
ENVS = HERE / "envs"
TRAIN_AUTHORED = HERE / "train_authored"
TRAIN_ENVS = HERE / "train_envs"


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_authored_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _source(path: Path) -> dict[str, str]:
    return {"kind": "authored", "ref": str(path.relative_to(HERE.parent))}


def build_envs(out: Path, *, authored: Path = AUTHORED, tools: Path = ENVS) -> list[Path]:
    """Write every environment authored in `authored/<slug>.py` (spec fields) and
    `tools/<slug>/tools.py` (its tool module) into `out/<slug>/`."""
    written = []
    for path in sorted(authored.glob("[!_]*.py")):
        code = (tools / path.stem / "tools.py").read_text(encoding="utf-8")
        env = Environment.build(code, source=_source(path), **_load(path).FIELDS)
        written.append(env.write(out / path.stem))
    return written


def build_broken(out: Path) -> list[Path]:
    """Write one environment per finding code into `out/<code>[.<variant>]/`."""
    module = _load(AUTHORED / "_broken.py")
    written = []
    for name, (code, fields, raw) in sorted(module.BROKEN.items()):
        fields = {"source": {"kind": "authored", "ref": f"examples/authored/_broken.py:{name}"}, **fields}
        directory = out / name
        if raw:
            directory.mkdir(parents=True, exist_ok=True)
            # compute_env_id validates the tools, which these specs deliberately break.
            material = json.dumps({"fields": fields, "code": code}, sort_keys=True, ensure_ascii=False)
            spec = {"id": "env-" + hashlib.sha256(material.encode()).hexdigest()[:12], **fields}
            (directory / "env.json").write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n")
            (directory / "tools.py").write_text(code)
        else:
            Environment.build(code, **fields).write(directory)
        written.append(directory)
    return written


def main() -> None:
    paths = build_envs(ENVS)
    print(f"{ENVS}: {len(paths)} environments", file=sys.stderr)
    paths = build_envs(TRAIN_ENVS, authored=TRAIN_AUTHORED, tools=TRAIN_ENVS)
    print(f"{TRAIN_ENVS}: {len(paths)} environments", file=sys.stderr)
    broken = HERE / "broken"
    if broken.exists():
        shutil.rmtree(broken)
    paths = build_broken(broken)
    print(f"{broken}: {len(paths)} environments", file=sys.stderr)


if __name__ == "__main__":
    main()
