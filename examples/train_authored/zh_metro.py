"""地铁：先查该坐哪条线，再查这条线的首班车 (zh, multi_hop)."""


FIELDS = {
    "domain": "public transit",
    "language": "zh",
    "task": {"question": "我明早要从锦城广场坐地铁去科学城，该坐几号线？往科学城方向的首班车几点从锦城广场开？",
             "answer": "坐18号线，首班车 06:32", "scenario": "multi_hop"},
    "subtasks": [
        {"id": "line", "question": "从锦城广场到科学城应该乘坐哪条线路？", "answer": "18号线",
         "golden_call": {"tool": "route_plan", "arguments": {"from_station": "锦城广场", "to_station": "科学城"}}},
        {"id": "first", "question": "18号线锦城广场站往科学城方向的首班车是几点？", "answer": "06:32", "depends_on": ["line"],
         "golden_call": {"tool": "first_last_train",
                         "arguments": {"station": "锦城广场", "line": "18号线", "direction": "科学城"}}},
    ],
    "tools": [
        {"name": "route_plan", "description": "地铁换乘方案：两站之间乘坐的线路、方向、站数和用时。",
         "input_schema": {"type": "object", "properties": {"from_station": {"type": "string"}, "to_station": {"type": "string"}},
                          "required": ["from_station", "to_station"]}},
        {"name": "first_last_train", "description": "某站某线路某方向的首班车和末班车时间。",
         "input_schema": {"type": "object",
                          "properties": {"station": {"type": "string"},
                                         "line": {"type": "string", "pattern": "^[0-9]{1,2}号线$"},
                                         "direction": {"type": "string", "description": "终点站方向，如 科学城"}},
                          "required": ["station", "line", "direction"]}},
    ],
}
