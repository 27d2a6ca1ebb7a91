"""充电站：先找空闲快充桩最多的站，再查谷时电价 (zh, multi_hop；时段为枚举)."""


FIELDS = {
    "domain": "ev charging",
    "language": "zh",
    "task": {"question": "我在南山科技园，附近哪个充电站现在空闲的快充桩最多？那里夜里谷时充电每度多少钱？",
             "answer": "科苑地铁站充电站（CD-3112），谷时合计 0.75 元/度", "scenario": "multi_hop"},
    "subtasks": [
        {"id": "station", "question": "南山科技园附近空闲快充桩最多的充电站是哪个？", "answer": "CD-3112",
         "golden_call": {"tool": "nearby_stations", "arguments": {"area": "南山科技园"}}},
        {"id": "price", "question": "CD-3112 谷时每度电合计多少钱？", "answer": "0.75 元/度", "depends_on": ["station"],
         "golden_call": {"tool": "charging_price", "arguments": {"station_id": "CD-3112", "period": "谷时"}}},
    ],
    "tools": [
        {"name": "nearby_stations", "description": "查询某片区附近的充电站及快充、慢充桩空闲数量。",
         "input_schema": {"type": "object", "properties": {"area": {"type": "string"}}, "required": ["area"]}},
        {"name": "charging_price", "description": "查询充电站某个时段的电费、服务费和每度合计价格。",
         "input_schema": {"type": "object",
                          "properties": {"station_id": {"type": "string", "pattern": "^CD-[0-9]{4}$"},
                                         "period": {"type": "string", "enum": ["峰时", "平时", "谷时"]}},
                          "required": ["station_id", "period"]}},
    ],
}
