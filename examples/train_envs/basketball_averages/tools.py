"""Per-game averages of a few players in a national basketball league."""

STATS = {
    ("tobi adeyemi", "2023-24"): ("Harbor City Herons", 71, 18.9, 4.8, 6.6),
    ("tobi adeyemi", "2024-25"): ("Harbor City Herons", 68, 21.4, 5.2, 7.9),
    ("marek lindqvist", "2023-24"): ("Vale Forge", 64, 15.2, 9.7, 2.1),
    ("marek lindqvist", "2024-25"): ("Northport Comets", 75, 17.8, 10.3, 2.4),
    ("sol ibarra", "2024-25"): ("Vale Forge", 59, 12.6, 3.1, 5.5),
}


def player_season_stats(player: str, season: str) -> str:
    """Games, points, rebounds and assists per game."""
    key = player.strip().lower()
    seasons = sorted(s for p, s in STATS if p == key)
    if not seasons:
        return f"Unknown player {player!r}. Players: {', '.join(sorted({p.title() for p, _ in STATS}))}."
    row = STATS.get((key, season))
    if row is None:
        return f"No {season} stats for {player.strip()}. Seasons: {', '.join(seasons)}."
    team, games, pts, reb, ast = row
    return (f"{player.strip()} ({team}), {season}: {games} games, {pts} points, {reb} rebounds, "
            f"{ast} assists per game")
