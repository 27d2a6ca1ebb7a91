"""电影票：先找最晚一场，再查票价 (zh, multi_hop；可选影片参数)."""


FIELDS = {
    "domain": "cinema",
    "language": "zh",
    "task": {"question": "我想看《山海行》，星河影城 2025年8月9日晚上最晚那场票价多少？", "answer": "68 元",
             "scenario": "multi_hop"},
    "subtasks": [
        {"id": "session", "question": "星河影城《山海行》在 2025-08-09 最晚的场次号是什么？", "answer": "XH0809-05",
         "golden_call": {"tool": "list_sessions",
                         "arguments": {"cinema": "星河影城", "date": "2025-08-09", "movie": "山海行"}}},
        {"id": "price", "question": "场次 XH0809-05 的票价是多少？", "answer": "68 元", "depends_on": ["session"],
         "golden_call": {"tool": "session_price", "arguments": {"session_id": "XH0809-05"}}},
    ],
    "tools": [
        {"name": "list_sessions", "description": "查询影院某天的排片：开场时间、影片、影厅、场次号。",
         "input_schema": {"type": "object",
                          "properties": {"cinema": {"type": "string"},
                                         "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                                         "movie": {"type": "string", "description": "只看这部影片"}},
                          "required": ["cinema", "date"]}},
        {"name": "session_price", "description": "查询场次的票价和余票。",
         "input_schema": {"type": "object", "properties": {"session_id": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{4}-[0-9]{2}$"}},
                          "required": ["session_id"]}},
    ],
}
