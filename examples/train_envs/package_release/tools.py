"""A tiny package index."""

RELEASES = {
    "quillpy": [("3.1.0", "2024-09-12", ">=3.9", ["regex"], "MIT"), ("3.2.0", "2025-01-20", ">=3.9", ["regex"], "MIT"),
                ("3.2.1", "2025-03-04", ">=3.10", ["regex", "typing-extensions"], "MIT")],
    "nimbus-cache": [("0.9.3", "2024-11-02", ">=3.8", [], "Apache-2.0"),
                     ("0.9.4", "2025-02-27", ">=3.9", ["msgpack"], "Apache-2.0")],
    "tallow": [("1.0.0", "2023-06-30", ">=3.7", ["click"], "BSD-3-Clause")],
}


def latest_release(package: str) -> str:
    """The newest version and its release date."""
    rows = RELEASES.get(package)
    if rows is None:
        return f"No package named {package!r} on the index."
    version, date, *_ = rows[-1]
    return f"{package} latest release: {version} (published {date}); {len(rows)} releases in total"


def release_info(package: str, version: str) -> str:
    """Requirement, dependencies and licence of one release."""
    rows = RELEASES.get(package)
    if rows is None:
        return f"No package named {package!r} on the index."
    for v, date, python, deps, licence in rows:
        if v == version:
            return (f"{package} {v} (published {date}): requires Python {python}; "
                    f"dependencies: {', '.join(deps) or 'none'}; licence {licence}")
    return f"{package} has no release {version}. Releases: {', '.join(r[0] for r in rows)}."
