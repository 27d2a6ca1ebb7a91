"""Look up an exchange rate, then convert with it (en, multi_hop)."""

CODE = '''"""Reference exchange rates and a converter."""

RATES = {
    ("EUR", "USD", "2025-03-03"): 1.0484,
    ("EUR", "USD", "2025-03-04"): 1.0621,
    ("GBP", "JPY", "2025-03-03"): 189.37,
    ("USD", "CHF", "2025-03-03"): 0.8997,
}


def get_exchange_rate(base: str, quote: str, date: str) -> str:
    """The reference rate of one currency against another on a date."""
    rate = RATES.get((base.upper(), quote.upper(), date))
    if rate is None:
        return f"No reference rate for {base}/{quote} on {date}."
    return f"Reference rate on {date}: 1 {base.upper()} = {rate} {quote.upper()}"


def convert_amount(amount: float, rate: float) -> str:
    """Multiply an amount by an exchange rate, rounded to cents."""
    return f"{amount:,.2f} x {rate} = {amount * rate:,.2f}"
'''

_CCY = {"type": "string", "pattern": "^[A-Z]{3}$"}

FIELDS = {
    "domain": "finance",
    "language": "en",
    "task": {
        "question": "How many US dollars was EUR 2,500 worth at the reference rate of 3 March 2025?",
        "answer": "USD 2,621.00",
        "scenario": "multi_hop",
    },
    "subtasks": [
        {"id": "rate", "question": "What was the EUR/USD reference rate on 2025-03-03?", "answer": "1.0484",
         "golden_call": {"tool": "get_exchange_rate",
                         "arguments": {"base": "EUR", "quote": "USD", "date": "2025-03-03"}}},
        {"id": "amount", "question": "What is 2,500 x 1.0484?", "answer": "2,621.00", "depends_on": ["rate"],
         "golden_call": {"tool": "convert_amount", "arguments": {"amount": 2500, "rate": 1.0484}}},
    ],
    "tools": [
        {"name": "get_exchange_rate", "description": "Reference exchange rate base/quote on a date (YYYY-MM-DD).",
         "input_schema": {"type": "object",
                          "properties": {"base": _CCY, "quote": _CCY, "date": {"type": "string"}},
                          "required": ["base", "quote", "date"]}},
        {"name": "convert_amount", "description": "Convert an amount with a given exchange rate.",
         "input_schema": {"type": "object",
                          "properties": {"amount": {"type": "number"}, "rate": {"type": "number", "exclusiveMinimum": 0}},
                          "required": ["amount", "rate"]}},
    ],
}
