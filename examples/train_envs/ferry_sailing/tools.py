"""An island ferry operator's routes, timetable and fleet."""

ROUTES = {
    "RT-031": ("Kelmarsh", "Brannock", "Islewind Ferries", 55),
    "RT-032": ("Brannock", "Kelmarsh", "Islewind Ferries", 55),
    "RT-044": ("Kelmarsh", "Oldhaven", "Islewind Ferries", 90),
}
# sailing id -> (route, date, departure, vessel, car spaces left)
SAILINGS = {
    "S-5521": ("RT-031", "2025-06-21", "06:40", "MV Corran Star", 12),
    "S-5522": ("RT-031", "2025-06-21", "09:15", "MV Heather Isle", 0),
    "S-5523": ("RT-031", "2025-06-21", "13:30", "MV Heather Isle", 21),
    "S-5524": ("RT-031", "2025-06-21", "18:05", "MV Heather Isle", 34),
    "S-5531": ("RT-031", "2025-06-22", "08:00", "MV Heather Isle", 40),
    "S-5532": ("RT-031", "2025-06-22", "16:45", "MV Corran Star", 18),
    "S-6601": ("RT-032", "2025-06-21", "07:50", "MV Corran Star", 9),
    "S-7101": ("RT-044", "2025-06-21", "10:20", "MV Gannet", 5),
}


def _plus(clock: str, minutes: int) -> str:
    h, m = map(int, clock.split(":"))
    t = h * 60 + m + minutes
    return f"{t // 60:02d}:{t % 60:02d}"


def find_route(from_port: str, to_port: str) -> str:
    """The route from one port to another."""
    ports = sorted({p for r in ROUTES.values() for p in r[:2]})
    pair = (from_port.strip().lower(), to_port.strip().lower())
    for rid, (a, b, operator, minutes) in sorted(ROUTES.items()):
        if (a.lower(), b.lower()) == pair:
            return f"Route {rid}: {a} to {b}, operated by {operator}, crossing {minutes} min"
    return f"No route from {from_port} to {to_port}. Ports: {', '.join(ports)}."


def route_timetable(route_id: str, date: str) -> str:
    """The day's sailings of a route, earliest first."""
    if route_id not in ROUTES:
        return f"Unknown route {route_id}. Use find_route to get a route id."
    rows = sorted((s[2], sid) for sid, s in SAILINGS.items() if s[0] == route_id and s[1] == date)
    if not rows:
        return f"No sailings of {route_id} on {date}."
    return f"{route_id} on {date}: " + ", ".join(f"{dep} sailing {sid}" for dep, sid in rows)


def sailing_detail(sailing_id: str) -> str:
    """Times, vessel and car-deck space."""
    s = SAILINGS.get(sailing_id.strip().upper())
    if s is None:
        return f"Unknown sailing {sailing_id}."
    route, date, dep, vessel, cars = s
    a, b, _, minutes = ROUTES[route]
    return (f"{sailing_id.upper()} {a} {dep} to {b} {_plus(dep, minutes)} on {date}; vessel {vessel}; "
            f"car deck {cars} spaces left")
