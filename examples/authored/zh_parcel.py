"""两个快递单号分别查询 (zh, parallel_single_hop)."""


FIELDS = {
    "domain": "logistics",
    "language": "zh",
    "task": {"question": "我的两个快递 SF1402587736 和 YT8830216649 现在分别到哪儿了？",
             "answer": "SF1402587736 到达杭州转运中心；YT8830216649 已由李明轩签收",
             "scenario": "parallel_single_hop"},
    "subtasks": [
        {"id": "sf", "question": "SF1402587736 最新到达哪里？", "answer": "杭州转运中心",
         "golden_call": {"tool": "track_parcel", "arguments": {"tracking_no": "SF1402587736"}}},
        {"id": "yt", "question": "YT8830216649 的签收人是谁？", "answer": "李明轩",
         "golden_call": {"tool": "track_parcel", "arguments": {"tracking_no": "YT8830216649"}}},
    ],
    "tools": [
        {"name": "track_parcel", "description": "根据快递单号查询物流状态与轨迹。",
         "input_schema": {"type": "object",
                          "properties": {"tracking_no": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{10}$"}},
                          "required": ["tracking_no"]}},
    ],
}
