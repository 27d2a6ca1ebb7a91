"""药店库存：某药店某药还剩几盒 (zh, single_hop；找药店的工具用不到)."""


FIELDS = {
    "domain": "pharmacy",
    "language": "zh",
    "task": {"question": "滨江的康宁大药房还有布洛芬缓释胶囊吗？还剩几盒？", "answer": "有，还剩 14 盒", "scenario": "single_hop"},
    "subtasks": [
        {"id": "stock", "question": "康宁大药房滨江店的布洛芬缓释胶囊库存是多少？", "answer": "14 盒",
         "golden_call": {"tool": "check_stock", "arguments": {"pharmacy": "康宁大药房滨江店", "drug": "布洛芬缓释胶囊"}}},
    ],
    "tools": [
        {"name": "check_stock", "description": "查询某家药店某种药品的规格、库存和价格。",
         "input_schema": {"type": "object",
                          "properties": {"pharmacy": {"type": "string", "description": "药店名称，含分店名"},
                                         "drug": {"type": "string", "description": "药品通用名"}},
                          "required": ["pharmacy", "drug"]}},
        {"name": "nearby_pharmacies", "description": "列出某个区的药店及营业时间。",
         "input_schema": {"type": "object", "properties": {"district": {"type": "string"}}, "required": ["district"]}},
    ],
}
