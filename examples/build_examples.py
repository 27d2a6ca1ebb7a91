"""Regenerate `examples/envs/` and `examples/broken/` from their authored sources.

Usage: `python examples/build_examples.py` (from the repository root or anywhere).

Each `examples/authored/<slug>.py` defines `CODE` (the tool module) and `FIELDS` (the spec
fields without `id`); `Environment.build` computes the content-derived id, so an edit to
the code, the tools or the task changes the id. `examples/authored/_broken.py` defines one
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


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_authored_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _source(path: Path) -> dict[str, str]:
    return {"kind": "authored", "ref": str(path.relative_to(HERE.parent))}


def build_envs(out: Path) -> list[Path]:
    """Write every authored environment into `out/<slug>/`."""
    written = []
    for path in sorted(AUTHORED.glob("[!_]*.py")):
        module = _load(path)
        env = Environment.build(module.CODE, source=_source(path), **module.FIELDS)
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
    for name, builder in (("envs", build_envs), ("broken", build_broken)):
        out = HERE / name
        if out.exists():
            shutil.rmtree(out)
        paths = builder(out)
        print(f"{out}: {len(paths)} environments", file=sys.stderr)


if __name__ == "__main__":
    main()
