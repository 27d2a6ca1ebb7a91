"""Daily bars of three listed companies over one week (2025-02-17 was a market holiday)."""

BARS = {
    ("HLVM", "2025-02-13"): (47.20, 47.95, 46.88, 47.71, 982_400),
    ("HLVM", "2025-02-14"): (47.90, 48.55, 47.62, 48.17, 1_204_300),
    ("HLVM", "2025-02-18"): (48.05, 48.40, 46.93, 47.02, 1_530_900),
    ("QLBT", "2025-02-13"): (109.10, 111.80, 108.75, 111.35, 640_150),
    ("QLBT", "2025-02-14"): (111.50, 113.20, 110.95, 112.60, 702_880),
    ("QLBT", "2025-02-18"): (112.10, 115.45, 111.70, 114.90, 811_020),
    ("ORNX", "2025-02-14"): (23.45, 23.90, 23.10, 23.38, 2_118_000),
}
PROFILES = {
    "HLVM": "Halvorsen Marine ASA (Oslo Bors): ship design and offshore service vessels.",
    "QLBT": "Quillon Biotech Inc. (NASDAQ): antibody therapies for autoimmune disease.",
    "ORNX": "Ornex Logistics plc (LSE): contract warehousing in northern Europe.",
}


def get_daily_bar(symbol: str, date: str) -> str:
    """One day's price bar; closes are in US dollars."""
    symbol = symbol.upper()
    if symbol not in PROFILES:
        return f"Unknown symbol {symbol}. Symbols: {', '.join(sorted(PROFILES))}."
    bar = BARS.get((symbol, date))
    if bar is None:
        days = sorted(d for s, d in BARS if s == symbol)
        return f"No trading data for {symbol} on {date} (weekend, holiday or out of range). Days with data: {', '.join(days)}."
    o, h, low, c, v = bar
    return f"{symbol} {date}: open {o:.2f}, high {h:.2f}, low {low:.2f}, close USD {c:.2f}, volume {v:,}"


def company_profile(symbol: str) -> str:
    """What the company does and where it is listed."""
    return PROFILES.get(symbol.upper(), f"Unknown symbol {symbol}. Symbols: {', '.join(sorted(PROFILES))}.")
