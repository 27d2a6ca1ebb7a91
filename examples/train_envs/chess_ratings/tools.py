"""The March 2025 rating list of a few players."""

RATINGS = {
    "ilse vandermeer": ("Ilse Vandermeer", "NED", {"classical": (2467, 2489, 341), "rapid": (2412, 2440, 120),
                                                    "blitz": (2388, 2431, 212)}),
    "pieter strand": ("Pieter Strand", "NED", {"classical": (2530, 2551, 502), "rapid": (2495, 2502, 188),
                                                "blitz": (2514, 2560, 276)}),
    "amara diallo": ("Amara Diallo", "SEN", {"classical": (2301, 2318, 97), "rapid": (2264, 2290, 45),
                                              "blitz": (2279, 2279, 60)}),
}


def player_rating(player: str, time_control: str) -> str:
    """Current and peak rating and rated games in one time control."""
    p = RATINGS.get(player.strip().lower())
    if p is None:
        return f"No rated player {player!r}. Players: {', '.join(v[0] for v in RATINGS.values())}."
    name, fed, table = p
    rating, peak, games = table[time_control]
    return f"{name} ({fed}) {time_control} rating {rating}; peak {peak}; {games} rated games"


def top_players(federation: str, time_control: str = "classical") -> str:
    """Players of a federation, best first."""
    rows = sorted(((v[2][time_control][0], v[0]) for v in RATINGS.values() if v[1] == federation), reverse=True)
    if not rows:
        return f"No rated players for federation {federation}."
    return "\n".join(f"{i}. {name} {rating}" for i, (rating, name) in enumerate(rows, 1))
