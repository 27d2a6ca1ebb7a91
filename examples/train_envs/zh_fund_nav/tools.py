"""基金净值（样例数据）。"""

FUNDS = {"018832": "青禾稳健混合A", "270419": "远帆科技创新股票C", "501106": "润泽纯债债券"}
NAV = {
    ("018832", "2025-03-06"): (1.8339, 2.0973, "-0.12%"), ("018832", "2025-03-07"): (1.8423, 2.1057, "+0.46%"),
    ("270419", "2025-03-06"): (0.9712, 0.9712, "+1.05%"), ("270419", "2025-03-07"): (0.9637, 0.9637, "-0.77%"),
    ("501106", "2025-03-07"): (1.0841, 1.3320, "+0.02%"),
}


def fund_nav(fund_code: str, date: str) -> str:
    """某基金某日净值。"""
    name = FUNDS.get(fund_code)
    if name is None:
        return f"未找到基金代码 {fund_code}。"
    row = NAV.get((fund_code, date))
    if row is None:
        days = sorted(d for c, d in NAV if c == fund_code)
        return f"{fund_code} {name} 在 {date} 没有净值（非交易日或尚未公布）。有数据的日期：{'、'.join(days)}"
    unit, total, change = row
    return f"{fund_code} {name} {date}：单位净值 {unit:.4f}，累计净值 {total:.4f}，日增长率 {change}"
