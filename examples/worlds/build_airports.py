"""Build `airports.sqlite` from two data packages: airportsdata (airports) and pycountry (ISO 3166).

A real database that no one here wrote, for `astra env synth --world`: three tables with
primary and foreign keys. Only airports with an IATA code are kept (the ones travellers name).

    python examples/worlds/build_airports.py [OUT]   # default: runs/worlds/airports.sqlite
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import airportsdata
import pycountry

SCHEMA = """
CREATE TABLE countries (
    alpha_2 TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    alpha_3 TEXT NOT NULL,
    numeric_code TEXT NOT NULL
);
CREATE TABLE subdivisions (
    code TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    category TEXT NOT NULL,
    country TEXT NOT NULL REFERENCES countries(alpha_2)
);
CREATE TABLE airports (
    iata TEXT PRIMARY KEY,
    icao TEXT,
    name TEXT NOT NULL,
    city TEXT,
    region TEXT,
    country TEXT NOT NULL REFERENCES countries(alpha_2),
    elevation_ft INTEGER,
    timezone TEXT
);
"""


def build(out: Path) -> Path:
    """Write the database to `out` (replaced if present) and return its path."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    db = sqlite3.connect(out)
    db.executescript(SCHEMA)
    countries = {c.alpha_2: c for c in pycountry.countries}
    db.executemany("INSERT INTO countries VALUES (?, ?, ?, ?)", [(c.alpha_2, c.name, c.alpha_3, c.numeric) for c in countries.values()])
    db.executemany(
        "INSERT INTO subdivisions VALUES (?, ?, ?, ?)",
        [(s.code, s.name, s.type, s.country_code) for s in pycountry.subdivisions if s.country_code in countries],
    )
    airports = airportsdata.load("IATA")
    db.executemany(
        "INSERT INTO airports VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (code, a["icao"] or None, a["name"], a["city"] or None, a["subd"] or None, a["country"], int(a["elevation"] or 0), a["tz"] or None)
            for code, a in sorted(airports.items())
            if a["country"] in countries
        ],
    )
    db.commit()
    db.close()
    return out


if __name__ == "__main__":
    print(build(Path(sys.argv[1] if len(sys.argv) > 1 else "runs/worlds/airports.sqlite")))
