"""veRL's SFT dataset over the SFT parquet that `agent_sdk.write_sft_parquet` writes.

veRL's reader hands each cell to the chat template as stored; our columns are JSON (so that
rows with different tool schemas stay exact), so this subclass decodes them right after
veRL reads the files. Select it in a veRL SFT config with::

    data.custom_cls.path=pkg://rl.verl
    data.custom_cls.name=JsonMultiTurnSFTDataset

Importing this module needs veRL (extra `verl`).
"""

from __future__ import annotations

import json
from typing import Any

from verl.utils.dataset.multiturn_sft_dataset import MultiTurnSFTDataset

__all__ = ["JsonMultiTurnSFTDataset"]


def _decode(value: Any) -> Any:
    if isinstance(value, str):
        return json.loads(value)
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


class JsonMultiTurnSFTDataset(MultiTurnSFTDataset):
    """`MultiTurnSFTDataset` whose `messages` and `tools` columns hold JSON values."""

    def _read_files_and_process(self) -> None:
        super()._read_files_and_process()
        for key in (self.messages_key, self.tools_key):
            if key in self.dataframe.columns:
                self.dataframe[key] = self.dataframe[key].astype(object).map(_decode)
        self.messages = self.dataframe[self.messages_key].tolist()
        self.tools = self.dataframe[self.tools_key].tolist() if self.tools_key in self.dataframe.columns else None
