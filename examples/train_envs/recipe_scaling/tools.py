"""A small recipe box; quantities scale linearly with servings."""

RECIPES = {
    "buckwheat galettes": {
        "serves": 4,
        "ingredients": [(250, "g", "buckwheat flour"), (2, "", "eggs"), (500, "ml", "milk"), (30, "g", "butter"),
                        (1, "tsp", "salt")],
        "steps": "Whisk flour, salt, eggs and milk; rest 1 hour; cook thin in butter, 2 min a side.",
    },
    "shakshuka": {
        "serves": 2,
        "ingredients": [(400, "g", "chopped tomatoes"), (4, "", "eggs"), (1, "", "red pepper"), (1, "tsp", "cumin")],
        "steps": "Soften pepper, add tomatoes and cumin, simmer 10 min, poach the eggs in the sauce.",
    },
    "oat pancakes": {
        "serves": 3,
        "ingredients": [(120, "g", "rolled oats"), (1, "", "banana"), (2, "", "eggs"), (150, "ml", "milk")],
        "steps": "Blend everything, rest 5 min, fry small pancakes.",
    },
}


def _amount(quantity: float, unit: str, item: str) -> str:
    return f"{quantity:g} {unit} {item}" if unit else f"{quantity:g} {item}"


def get_recipe(name: str, servings: int | None = None) -> str:
    """Ingredients scaled to `servings`, then the method."""
    recipe = RECIPES.get(name.strip().lower())
    if recipe is None:
        return f"No recipe called {name!r}. Recipes: {', '.join(sorted(RECIPES))}."
    n = servings or recipe["serves"]
    factor = n / recipe["serves"]
    lines = [_amount(round(q * factor, 2), unit, item) for q, unit, item in recipe["ingredients"]]
    return f"{name.strip().lower()} ({n} servings):\n- " + "\n- ".join(lines) + f"\nMethod: {recipe['steps']}"


def search_recipes(ingredient: str) -> str:
    """Names of recipes that use an ingredient."""
    word = ingredient.strip().lower()
    names = sorted(n for n, r in RECIPES.items() if any(word in item for _, _, item in r["ingredients"]))
    return ", ".join(names) if names else f"No recipe uses {ingredient!r}."
