"""Find a book in the catalogue, then the branch that has it on the shelf (en, multi_hop).

Two of the four tools (holds, branch hours) are plausible but not needed.
"""


FIELDS = {
    "domain": "libraries",
    "language": "en",
    "task": {
        "question": "Is The Salt Road by Mira Okafor on the shelf anywhere in the Fernhill libraries right now? "
        "Which branch should I go to?",
        "answer": "Yes, at the Riverside Branch (shelf mark 823.92 OKA)",
        "scenario": "multi_hop",
    },
    "subtasks": [
        {"id": "find", "question": "What is the catalogue id of the print edition of The Salt Road by Mira Okafor?",
         "answer": "FH-40912",
         "golden_call": {"tool": "search_catalog", "arguments": {"query": "The Salt Road"}}},
        {"id": "branch", "question": "Which Fernhill branch has FH-40912 on the shelf?", "answer": "Riverside Branch",
         "depends_on": ["find"], "golden_call": {"tool": "get_copies", "arguments": {"book_id": "FH-40912"}}},
    ],
    "tools": [
        {"name": "search_catalog", "description": "Search the Fernhill library catalogue by title or author words.",
         "input_schema": {"type": "object",
                          "properties": {"query": {"type": "string", "minLength": 2, "description": "Title or author words"},
                                         "media": {"type": "string", "enum": ["book", "audiobook", "ebook"],
                                                   "description": "Only this format (default: all)"}},
                          "required": ["query"]}},
        {"name": "get_copies", "description": "Where the copies of a catalogue item are and whether each is on the shelf.",
         "input_schema": {"type": "object",
                          "properties": {"book_id": {"type": "string", "pattern": "^FH-[0-9]{5}$"}},
                          "required": ["book_id"]}},
        {"name": "place_hold", "description": "Reserve a catalogue item for a library card; returns the queue position.",
         "input_schema": {"type": "object",
                          "properties": {"book_id": {"type": "string", "pattern": "^FH-[0-9]{5}$"},
                                         "card_number": {"type": "string", "pattern": "^[0-9]{8}$"}},
                          "required": ["book_id", "card_number"]}},
        {"name": "branch_hours", "description": "Opening hours and address of a library branch.",
         "input_schema": {"type": "object", "properties": {"branch": {"type": "string"}}, "required": ["branch"]}},
    ],
}
