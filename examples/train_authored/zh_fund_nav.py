"""两只基金同一天的单位净值 (zh, parallel_single_hop)."""


_SCHEMA = {"type": "object",
           "properties": {"fund_code": {"type": "string", "pattern": "^[0-9]{6}$"},
                          "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}},
           "required": ["fund_code", "date"]}

FIELDS = {
    "domain": "funds",
    "language": "zh",
    "task": {"question": "我买的两只基金 018832 和 270419，2025年3月7日的单位净值各是多少？",
             "answer": "018832 单位净值 1.8423；270419 单位净值 0.9637", "scenario": "parallel_single_hop"},
    "subtasks": [
        {"id": "a", "question": "018832 在 2025-03-07 的单位净值是多少？", "answer": "1.8423",
         "golden_call": {"tool": "fund_nav", "arguments": {"fund_code": "018832", "date": "2025-03-07"}}},
        {"id": "b", "question": "270419 在 2025-03-07 的单位净值是多少？", "answer": "0.9637",
         "golden_call": {"tool": "fund_nav", "arguments": {"fund_code": "270419", "date": "2025-03-07"}}},
    ],
    "tools": [
        {"name": "fund_nav", "description": "查询基金某个交易日的单位净值、累计净值和日增长率。", "input_schema": _SCHEMA},
    ],
}
