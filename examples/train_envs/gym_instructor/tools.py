"""Weekly class timetables of two gyms."""

TIMETABLE = {
    ("ironleaf gym", "monday"): [("07:00", "HIIT", "Priya Nand", 6), ("18:30", "Spin", "Owen Lacey", 0)],
    ("ironleaf gym", "tuesday"): [("12:15", "Pilates", "Mara Holt", 4), ("19:00", "Boxfit", "Owen Lacey", 9)],
    ("ironleaf gym", "wednesday"): [("07:00", "Spin", "Priya Nand", 3), ("19:45", "Yoga", "Lena Fisk", 11)],
    ("ironleaf gym", "thursday"): [("07:00", "HIIT", "Priya Nand", 2), ("12:15", "Pilates", "Mara Holt", 7),
                                   ("18:30", "Spin", "Dara Mensah", 5), ("19:45", "Yoga", "Lena Fisk", 8)],
    ("ironleaf gym", "friday"): [("18:00", "Kettlebells", "Owen Lacey", 10)],
    ("ironleaf gym", "saturday"): [("09:30", "Spin", "Mara Holt", 1), ("11:00", "Yoga", "Lena Fisk", 12)],
    ("harbour fitness", "thursday"): [("18:30", "Spin", "Kwame Boateng", 4)],
}
GYMS = sorted({g for g, _ in TIMETABLE})
BOOKINGS = {}


def class_timetable(gym: str, day: str) -> str:
    """The classes of one gym on one weekday."""
    key = gym.strip().lower()
    if key not in GYMS:
        return f"Unknown gym {gym!r}. Gyms: {', '.join(g.title() for g in GYMS)}."
    classes = TIMETABLE.get((key, day), [])
    if not classes:
        return f"No group classes at {gym.strip()} on {day.capitalize()}."
    return f"{gym.strip()} on {day.capitalize()}:\n" + "\n".join(f"{t} {name} with {coach}, {left} spaces left" for t, name, coach, left in classes)


def book_class(gym: str, day: str, time: str, member_id: str) -> str:
    """Book a class; full classes and unknown times are refused."""
    match = [c for c in TIMETABLE.get((gym.strip().lower(), day), []) if c[0] == time]
    if not match:
        return f"No class at {gym} on {day} at {time}."
    if match[0][3] == 0:
        return f"{match[0][1]} at {time} on {day} is full."
    ref = f"{member_id}-{day[:3].upper()}-{time.replace(':', '')}"
    BOOKINGS[ref] = match[0]
    return f"Booked {match[0][1]} at {time} on {day} for {member_id}. Reference {ref}."
