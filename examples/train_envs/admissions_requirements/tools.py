"""Admissions data of two universities."""

PROGRAMS = {
    ("northmere university", "msc data science"): {
        "level": "postgraduate", "degree": "2:1 honours degree in a quantitative subject",
        "english": "IELTS 7.0 overall with no band below 6.5", "deadline": "2025-06-30", "fee": "GBP 14,900 (home), GBP 27,300 (international)"},
    ("northmere university", "msc urban planning"): {
        "level": "postgraduate", "degree": "2:2 honours degree in any subject",
        "english": "IELTS 6.5 overall with no band below 6.0", "deadline": "2025-07-31", "fee": "GBP 12,100 (home), GBP 23,800 (international)"},
    ("northmere university", "bsc computer science"): {
        "level": "undergraduate", "degree": "AAB at A level including Mathematics",
        "english": "IELTS 6.5 overall with no band below 5.5", "deadline": "2025-01-29", "fee": "GBP 9,250 (home)"},
    ("eastbrook college", "msc data science"): {
        "level": "postgraduate", "degree": "2:1 honours degree in computing or statistics",
        "english": "IELTS 6.5 overall with 6.0 in writing", "deadline": "2025-08-15", "fee": "GBP 11,500 (home)"},
}


def program_requirements(university: str, program: str) -> str:
    """Degree and English requirements, deadline and fees."""
    uni = university.strip().lower()
    offered = sorted(p for u, p in PROGRAMS if u == uni)
    if not offered:
        return f"Unknown university {university!r}. Universities: Northmere University, Eastbrook College."
    p = PROGRAMS.get((uni, program.strip().lower()))
    if p is None:
        return f"{university.strip()} has no programme {program!r}. Programmes: {', '.join(offered)}."
    return (f"{university.strip()}, {program.strip()} ({p['level']}): {p['degree']}; English: {p['english']}; "
            f"application deadline {p['deadline']}; fees {p['fee']}")


def list_programs(university: str, level: str | None = None) -> str:
    """Programme names of a university."""
    uni = university.strip().lower()
    names = sorted(p for (u, p), v in PROGRAMS.items() if u == uni and level in (None, v["level"]))
    return ", ".join(names) if names else f"No programmes found for {university!r}."
