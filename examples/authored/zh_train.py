"""高铁车次查询：先找最早车次，再查到站时间 (zh, multi_hop)."""

CODE = '''"""高铁时刻表（样例数据）。"""

TRAINS = {
    "G7001": {"from": "上海虹桥", "to": "南京南", "date": "2025-05-01", "depart": "06:18", "arrive": "07:31"},
    "G7003": {"from": "上海虹桥", "to": "南京南", "date": "2025-05-01", "depart": "06:45", "arrive": "08:02"},
    "G7011": {"from": "上海虹桥", "to": "南京南", "date": "2025-05-01", "depart": "08:10", "arrive": "09:26"},
    "G7002": {"from": "南京南", "to": "上海虹桥", "date": "2025-05-01", "depart": "07:05", "arrive": "08:19"},
}


def search_trains(from_station: str, to_station: str, date: str) -> str:
    """按出发站、到达站和日期列出车次，按发车时间排序。"""
    rows = sorted((t["depart"], no) for no, t in TRAINS.items()
                  if (t["from"], t["to"], t["date"]) == (from_station, to_station, date))
    if not rows:
        return f"{date} 没有从{from_station}到{to_station}的车次。"
    return "；".join(f"{no} {dep} 发车" for dep, no in rows)


def train_detail(train_no: str) -> str:
    """查询某车次的到站时间。"""
    t = TRAINS.get(train_no.strip().upper())
    if t is None:
        return f"未找到车次 {train_no}。"
    return f"{train_no.upper()}：{t['from']} {t['depart']} 开，{t['arrive']} 到达{t['to']}"
'''

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
