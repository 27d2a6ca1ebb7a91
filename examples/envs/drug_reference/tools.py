"""A pocket drug reference (illustrative data, not medical advice)."""

DRUGS = {
    "amoxicillin": {"class": "penicillin antibiotic", "adult_dose": "500 mg every 8 hours",
                    "max_daily": "3 g", "pregnancy": "generally considered safe"},
    "ibuprofen": {"class": "NSAID analgesic", "adult_dose": "200-400 mg every 4-6 hours",
                  "max_daily": "1.2 g without supervision", "pregnancy": "avoid in the third trimester"},
    "metformin": {"class": "biguanide antidiabetic", "adult_dose": "500 mg twice daily with meals",
                  "max_daily": "2.55 g", "pregnancy": "used under specialist care"},
}


def drug_info(name: str) -> dict:
    """Class, usual adult dose, maximum daily dose and pregnancy note of a drug."""
    entry = DRUGS.get(name.strip().lower())
    if entry is None:
        return {"error": f"{name} is not in the reference", "known": sorted(DRUGS)}
    return {"drug": name.strip().lower(), **entry}
