"""SFT tests import the scripted world (`sft_world.py`) from this directory."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
