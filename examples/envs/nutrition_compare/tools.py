"""Nutrition facts per 100 g, scaled to a portion."""

PER_100G = {
    "lentils, cooked": (116, 9.0, 20.1, 0.4),
    "brown rice, cooked": (123, 2.7, 25.6, 1.0),
    "chickpeas, cooked": (164, 8.9, 27.4, 2.6),
    "quinoa, cooked": (120, 4.4, 21.3, 1.9),
}


def nutrition(food: str, grams: float) -> str:
    """Energy and macronutrients of a portion of a food."""
    facts = PER_100G.get(food.strip().lower())
    if facts is None:
        return f"No data for {food!r}. Foods: {'; '.join(sorted(PER_100G))}."
    k = grams / 100
    kcal, protein, carbs, fat = (round(v * k, 1) for v in facts)
    return f"{grams:g} g {food}: {kcal} kcal (protein {protein} g, carbohydrate {carbs} g, fat {fat} g)"
