"""连锁药店库存（样例数据）。"""

STOCK = {
    "康宁大药房滨江店": {"布洛芬缓释胶囊": ("0.3g×20粒", 14, 18.5), "氯雷他定片": ("10mg×6片", 31, 22.0),
                   "对乙酰氨基酚片": ("0.5g×12片", 0, 6.8)},
    "康宁大药房西湖店": {"布洛芬缓释胶囊": ("0.3g×20粒", 3, 18.5), "氯雷他定片": ("10mg×6片", 9, 22.0)},
    "百草堂药店": {"布洛芬缓释胶囊": ("0.3g×24粒", 27, 21.0)},
}
DISTRICTS = {"滨江区": [("康宁大药房滨江店", "08:00-22:00"), ("百草堂药店", "24 小时")],
             "西湖区": [("康宁大药房西湖店", "08:30-21:30")]}


def check_stock(pharmacy: str, drug: str) -> str:
    """规格、库存（盒）和单价。"""
    shop = STOCK.get(pharmacy.strip())
    if shop is None:
        return f"未找到药店「{pharmacy}」。可查药店：{'、'.join(STOCK)}"
    item = shop.get(drug.strip())
    if item is None:
        return f"{pharmacy.strip()}没有「{drug}」的记录。本店可查药品：{'、'.join(shop)}"
    spec, boxes, price = item
    status = f"库存 {boxes} 盒" if boxes else "暂时缺货"
    return f"{pharmacy.strip()}：{drug.strip()} {spec}，{status}，单价 {price:.1f} 元"


def nearby_pharmacies(district: str) -> str:
    """某区的药店和营业时间。"""
    rows = DISTRICTS.get(district.strip())
    if rows is None:
        return f"暂无「{district}」的药店信息。可查：{'、'.join(DISTRICTS)}"
    return "；".join(f"{name}（{hours}）" for name, hours in rows)
