"""A service's status, then its open incident's expected fix (en, multi_hop; an unneeded service list)."""


FIELDS = {
    "domain": "service status",
    "language": "en",
    "task": {
        "question": "Is the Ledgerly payments API having problems right now, and when do they expect it to be fixed?",
        "answer": "Yes, it is degraded (incident INC-40877); resolution is expected by 15:00 UTC",
        "scenario": "multi_hop",
    },
    "subtasks": [
        {"id": "incident", "question": "Which open incident affects the payments-api service?", "answer": "INC-40877",
         "golden_call": {"tool": "service_status", "arguments": {"service": "payments-api"}}},
        {"id": "eta", "question": "When is INC-40877 expected to be resolved?", "answer": "15:00 UTC", "depends_on": ["incident"],
         "golden_call": {"tool": "incident_detail", "arguments": {"incident_id": "INC-40877"}}},
    ],
    "tools": [
        {"name": "list_services", "description": "Every service on the Ledgerly status page.", "input_schema": {"type": "object", "properties": {}}},
        {"name": "service_status", "description": "Current status of a Ledgerly service and its open incidents.",
         "input_schema": {"type": "object", "properties": {"service": {"type": "string", "description": "e.g. payments-api"}},
                          "required": ["service"]}},
        {"name": "incident_detail", "description": "Timeline and expected resolution of an incident.",
         "input_schema": {"type": "object", "properties": {"incident_id": {"type": "string", "pattern": "^INC-[0-9]{5}$"}},
                          "required": ["incident_id"]}},
    ],
}
