"""Drug reference lookup (en, single_hop)."""


FIELDS = {
    "domain": "medical",
    "language": "en",
    "task": {
        "question": "What is the usual adult dose of amoxicillin?",
        "answer": "500 mg every 8 hours",
        "scenario": "single_hop",
    },
    "subtasks": [
        {"id": "dose", "question": "What is the usual adult dose of amoxicillin?", "answer": "500 mg every 8 hours",
         "golden_call": {"tool": "drug_info", "arguments": {"name": "amoxicillin"}}},
    ],
    "tools": [
        {
            "name": "drug_info",
            "description": "Reference card for a drug: class, usual adult dose, maximum daily dose, pregnancy note.",
            "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        }
    ],
}
