"""两个快递单号分别查询 (zh, parallel_single_hop)."""

CODE = '''"""快递轨迹查询（样例数据）。"""

PARCELS = {
    "SF1402587736": [("04-20 09:12", "深圳宝安揽收"), ("04-21 02:40", "到达杭州转运中心")],
    "YT8830216649": [("04-19 16:05", "广州白云揽收"), ("04-20 20:31", "到达北京顺义分拨中心"),
                     ("04-21 10:02", "已签收，签收人：李明轩")],
    "JD0071934520": [("04-21 08:00", "武汉仓出库")],
}


def track_parcel(tracking_no: str) -> str:
    """查询快递单号的最新物流状态和完整轨迹。"""
    events = PARCELS.get(tracking_no.strip().upper())
    if events is None:
        return f"查无此单：{tracking_no}"
    history = "；".join(f"{when} {what}" for when, what in events)
    return f"{tracking_no} 最新状态：{events[-1][1]}（轨迹：{history}）"
'''

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
