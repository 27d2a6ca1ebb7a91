"""快递轨迹查询（样例数据）。"""

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
