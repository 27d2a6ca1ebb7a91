"""Energy of two portions, then a comparison without a tool (en, parallel_single_hop)."""


_SCHEMA = {
    "type": "object",
    "properties": {
        "food": {"type": "string", "description": "e.g. 'lentils, cooked'"},
        "grams": {"type": "number", "exclusiveMinimum": 0, "maximum": 2000},
    },
    "required": ["food", "grams"],
}

FIELDS = {
    "domain": "nutrition",
    "language": "en",
    "task": {
        "question": "Which has more energy: 150 g of cooked lentils or 200 g of cooked brown rice?",
        "answer": "200 g of brown rice (246 kcal vs 174 kcal)",
        "scenario": "parallel_single_hop",
    },
    "subtasks": [
        {"id": "lentils", "question": "How many kcal are in 150 g of cooked lentils?", "answer": "174 kcal",
         "golden_call": {"tool": "nutrition", "arguments": {"food": "lentils, cooked", "grams": 150}}},
        {"id": "rice", "question": "How many kcal are in 200 g of cooked brown rice?", "answer": "246 kcal",
         "golden_call": {"tool": "nutrition", "arguments": {"food": "brown rice, cooked", "grams": 200}}},
        {"id": "compare", "question": "Which portion has more energy?", "answer": "brown rice",
         "depends_on": ["lentils", "rice"], "needs_tool": False},
    ],
    "tools": [
        {"name": "nutrition", "description": "Energy (kcal) and macronutrients of a portion of a food.",
         "input_schema": _SCHEMA}
    ],
}
