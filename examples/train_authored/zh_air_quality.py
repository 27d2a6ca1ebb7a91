"""两座城市同一天的空气质量，再比较 (zh, parallel_single_hop)."""


_SCHEMA = {"type": "object",
           "properties": {"city": {"type": "string"}, "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}},
           "required": ["city", "date"]}

FIELDS = {
    "domain": "air quality",
    "language": "zh",
    "task": {"question": "2025年1月15日，西安和西宁哪个城市的空气更好？", "answer": "西宁（AQI 96，西安 AQI 168）",
             "scenario": "parallel_single_hop"},
    "subtasks": [
        {"id": "xian", "question": "西安 2025-01-15 的空气质量指数是多少？", "answer": "AQI 168",
         "golden_call": {"tool": "city_air_quality", "arguments": {"city": "西安", "date": "2025-01-15"}}},
        {"id": "xining", "question": "西宁 2025-01-15 的空气质量指数是多少？", "answer": "AQI 96",
         "golden_call": {"tool": "city_air_quality", "arguments": {"city": "西宁", "date": "2025-01-15"}}},
        {"id": "better", "question": "两座城市哪个空气更好？", "answer": "西宁", "depends_on": ["xian", "xining"], "needs_tool": False},
    ],
    "tools": [
        {"name": "city_air_quality", "description": "查询城市某天的空气质量指数（AQI）、等级和首要污染物。", "input_schema": _SCHEMA},
    ],
}
