"""高铁车次查询：先找最早车次，再查到站时间 (zh, multi_hop)."""


FIELDS = {
    "domain": "travel",
    "language": "zh",
    "task": {"question": "2025年5月1日从上海虹桥到南京南最早的一班高铁几点到达？", "answer": "07:31",
             "scenario": "multi_hop"},
    "subtasks": [
        {"id": "earliest", "question": "2025-05-01 上海虹桥到南京南最早的车次是哪一班？", "answer": "G7001",
         "golden_call": {"tool": "search_trains",
                         "arguments": {"from_station": "上海虹桥", "to_station": "南京南", "date": "2025-05-01"}}},
        {"id": "arrival", "question": "G7001 几点到达南京南？", "answer": "07:31", "depends_on": ["earliest"],
         "golden_call": {"tool": "train_detail", "arguments": {"train_no": "G7001"}}},
    ],
    "tools": [
        {"name": "search_trains", "description": "按出发站、到达站、日期查询高铁车次及发车时间。",
         "input_schema": {"type": "object",
                          "properties": {"from_station": {"type": "string"}, "to_station": {"type": "string"},
                                         "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}},
                          "required": ["from_station", "to_station", "date"]}},
        {"name": "train_detail", "description": "查询车次的出发、到达时间。",
         "input_schema": {"type": "object", "properties": {"train_no": {"type": "string"}},
                          "required": ["train_no"]}},
    ],
}
