"""What this CPU computes natively, for choosing a model's dtype (vLLM and the local backend)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["cpu_has_bf16"]


def cpu_has_bf16() -> bool:
    """Whether this CPU computes bfloat16 natively (AVX512-BF16 or AMX); elsewhere bf16 is emulated and slow."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags
