"""Air quality of two cities on one day, then a comparison without a tool (en, parallel_single_hop)."""


_SCHEMA = {"type": "object",
           "properties": {"city": {"type": "string"}, "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}},
           "required": ["city", "date"]}

FIELDS = {
    "domain": "air quality",
    "language": "en",
    "task": {
        "question": "Which city had cleaner air on 20 January 2025, Tbilisi or Yerevan?",
        "answer": "Tbilisi (AQI 87 vs AQI 142 in Yerevan)",
        "scenario": "parallel_single_hop",
    },
    "subtasks": [
        {"id": "tbilisi", "question": "What was Tbilisi's AQI on 2025-01-20?", "answer": "AQI 87",
         "golden_call": {"tool": "daily_air_quality", "arguments": {"city": "Tbilisi", "date": "2025-01-20"}}},
        {"id": "yerevan", "question": "What was Yerevan's AQI on 2025-01-20?", "answer": "AQI 142",
         "golden_call": {"tool": "daily_air_quality", "arguments": {"city": "Yerevan", "date": "2025-01-20"}}},
        {"id": "cleaner", "question": "Which of the two had the lower AQI?", "answer": "Tbilisi",
         "depends_on": ["tbilisi", "yerevan"], "needs_tool": False},
    ],
    "tools": [
        {"name": "daily_air_quality", "description": "Daily air quality index (US AQI) and pollutant levels of a city.",
         "input_schema": _SCHEMA},
    ],
}
