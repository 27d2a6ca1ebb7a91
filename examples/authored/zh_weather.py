"""城市天气查询 (zh, single_hop)."""


FIELDS = {
    "domain": "weather",
    "language": "zh",
    "task": {"question": "2025年4月18日杭州天气怎么样？", "answer": "小雨转阴", "scenario": "single_hop"},
    "subtasks": [
        {"id": "s1", "question": "杭州 2025-04-18 的天气状况是什么？", "answer": "小雨转阴",
         "golden_call": {"tool": "get_weather", "arguments": {"city": "杭州", "date": "2025-04-18"}}},
    ],
    "tools": [
        {"name": "get_weather", "description": "查询城市某日天气：天气状况、气温区间和风力。",
         "input_schema": {"type": "object",
                          "properties": {"city": {"type": "string", "description": "城市名，如 杭州"},
                                         "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}},
                          "required": ["city", "date"]}},
    ],
}
