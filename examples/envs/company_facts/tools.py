"""Company fact sheets: one lookup tool for every field."""

COMPANIES = {
    "NVTX": {"name": "Novatex Materials", "ceo": "Priya Raman", "headquarters": "Rotterdam",
             "employees": 18450, "founded": 1987},
    "KLMB": {"name": "Kolumbo Foods", "ceo": "Daniel Okafor", "headquarters": "Lagos",
             "employees": 9020, "founded": 2004},
    "SYRN": {"name": "Syren Optics", "ceo": "Mei Tanaka", "headquarters": "Osaka",
             "employees": 12705, "founded": 1962},
}


def company_lookup(symbol: str, field: str) -> str:
    """One field of a listed company's fact sheet."""
    company = COMPANIES.get(symbol.strip().upper())
    if company is None:
        return f"Unknown ticker {symbol!r}; listed tickers: {', '.join(sorted(COMPANIES))}."
    value = company[field]
    if isinstance(value, int) and field == "employees":
        value = f"{value:,}"
    return f"{company['name']} ({symbol.upper()}) {field}: {value}"
