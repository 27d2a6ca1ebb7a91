"""充电站实时空闲桩与分时电价（样例数据）。"""

STATIONS = {
    "CD-3107": ("深大北门充电站", "南山科技园", (2, 8), (4, 6), 0.40),
    "CD-3112": ("科苑地铁站充电站", "南山科技园", (5, 10), (0, 4), 0.40),
    "CD-3120": ("高新南九道充电站", "南山科技园", (1, 12), (3, 3), 0.50),
    "CD-2201": ("后海大道充电站", "南山后海", (6, 6), (2, 2), 0.45),
}
PERIODS = {"峰时": ("10:00-12:00、14:00-19:00", 1.12), "平时": ("07:00-10:00、12:00-14:00、19:00-23:00", 0.68),
           "谷时": ("23:00-07:00", 0.35)}


def nearby_stations(area: str) -> str:
    """片区内的充电站和空闲桩数（空闲/总数）。"""
    rows = [(sid, s) for sid, s in sorted(STATIONS.items()) if s[1] == area.strip()]
    if not rows:
        return f"没有收录「{area}」的充电站。可查片区：{'、'.join(sorted({s[1] for s in STATIONS.values()}))}"
    return f"{area.strip()}附近充电站：" + "；".join(
        f"{sid} {s[0]} 快充空闲 {s[2][0]}/{s[2][1]}，慢充空闲 {s[3][0]}/{s[3][1]}" for sid, s in rows)


def charging_price(station_id: str, period: str) -> str:
    """某时段的电费 + 服务费。"""
    s = STATIONS.get(station_id.strip().upper())
    if s is None:
        return f"没有充电站 {station_id}。"
    hours, energy = PERIODS[period]
    total = energy + s[4]
    return (f"{station_id.upper()} {s[0]} {period}（{hours}）：电费 {energy:.2f} 元/度 + 服务费 {s[4]:.2f} 元/度，"
            f"合计 {total:.2f} 元/度")
