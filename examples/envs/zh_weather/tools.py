"""城市逐日天气预报（固定样例数据）。"""

WEATHER = {
    ("杭州", "2025-04-18"): ("小雨转阴", 14, 21, "东北风 3 级"),
    ("杭州", "2025-04-19"): ("多云", 15, 24, "东风 2 级"),
    ("成都", "2025-04-18"): ("阴转多云", 16, 23, "微风"),
    ("哈尔滨", "2025-04-18"): ("晴间多云", 2, 13, "西北风 4 级"),
}


def get_weather(city: str, date: str) -> str:
    """查询某城市某日的天气。"""
    hit = WEATHER.get((city.strip().removesuffix("市"), date))
    if hit is None:
        return f"暂无{city}在{date}的天气数据。"
    sky, low, high, wind = hit
    return f"{city} {date}：{sky}，气温 {low}~{high}°C，{wind}。"
