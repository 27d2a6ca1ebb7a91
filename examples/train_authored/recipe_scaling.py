"""A recipe scaled to a number of servings (en, single_hop; an optional parameter, an unneeded search tool)."""


FIELDS = {
    "domain": "recipes",
    "language": "en",
    "task": {
        "question": "I'm making buckwheat galettes for 6 people. How much buckwheat flour do I need?",
        "answer": "375 g buckwheat flour",
        "scenario": "single_hop",
    },
    "subtasks": [
        {"id": "flour", "question": "How much buckwheat flour does the buckwheat galettes recipe need for 6 servings?",
         "answer": "375 g buckwheat flour",
         "golden_call": {"tool": "get_recipe", "arguments": {"name": "buckwheat galettes", "servings": 6}}},
    ],
    "tools": [
        {"name": "get_recipe", "description": "A recipe's ingredients and steps, scaled to a number of servings.",
         "input_schema": {"type": "object",
                          "properties": {"name": {"type": "string", "description": "Recipe name, e.g. shakshuka"},
                                         "servings": {"type": "integer", "minimum": 1, "maximum": 24,
                                                      "description": "Scale to this many servings (default: the recipe's own)"}},
                          "required": ["name"]}},
        {"name": "search_recipes", "description": "Recipe names that use an ingredient.",
         "input_schema": {"type": "object", "properties": {"ingredient": {"type": "string"}}, "required": ["ingredient"]}},
    ],
}
