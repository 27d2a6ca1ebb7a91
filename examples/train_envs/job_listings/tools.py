"""A job board with a few open listings."""

JOBS = {
    "JB-1182": ("Backend Engineer (Go)", "Brightwell Labs", "remote", "EUR 68,000-82,000",
                "Payments platform team; Go, PostgreSQL, Kafka; 4-day week."),
    "JB-1183": ("Senior Backend Engineer", "Brightwell Labs", "Berlin office", "EUR 85,000-98,000",
                "Lead the ledger service; on-call one week in six."),
    "JB-1207": ("Backend Engineer", "Corvid Analytics", "remote", "EUR 60,000-70,000", "Python and ClickHouse."),
    "JB-1240": ("Frontend Engineer", "Brightwell Labs", "remote", "EUR 62,000-75,000", "React and TypeScript."),
}


def search_jobs(query: str, company: str | None = None, remote: bool | None = None) -> str:
    """Listings whose title contains every query word, with salary ranges per year."""
    words = query.lower().split()
    rows = [(jid, j) for jid, j in sorted(JOBS.items())
            if all(w in j[0].lower() for w in words)
            and (company is None or j[1].lower() == company.strip().lower())
            and (remote is None or (j[2] == "remote") == remote)]
    if not rows:
        return f"No open jobs match {query!r} with these filters."
    return "\n".join(f"{jid} {title}, {co}, {where}, {salary} a year" for jid, (title, co, where, salary, _) in rows)


def job_detail(job_id: str) -> str:
    """One listing in full."""
    j = JOBS.get(job_id.strip().upper())
    if j is None:
        return f"No job listing {job_id}."
    title, co, where, salary, text = j
    return f"{job_id.upper()} {title} at {co} ({where}), {salary} a year. {text}"
