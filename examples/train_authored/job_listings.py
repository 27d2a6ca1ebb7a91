"""A job search narrowed by optional filters (en, single_hop; an unneeded detail tool)."""


FIELDS = {
    "domain": "jobs",
    "language": "en",
    "task": {
        "question": "What's the salary range for the remote backend engineer job at Brightwell Labs?",
        "answer": "EUR 68,000-82,000 a year",
        "scenario": "single_hop",
    },
    "subtasks": [
        {"id": "salary", "question": "What salary does Brightwell Labs offer for its remote backend engineer opening?",
         "answer": "EUR 68,000-82,000",
         "golden_call": {"tool": "search_jobs",
                         "arguments": {"query": "backend engineer", "company": "Brightwell Labs", "remote": True}}},
    ],
    "tools": [
        {"name": "search_jobs", "description": "Search open job listings by title words, optionally by company and remote only.",
         "input_schema": {"type": "object",
                          "properties": {"query": {"type": "string", "minLength": 2, "description": "Words of the job title"},
                                         "company": {"type": "string"},
                                         "remote": {"type": "boolean", "description": "Only fully remote jobs"}},
                          "required": ["query"]}},
        {"name": "job_detail", "description": "The full description of one job listing.",
         "input_schema": {"type": "object", "properties": {"job_id": {"type": "string", "pattern": "^JB-[0-9]{4}$"}},
                          "required": ["job_id"]}},
    ],
}
