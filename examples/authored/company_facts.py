"""Company fact sheet behind one merged lookup tool (en, parallel_single_hop).

One tool, `company_lookup`, serves all three subtasks with different arguments.
"""


FIELDS = {
    "domain": "finance",
    "language": "en",
    "task": {
        "question": "Who is the CEO of Novatex Materials (NVTX), where is Kolumbo Foods (KLMB) headquartered, "
        "and how many people does Syren Optics (SYRN) employ?",
        "answer": "Priya Raman; Lagos; 12,705 employees",
        "scenario": "parallel_single_hop",
    },
    "subtasks": [
        {
            "id": "ceo",
            "question": "Who is the CEO of NVTX?",
            "answer": "Priya Raman",
            "golden_call": {"tool": "company_lookup", "arguments": {"symbol": "NVTX", "field": "ceo"}},
        },
        {
            "id": "hq",
            "question": "Where is KLMB headquartered?",
            "answer": "Lagos",
            "golden_call": {"tool": "company_lookup", "arguments": {"symbol": "KLMB", "field": "headquarters"}},
        },
        {
            "id": "staff",
            "question": "How many employees does SYRN have?",
            "answer": "12,705",
            "golden_call": {"tool": "company_lookup", "arguments": {"symbol": "SYRN", "field": "employees"}},
        },
    ],
    "tools": [
        {
            "name": "company_lookup",
            "description": "Look up one field (ceo, headquarters, employees, founded) of a listed company by ticker.",
            "input_schema": {
                "type": "object",
                "properties": {
                    "symbol": {"type": "string", "description": "Stock ticker, e.g. NVTX"},
                    "field": {"type": "string", "enum": ["ceo", "headquarters", "employees", "founded"]},
                },
                "required": ["symbol", "field"],
            },
        }
    ],
}
