"""城市空气质量日报（样例数据）。"""

DAILY = {
    ("西安", "2025-01-14"): (181, "PM2.5", 138), ("西安", "2025-01-15"): (168, "PM2.5", 127),
    ("西安", "2025-01-16"): (152, "PM2.5", 116),
    ("西宁", "2025-01-14"): (104, "PM10", 57), ("西宁", "2025-01-15"): (96, "PM10", 48),
    ("西宁", "2025-01-16"): (88, "PM10", 41),
    ("银川", "2025-01-15"): (121, "PM10", 62),
}
LEVELS = [(50, "优"), (100, "良"), (150, "轻度污染"), (200, "中度污染"), (300, "重度污染")]


def city_air_quality(city: str, date: str) -> str:
    """某城市某天的 AQI、等级、首要污染物和 PM2.5 浓度。"""
    name = city.strip().removesuffix("市")
    cities = sorted({c for c, _ in DAILY})
    if name not in cities:
        return f"暂无「{city}」的监测数据。可查城市：{'、'.join(cities)}"
    row = DAILY.get((name, date))
    if row is None:
        return f"{name} {date} 暂无日报。有数据的日期：{'、'.join(sorted(d for c, d in DAILY if c == name))}"
    aqi, primary, pm25 = row
    level = next(label for limit, label in LEVELS if aqi <= limit)
    return f"{name} {date}：AQI {aqi}（{level}），首要污染物 {primary}，PM2.5 浓度 {pm25} 微克/立方米"
