"""Two closing prices on one trading day (en, parallel_single_hop; a company-profile tool that is not needed)."""


_SYMBOL = {"type": "string", "pattern": "^[A-Z]{2,5}$", "description": "Ticker symbol, e.g. HLVM"}

FIELDS = {
    "domain": "stock quotes",
    "language": "en",
    "task": {
        "question": "What did Halvorsen Marine (HLVM) and Quillon Biotech (QLBT) close at on 14 February 2025?",
        "answer": "HLVM closed at USD 48.17 and QLBT at USD 112.60",
        "scenario": "parallel_single_hop",
    },
    "subtasks": [
        {"id": "hlvm", "question": "What was HLVM's closing price on 2025-02-14?", "answer": "USD 48.17",
         "golden_call": {"tool": "get_daily_bar", "arguments": {"symbol": "HLVM", "date": "2025-02-14"}}},
        {"id": "qlbt", "question": "What was QLBT's closing price on 2025-02-14?", "answer": "USD 112.60",
         "golden_call": {"tool": "get_daily_bar", "arguments": {"symbol": "QLBT", "date": "2025-02-14"}}},
    ],
    "tools": [
        {"name": "get_daily_bar", "description": "Open, high, low, close and volume of a stock on one trading day.",
         "input_schema": {"type": "object",
                          "properties": {"symbol": _SYMBOL, "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}},
                          "required": ["symbol", "date"]}},
        {"name": "company_profile", "description": "Sector, exchange and description of a listed company.",
         "input_schema": {"type": "object", "properties": {"symbol": _SYMBOL}, "required": ["symbol"]}},
    ],
}
