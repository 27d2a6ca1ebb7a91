"""影院排片与票价（样例数据）。"""

SESSIONS = {
    "XH0809-02": ("星河影城", "2025-08-09", "14:30", "山海行", "2号厅", 45, 61),
    "XH0809-04": ("星河影城", "2025-08-09", "19:20", "山海行", "3号厅", 55, 8),
    "XH0809-05": ("星河影城", "2025-08-09", "21:50", "山海行", "IMAX厅", 68, 23),
    "XH0809-06": ("星河影城", "2025-08-09", "20:00", "风起长街", "1号厅", 42, 37),
    "XH0810-01": ("星河影城", "2025-08-10", "22:10", "山海行", "IMAX厅", 72, 40),
    "JM0809-01": ("金幕国际影城", "2025-08-09", "22:30", "山海行", "5号厅", 39, 50),
}


def list_sessions(cinema: str, date: str, movie: str | None = None) -> str:
    """某影院某天的场次，按开场时间排序。"""
    cinemas = sorted({s[0] for s in SESSIONS.values()})
    if cinema.strip() not in cinemas:
        return f"未找到影院「{cinema}」。可查影院：{'、'.join(cinemas)}"
    rows = sorted((s[2], sid, s) for sid, s in SESSIONS.items()
                  if s[0] == cinema.strip() and s[1] == date and movie in (None, s[3]))
    if not rows:
        return f"{cinema} {date} 没有符合条件的场次。"
    return f"{cinema} {date}：" + "；".join(f"{t}《{s[3]}》{s[4]} 场次 {sid}" for t, sid, s in rows)


def session_price(session_id: str) -> str:
    """场次的票价与余票。"""
    s = SESSIONS.get(session_id.strip().upper())
    if s is None:
        return f"没有场次 {session_id}，请先用 list_sessions 查询场次号。"
    cinema, date, start, movie, hall, price, left = s
    return f"{session_id.upper()}：{cinema}《{movie}》{date} {start} {hall}，票价 {price} 元，余票 {left} 张"
