"""The bundled `hotel` site (`data/sites/hotel`): its seeded data, tables, pages and README."""

from __future__ import annotations

import random

from plandvc.sites.bundled import kit as k


def make() -> tuple[k.SiteJson, str]:
    """This site's site.json and doc/README.md."""
    rng, today = random.Random(505), "2026-07-18"
    room_types = ["Single", "Double", "Twin", "Suite", "Family"]
    statuses = ["Confirmed", "Checked in", "Checked out", "Cancelled"]
    sources = ["Direct", "Travel agent", "Booking site", "Corporate"]
    housekeeping = ["Clean", "Dirty", "Inspected", "Out of order"]
    guests = k.people(rng, 23)
    bookings = [
        {"id": f"BKG-{8801 + i}", "guest": g, "room_type": rng.choice(room_types), "status": rng.choice(statuses),
         "source": rng.choice(sources), "nights": rng.randint(1, 14), "check_in": k.day(today, rng, -15, 45)}
        for i, g in enumerate(guests)
    ]  # fmt: skip
    numbers = sorted(rng.sample([f"{f}{n:02d}" for f in range(1, 6) for n in range(1, 13)], 20))
    rate = {"Single": 89, "Double": 129, "Twin": 119, "Suite": 289, "Family": 179}
    rooms = []
    for i, num in enumerate(numbers):
        t = rng.choice(room_types)
        rooms.append(
            {"id": f"RM-{num}", "room": f"Room {num}", "type": t, "floor": int(num[0]),
             "rate": rate[t] + rng.choice([0, 10, 20]), "housekeeping": rng.choice(housekeeping),
             "cleaned": k.day(today, rng, -6, 0)}
        )  # fmt: skip
        del i
    spec: k.SiteJson = {
        "site": "hotel", "name": "Seaview Grand Hotel", "today": today,
        "theme": {"layout": "topnav", "accent": "#0f766e", "background": "#eef7f6", "font": "DejaVu Sans"},
        "tables": {
            "bookings": {
                "title": "Bookings", "singular": "booking", "key": "id", "label": "guest",
                "columns": [
                    k.col("id", "Booking", "id"), k.col("guest", "Guest", "text"),
                    k.col("room_type", "Room type", "enum", values=room_types), k.col("status", "Status", "enum", values=statuses),
                    k.col("source", "Source", "enum", values=sources), k.col("nights", "Nights", "number"),
                    k.col("check_in", "Check-in", "date"),
                ],
                "rows": bookings, "create": ["guest", "room_type", "status", "source", "nights", "check_in"],
                "edit": ["status", "nights", "check_in"], "copy": "id",
            },
            "rooms": {
                "title": "Rooms", "singular": "room", "key": "id", "label": "room",
                "columns": [
                    k.col("id", "Room ID", "id"), k.col("room", "Room", "text"), k.col("type", "Type", "enum", values=room_types),
                    k.col("floor", "Floor", "number"), k.col("rate", "Rate", "number", prefix="£"),
                    k.col("housekeeping", "Housekeeping", "enum", values=housekeeping), k.col("cleaned", "Last cleaned", "date"),
                ],
                "rows": rooms, "create": [], "edit": ["housekeeping", "rate"], "copy": "room",
            },
        },
        "pages": [
            {"page": "bookings", "title": "Bookings", "table": "bookings", "controls": [
                k.dropdown("bookings-status", "status", "status", "Status"),
                k.options("bookings-source", "source", "source", "Source"),
                k.slider("bookings-nights", "nights", "max_nights", "Max nights", 1, 14, 1),
                k.date_range("bookings-check-in", "check_in", ["from", "to"], "Check-in"),
                k.sort("bookings-sort", ["sort", "dir"], ["check_in", "nights", "guest"], "Sort by"),
                k.search("bookings-search", "q", ["guest", "id"], "Find guest"),
            ]},
            {"page": "rooms", "title": "Rooms", "table": "rooms", "controls": [
                k.options("rooms-type", "type", "type", "Type"),
                k.dropdown("rooms-housekeeping", "housekeeping", "housekeeping", "Housekeeping"),
                k.slider("rooms-rate", "rate", "max_rate", "Max rate", 50, 320, 10),
                k.sort("rooms-sort", ["sort", "dir"], ["room", "rate", "floor"], "Sort by"),
                k.search("rooms-search", "q", ["room"], "Find room"),
            ]},
        ],
    }  # fmt: skip
    doc = (
        "# Seaview Grand Hotel (room bookings and rooms)\n\n"
        "A seaside hotel's reception system. Bookings (BKG-8801…) with guest, room type, status, source, nights\n"
        "and check-in date; rooms (Room 101…) with type, floor, nightly rate and housekeeping status.\n"
    )
    return spec, doc
