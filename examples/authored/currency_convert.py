"""Look up an exchange rate, then convert with it (en, multi_hop)."""


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
