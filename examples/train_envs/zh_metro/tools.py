"""某城市地铁的部分线路（样例数据）。"""

LINES = {
    "1号线": ["火车北站", "锦城广场", "文殊院", "升仙湖"],
    "18号线": ["火车南站", "锦城广场", "孵化园", "天府新站", "兴隆湖", "海昌路", "天府机场北", "科学城"],
}
# (站, 线路, 方向) -> (首班, 末班)
TIMES = {
    ("锦城广场", "18号线", "科学城"): ("06:32", "23:05"), ("锦城广场", "18号线", "火车南站"): ("06:05", "23:40"),
    ("锦城广场", "1号线", "升仙湖"): ("06:20", "23:15"), ("锦城广场", "1号线", "火车北站"): ("06:28", "23:22"),
    ("科学城", "18号线", "火车南站"): ("06:00", "22:30"),
}
STATIONS = sorted({s for stops in LINES.values() for s in stops})


def route_plan(from_station: str, to_station: str) -> str:
    """两站之间的直达线路（本数据只含无需换乘的方案）。"""
    a, b = from_station.strip(), to_station.strip()
    unknown = [s for s in (a, b) if s not in STATIONS]
    if unknown:
        return f"未知站点：{'、'.join(unknown)}。已收录站点：{'、'.join(STATIONS)}"
    for line, stops in LINES.items():
        if a in stops and b in stops and a != b:
            i, j = stops.index(a), stops.index(b)
            direction = stops[-1] if j > i else stops[0]
            n = abs(j - i)
            return f"{a} → {b}：乘坐 {line}（往{direction}方向），{n} 站，约 {n * 2 + 2} 分钟，无需换乘"
    return f"{a} 到 {b} 需要换乘，暂不支持。"


def first_last_train(station: str, line: str, direction: str) -> str:
    """首末班车时间。"""
    if station not in STATIONS:
        return f"未知站点 {station}。"
    lines = [ln for ln, stops in LINES.items() if station in stops]
    if line not in lines:
        return f"{station}站没有{line}。经过本站的线路：{'、'.join(lines)}"
    t = TIMES.get((station, line, direction))
    if t is None:
        ends = f"{LINES[line][0]}、{LINES[line][-1]}"
        return f"{line}在{station}站没有往{direction}的方向。可选方向：{ends}"
    return f"{line} {station}站 往{direction}方向：首班 {t[0]}，末班 {t[1]}"
