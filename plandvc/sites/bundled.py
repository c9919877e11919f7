"""The bundled sites (`data/sites`): their `site.json` and `doc/README.md` written from seeded generators (run
once; commit the output).

    .venv/bin/python -m plandvc.sites.bundled [OUT_DIR]     # OUT_DIR: data/sites

The committed site.json files are the source of truth; this script only documents how their data was made.
Each site has its own `random.Random(seed)`, so re-running it writes the same bytes.
"""

from __future__ import annotations

import datetime as dt
import random
import sys
from pathlib import Path

from plandvc.io import write_bytes, write_json
from plandvc.sites.spec import load_spec

OUT = Path("data/sites")  # the bundled sites' folder, from the repository root
SiteJson = dict[str, object]  # a site.json as written (load_spec reads it back into the typed Spec)

FIRST = [
    "Ada", "Bruno", "Chiara", "Dmitri", "Elena", "Farah", "Gustav", "Hana", "Ines", "Jonas", "Keiko", "Liam",
    "Maya", "Nikolai", "Olivia", "Pedro", "Quinn", "Rosa", "Samir", "Tessa", "Umar", "Vera", "Wen", "Yusuf",
    "Zara", "Amara", "Björn", "Camille", "Diego", "Esther", "Felix", "Greta", "Hugo", "Ivy", "Jalen", "Kira",
]  # fmt: skip
LAST = [
    "Byrne", "Okafor", "Lindqvist", "Tanaka", "Moreau", "Haddad", "Novak", "Silva", "Kowalski", "Brennan",
    "Achebe", "Fischer", "Rossi", "Nguyen", "Patel", "Larsen", "Duarte", "Mbeki", "Sato", "Quigley", "Ortega",
    "Varga", "Whitfield", "Yilmaz", "Zhou", "Adeyemi", "Castillo", "Devlin", "Eriksen", "Foster",
]  # fmt: skip
CITIES = [
    "Leeds",
    "Porto",
    "Lyon",
    "Gdansk",
    "Utrecht",
    "Bergen",
    "Bilbao",
    "Graz",
    "Tampere",
    "Cork",
    "Turin",
]


def people(rng: random.Random, n: int) -> list[str]:
    """`n` distinct full names."""
    pool = [f"{f} {last}" for f in FIRST for last in LAST]
    return rng.sample(pool, n)


def day(today: str, rng: random.Random, lo: int, hi: int) -> str:
    """A date `lo..hi` days from today (negative = past)."""
    return (dt.date.fromisoformat(today) + dt.timedelta(days=rng.randint(lo, hi))).isoformat()


def col(name: str, label: str, ctype: str, **kw: object) -> SiteJson:
    return {"name": name, "label": label, "type": ctype, **kw}


# ── sites ────────────────────────────────────────────────────────────────────


def shop() -> tuple[SiteJson, str]:
    rng, today = random.Random(101), "2026-03-14"
    statuses = ["Pending", "Paid", "Shipped", "Delivered", "Cancelled"]
    channels = ["Web", "Phone", "Store"]
    tiers = ["Bronze", "Silver", "Gold", "Platinum"]
    customers = people(rng, 20)
    orders = [
        {"id": f"ORD-{1031 + i}", "customer": rng.choice(customers), "status": rng.choice(statuses),
         "channel": rng.choice(channels), "total": round(rng.uniform(18, 480), 2),
         "items": rng.randint(1, 9), "placed": day(today, rng, -75, 0)}
        for i in range(24)
    ]  # fmt: skip
    custs = [
        {"id": f"CUS-{201 + i}", "name": name, "city": rng.choice(CITIES), "tier": rng.choice(tiers),
         "spend": round(rng.uniform(60, 5200), 2), "joined": day(today, rng, -1400, -30)}
        for i, name in enumerate(customers)
    ]  # fmt: skip
    spec: SiteJson = {
        "site": "shop", "name": "Northwind Shop", "today": today,
        "theme": {"layout": "sidebar", "accent": "#237a57", "background": "#f3f7f4", "font": "DejaVu Sans"},
        "tables": {
            "orders": {
                "title": "Orders", "singular": "order", "key": "id", "label": "id",
                "columns": [
                    col("id", "Order", "id"), col("customer", "Customer", "text"),
                    col("status", "Status", "enum", values=statuses), col("channel", "Channel", "enum", values=channels),
                    col("total", "Total", "number", prefix="$", decimals=2), col("items", "Items", "number"),
                    col("placed", "Placed", "date"),
                ],
                "rows": orders, "create": ["customer", "status", "channel", "total", "items", "placed"],
                "edit": ["status", "total"], "copy": "id",
            },
            "customers": {
                "title": "Customers", "singular": "customer", "key": "id", "label": "name",
                "columns": [
                    col("id", "Customer ID", "id"), col("name", "Name", "text"), col("city", "City", "text"),
                    col("tier", "Tier", "enum", values=tiers), col("spend", "Lifetime spend", "number", prefix="$", decimals=2),
                    col("joined", "Joined", "date"),
                ],
                "rows": custs, "create": ["name", "city", "tier", "joined"], "edit": ["city", "tier"], "copy": "id",
            },
        },
        "pages": [
            {"page": "orders", "title": "Orders", "table": "orders", "controls": [
                {"control_id": "orders-status", "kind": "dropdown", "column": "status", "param": "status", "label": "Status"},
                {"control_id": "orders-channel", "kind": "options", "column": "channel", "param": "channel", "label": "Channel"},
                {"control_id": "orders-total", "kind": "slider", "column": "total", "param": "max_total", "label": "Max total", "min": 0, "max": 500, "step": 10},
                {"control_id": "orders-placed", "kind": "date_range", "column": "placed", "params": ["from", "to"], "label": "Placed"},
                {"control_id": "orders-sort", "kind": "sort", "params": ["sort", "dir"], "columns": ["placed", "total", "customer"], "label": "Sort by"},
                {"control_id": "orders-search", "kind": "search", "param": "q", "columns": ["customer", "id"], "label": "Search"},
            ]},
            {"page": "customers", "title": "Customers", "table": "customers", "controls": [
                {"control_id": "customers-tier", "kind": "dropdown", "column": "tier", "param": "tier", "label": "Tier"},
                {"control_id": "customers-spend", "kind": "slider", "column": "spend", "param": "max_spend", "label": "Max lifetime spend", "min": 0, "max": 6000, "step": 100},
                {"control_id": "customers-joined", "kind": "date_range", "column": "joined", "params": ["joined_from", "joined_to"], "label": "Joined"},
                {"control_id": "customers-sort", "kind": "sort", "params": ["sort", "dir"], "columns": ["name", "spend", "joined"], "label": "Sort by"},
                {"control_id": "customers-search", "kind": "search", "param": "q", "columns": ["name", "city"], "label": "Search"},
            ]},
        ],
    }  # fmt: skip
    doc = (
        "# Northwind Shop (online store: orders and customers)\n\n"
        "An online shop's back office. Orders (ORD-1031…) with status, sales channel, total and placing date;\n"
        "customers (CUS-201…) with city, loyalty tier and lifetime spend. Orders and customers can be created\n"
        "and edited; an entry's id can be copied from its detail page.\n"
    )
    return spec, doc


def clinic() -> tuple[SiteJson, str]:
    rng, today = random.Random(202), "2026-04-22"
    doctors = ["Dr. Okafor", "Dr. Lindqvist", "Dr. Tanaka", "Dr. Moreau", "Dr. Haddad"]
    departments = ["Cardiology", "Dermatology", "Pediatrics", "Orthopedics", "General practice"]
    statuses = ["Scheduled", "Checked in", "Completed", "No-show", "Cancelled"]
    insurers = ["Meridian Health", "BlueLeaf", "CareFirst Mutual", "Self-pay"]
    patients = people(rng, 22)
    appts = [
        {"id": f"APT-{3101 + i}", "patient": patients[i], "doctor": rng.choice(doctors),
         "department": rng.choice(departments), "status": rng.choice(statuses),
         "duration": rng.choice([15, 20, 30, 45, 60]), "date": day(today, rng, -20, 25)}
        for i in range(22)
    ]  # fmt: skip
    pats = [
        {"id": f"PAT-{5001 + i}", "name": patients[i], "born": day(today, rng, -30000, -400),
         "insurer": rng.choice(insurers), "visits": rng.randint(1, 28), "city": rng.choice(CITIES),
         "last_visit": day(today, rng, -400, -1)}
        for i in range(21)
    ]  # fmt: skip
    spec: SiteJson = {
        "site": "clinic", "name": "Riverside Clinic", "today": today,
        "theme": {"layout": "topnav", "accent": "#1f5fa8", "background": "#f2f6fb", "font": "DejaVu Sans"},
        "tables": {
            "appointments": {
                "title": "Appointments", "singular": "appointment", "key": "id", "label": "patient",
                "columns": [
                    col("id", "Appointment", "id"), col("patient", "Patient", "text"),
                    col("doctor", "Doctor", "enum", values=doctors), col("department", "Department", "enum", values=departments),
                    col("status", "Status", "enum", values=statuses), col("duration", "Duration", "number", suffix=" min"),
                    col("date", "Date", "date"),
                ],
                "rows": appts, "create": ["patient", "doctor", "department", "status", "duration", "date"],
                "edit": ["status", "date", "duration"], "copy": "id",
            },
            "patients": {
                "title": "Patients", "singular": "patient", "key": "id", "label": "name",
                "columns": [
                    col("id", "Patient ID", "id"), col("name", "Name", "text"), col("born", "Date of birth", "date"),
                    col("insurer", "Insurer", "enum", values=insurers), col("visits", "Visits", "number"),
                    col("city", "City", "text"), col("last_visit", "Last visit", "date"),
                ],
                "rows": pats, "create": ["name", "born", "insurer", "city"], "edit": ["insurer", "city"], "copy": "id",
            },
        },
        "pages": [
            {"page": "appointments", "title": "Appointments", "table": "appointments", "controls": [
                {"control_id": "appointments-doctor", "kind": "dropdown", "column": "doctor", "param": "doctor", "label": "Doctor"},
                {"control_id": "appointments-status", "kind": "options", "column": "status", "param": "status", "label": "Status"},
                {"control_id": "appointments-date", "kind": "date_range", "column": "date", "params": ["from", "to"], "label": "Date"},
                {"control_id": "appointments-sort", "kind": "sort", "params": ["sort", "dir"], "columns": ["date", "duration", "patient"], "label": "Sort by"},
                {"control_id": "appointments-search", "kind": "search", "param": "q", "columns": ["patient", "id"], "label": "Find patient"},
            ]},
            {"page": "patients", "title": "Patients", "table": "patients", "controls": [
                {"control_id": "patients-insurer", "kind": "dropdown", "column": "insurer", "param": "insurer", "label": "Insurer"},
                {"control_id": "patients-visits", "kind": "slider", "column": "visits", "param": "max_visits", "label": "Max visits", "min": 0, "max": 30, "step": 1},
                {"control_id": "patients-sort", "kind": "sort", "params": ["sort", "dir"], "columns": ["name", "visits", "last_visit"], "label": "Sort by"},
                {"control_id": "patients-search", "kind": "search", "param": "q", "columns": ["name", "city"], "label": "Search"},
            ]},
        ],
    }  # fmt: skip
    doc = (
        "# Riverside Clinic (medical appointments and patients)\n\n"
        "A clinic's front desk. Appointments (APT-3101…) by doctor, department, status, duration and date;\n"
        "patients (PAT-5001…) with insurer, visit count and last visit. Both can be created and edited.\n"
    )
    return spec, doc


def fleet() -> tuple[SiteJson, str]:
    rng, today = random.Random(303), "2026-05-06"
    statuses = ["Booked", "In transit", "Delayed", "Delivered", "Returned"]
    modes = ["Road", "Rail", "Sea", "Air"]
    depots = ["Rotterdam", "Hamburg", "Antwerp", "Felixstowe"]
    types = ["Truck", "Van", "Trailer", "Reefer"]
    consignees = rng.sample([
        "Brightwell Foods", "Calder Steel", "Dunmore Textiles", "Everly Pharma", "Fenwick Paper", "Galloway Glass",
        "Harlow Electronics", "Ingram Timber", "Juniper Wines", "Kestrel Motors", "Lowry Ceramics", "Marlow Chemicals",
        "Northgate Toys", "Orchard Juices", "Pemberton Tools", "Quayside Fish", "Redfern Plastics", "Sterling Cables",
        "Thornbury Paints", "Upland Dairy", "Vickery Books", "Westbrook Coffee",
    ], 21)  # fmt: skip
    ships = [
        {"id": f"SHP-{7201 + i}", "consignee": c, "origin": rng.choice(CITIES), "status": rng.choice(statuses),
         "mode": rng.choice(modes), "weight": rng.randint(120, 24000), "shipped": day(today, rng, -40, 10)}
        for i, c in enumerate(consignees)
    ]  # fmt: skip
    letters = "ABCDEFGHJKLMNPRSTVWXZ"
    vehicles = [
        {"id": f"VEH-{41 + i}", "plate": f"HF-{rng.randint(100, 999)}-{rng.choice(letters)}{letters[i]}",
         "type": rng.choice(types), "depot": rng.choice(depots), "mileage": rng.randint(8000, 410000),
         "serviced": day(today, rng, -300, -2)}
        for i in range(19)
    ]  # fmt: skip
    spec: SiteJson = {
        "site": "fleet", "name": "Harbor Freight Lines", "today": today,
        "theme": {"layout": "cards", "accent": "#c2571a", "background": "#f6f1ec", "font": "DejaVu Sans"},
        "tables": {
            "shipments": {
                "title": "Shipments", "singular": "shipment", "key": "id", "label": "id",
                "columns": [
                    col("id", "Shipment", "id"), col("consignee", "Consignee", "text"), col("origin", "Origin", "text"),
                    col("status", "Status", "enum", values=statuses), col("mode", "Mode", "enum", values=modes),
                    col("weight", "Weight", "number", suffix=" kg"), col("shipped", "Ship date", "date"),
                ],
                "rows": ships, "create": ["consignee", "origin", "status", "mode", "weight", "shipped"],
                "edit": ["status", "weight"], "copy": "id",
            },
            "vehicles": {
                "title": "Vehicles", "singular": "vehicle", "key": "id", "label": "plate",
                "columns": [
                    col("id", "Vehicle", "id"), col("plate", "Plate", "text"), col("type", "Type", "enum", values=types),
                    col("depot", "Depot", "enum", values=depots), col("mileage", "Mileage", "number", suffix=" km"),
                    col("serviced", "Last service", "date"),
                ],
                "rows": vehicles, "create": ["plate", "type", "depot", "mileage", "serviced"],
                "edit": ["depot", "mileage", "serviced"], "copy": "plate",
            },
        },
        "pages": [
            {"page": "shipments", "title": "Shipments", "table": "shipments", "controls": [
                {"control_id": "shipments-status", "kind": "dropdown", "column": "status", "param": "status", "label": "Status"},
                {"control_id": "shipments-mode", "kind": "options", "column": "mode", "param": "mode", "label": "Mode"},
                {"control_id": "shipments-weight", "kind": "slider", "column": "weight", "param": "max_weight", "label": "Max weight", "min": 0, "max": 25000, "step": 500},
                {"control_id": "shipments-sort", "kind": "sort", "params": ["sort", "dir"], "columns": ["shipped", "weight", "consignee"], "label": "Sort by"},
                {"control_id": "shipments-search", "kind": "search", "param": "q", "columns": ["consignee", "origin", "id"], "label": "Search"},
            ]},
            {"page": "vehicles", "title": "Vehicles", "table": "vehicles", "controls": [
                {"control_id": "vehicles-depot", "kind": "dropdown", "column": "depot", "param": "depot", "label": "Depot"},
                {"control_id": "vehicles-type", "kind": "options", "column": "type", "param": "type", "label": "Type"},
                {"control_id": "vehicles-serviced", "kind": "date_range", "column": "serviced", "params": ["from", "to"], "label": "Last service"},
                {"control_id": "vehicles-sort", "kind": "sort", "params": ["sort", "dir"], "columns": ["mileage", "serviced", "plate"], "label": "Sort by"},
                {"control_id": "vehicles-search", "kind": "search", "param": "q", "columns": ["plate"], "label": "Find plate"},
            ]},
        ],
    }  # fmt: skip
    doc = (
        "# Harbor Freight Lines (fleet: shipments and vehicles)\n\n"
        "A freight company's dispatch board. Shipments (SHP-7201…) with consignee, origin, status, transport\n"
        "mode, weight and ship date; vehicles (VEH-41…) with plate, type, depot, mileage and last service.\n"
    )
    return spec, doc


def library() -> tuple[SiteJson, str]:
    rng, today = random.Random(404), "2026-02-09"
    branches = ["Central", "Eastside", "Harbour", "Hillcrest"]
    statuses = ["On loan", "Returned", "Overdue", "Lost"]
    genres = ["Fiction", "History", "Science", "Children", "Poetry", "Travel"]
    titles = rng.sample([
        "The Salt Road", "A Map of Winter", "Glass Orchards", "The Quiet Engineer", "Rivers of Iron",
        "The Last Lighthouse", "Small Gods of August", "Paper Moons", "The Copper Atlas", "Northern Tides",
        "The Clockmaker's Daughter", "Bees in the Attic", "A Brief History of Bridges", "Stars Over Kilnsea",
        "The Orchard Keeper", "Maps for Lost Sailors", "The Ninth Harvest", "Quiet Numbers", "The Amber Room",
        "Wolves of the Steppe", "Songs for a Long Walk", "The Tin Garden",
    ], 22)  # fmt: skip
    authors = people(rng, 22)
    books = [
        {"id": f"BK-{101 + i}", "title": t, "author": authors[i], "genre": rng.choice(genres),
         "copies": rng.randint(1, 12), "published": day(today, rng, -12000, -60)}
        for i, t in enumerate(titles)
    ]  # fmt: skip
    borrowers = people(rng, 20)
    loans = [
        {"id": f"LN-{4401 + i}", "borrower": b, "book": rng.choice(titles), "branch": rng.choice(branches),
         "status": rng.choice(statuses), "fine": round(rng.choice([0, 0, 0, 0.5, 1.25, 2.75, 4.0, 6.5]), 2),
         "due": day(today, rng, -30, 28)}
        for i, b in enumerate(borrowers)
    ]  # fmt: skip
    spec: SiteJson = {
        "site": "library", "name": "Oakridge Public Library", "today": today,
        "theme": {"layout": "sidebar", "accent": "#7a2333", "background": "#faf6f2", "panel": "#fffdf9", "font": "DejaVu Sans"},
        "tables": {
            "loans": {
                "title": "Loans", "singular": "loan", "key": "id", "label": "borrower",
                "columns": [
                    col("id", "Loan", "id"), col("borrower", "Borrower", "text"), col("book", "Book", "text"),
                    col("branch", "Branch", "enum", values=branches), col("status", "Status", "enum", values=statuses),
                    col("fine", "Fine", "number", prefix="€", decimals=2), col("due", "Due", "date"),
                ],
                "rows": loans, "create": ["borrower", "book", "branch", "status", "due"],
                "edit": ["status", "fine", "due"], "copy": "id",
            },
            "books": {
                "title": "Catalogue", "singular": "book", "key": "id", "label": "title",
                "columns": [
                    col("id", "Book ID", "id"), col("title", "Title", "text"), col("author", "Author", "text"),
                    col("genre", "Genre", "enum", values=genres), col("copies", "Copies", "number"),
                    col("published", "Published", "date"),
                ],
                "rows": books, "create": ["title", "author", "genre", "copies", "published"],
                "edit": ["genre", "copies"], "copy": "id",
            },
        },
        "pages": [
            {"page": "loans", "title": "Loans", "table": "loans", "controls": [
                {"control_id": "loans-branch", "kind": "dropdown", "column": "branch", "param": "branch", "label": "Branch"},
                {"control_id": "loans-status", "kind": "options", "column": "status", "param": "status", "label": "Status"},
                {"control_id": "loans-due", "kind": "date_range", "column": "due", "params": ["due_from", "due_to"], "label": "Due"},
                {"control_id": "loans-sort", "kind": "sort", "params": ["sort", "dir"], "columns": ["due", "fine", "borrower"], "label": "Sort by"},
                {"control_id": "loans-search", "kind": "search", "param": "q", "columns": ["borrower", "book"], "label": "Search"},
            ]},
            {"page": "catalogue", "title": "Catalogue", "table": "books", "controls": [
                {"control_id": "catalogue-genre", "kind": "dropdown", "column": "genre", "param": "genre", "label": "Genre"},
                {"control_id": "catalogue-copies", "kind": "slider", "column": "copies", "param": "max_copies", "label": "Max copies", "min": 0, "max": 12, "step": 1},
                {"control_id": "catalogue-published", "kind": "date_range", "column": "published", "params": ["from", "to"], "label": "Published"},
                {"control_id": "catalogue-sort", "kind": "sort", "params": ["sort", "dir"], "columns": ["title", "published", "copies"], "label": "Sort by"},
                {"control_id": "catalogue-search", "kind": "search", "param": "q", "columns": ["title", "author"], "label": "Search"},
            ]},
        ],
    }  # fmt: skip
    doc = (
        "# Oakridge Public Library (book loans and catalogue)\n\n"
        "A public library's circulation desk. Loans (LN-4401…) with borrower, book, branch, status, fine and\n"
        "due date; the catalogue of books (BK-101…) with author, genre, copies and publication date.\n"
    )
    return spec, doc


def hotel() -> tuple[SiteJson, str]:
    rng, today = random.Random(505), "2026-07-18"
    room_types = ["Single", "Double", "Twin", "Suite", "Family"]
    statuses = ["Confirmed", "Checked in", "Checked out", "Cancelled"]
    sources = ["Direct", "Travel agent", "Booking site", "Corporate"]
    housekeeping = ["Clean", "Dirty", "Inspected", "Out of order"]
    guests = people(rng, 23)
    bookings = [
        {"id": f"BKG-{8801 + i}", "guest": g, "room_type": rng.choice(room_types), "status": rng.choice(statuses),
         "source": rng.choice(sources), "nights": rng.randint(1, 14), "check_in": day(today, rng, -15, 45)}
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
             "cleaned": day(today, rng, -6, 0)}
        )  # fmt: skip
        del i
    spec: SiteJson = {
        "site": "hotel", "name": "Seaview Grand Hotel", "today": today,
        "theme": {"layout": "topnav", "accent": "#0f766e", "background": "#eef7f6", "font": "DejaVu Sans"},
        "tables": {
            "bookings": {
                "title": "Bookings", "singular": "booking", "key": "id", "label": "guest",
                "columns": [
                    col("id", "Booking", "id"), col("guest", "Guest", "text"),
                    col("room_type", "Room type", "enum", values=room_types), col("status", "Status", "enum", values=statuses),
                    col("source", "Source", "enum", values=sources), col("nights", "Nights", "number"),
                    col("check_in", "Check-in", "date"),
                ],
                "rows": bookings, "create": ["guest", "room_type", "status", "source", "nights", "check_in"],
                "edit": ["status", "nights", "check_in"], "copy": "id",
            },
            "rooms": {
                "title": "Rooms", "singular": "room", "key": "id", "label": "room",
                "columns": [
                    col("id", "Room ID", "id"), col("room", "Room", "text"), col("type", "Type", "enum", values=room_types),
                    col("floor", "Floor", "number"), col("rate", "Rate", "number", prefix="£"),
                    col("housekeeping", "Housekeeping", "enum", values=housekeeping), col("cleaned", "Last cleaned", "date"),
                ],
                "rows": rooms, "create": [], "edit": ["housekeeping", "rate"], "copy": "room",
            },
        },
        "pages": [
            {"page": "bookings", "title": "Bookings", "table": "bookings", "controls": [
                {"control_id": "bookings-status", "kind": "dropdown", "column": "status", "param": "status", "label": "Status"},
                {"control_id": "bookings-source", "kind": "options", "column": "source", "param": "source", "label": "Source"},
                {"control_id": "bookings-nights", "kind": "slider", "column": "nights", "param": "max_nights", "label": "Max nights", "min": 1, "max": 14, "step": 1},
                {"control_id": "bookings-check-in", "kind": "date_range", "column": "check_in", "params": ["from", "to"], "label": "Check-in"},
                {"control_id": "bookings-sort", "kind": "sort", "params": ["sort", "dir"], "columns": ["check_in", "nights", "guest"], "label": "Sort by"},
                {"control_id": "bookings-search", "kind": "search", "param": "q", "columns": ["guest", "id"], "label": "Find guest"},
            ]},
            {"page": "rooms", "title": "Rooms", "table": "rooms", "controls": [
                {"control_id": "rooms-type", "kind": "options", "column": "type", "param": "type", "label": "Type"},
                {"control_id": "rooms-housekeeping", "kind": "dropdown", "column": "housekeeping", "param": "housekeeping", "label": "Housekeeping"},
                {"control_id": "rooms-rate", "kind": "slider", "column": "rate", "param": "max_rate", "label": "Max rate", "min": 50, "max": 320, "step": 10},
                {"control_id": "rooms-sort", "kind": "sort", "params": ["sort", "dir"], "columns": ["room", "rate", "floor"], "label": "Sort by"},
                {"control_id": "rooms-search", "kind": "search", "param": "q", "columns": ["room"], "label": "Find room"},
            ]},
        ],
    }  # fmt: skip
    doc = (
        "# Seaview Grand Hotel (room bookings and rooms)\n\n"
        "A seaside hotel's reception system. Bookings (BKG-8801…) with guest, room type, status, source, nights\n"
        "and check-in date; rooms (Room 101…) with type, floor, nightly rate and housekeeping status.\n"
    )
    return spec, doc


def school() -> tuple[SiteJson, str]:
    rng, today = random.Random(606), "2026-09-21"
    departments = ["Mathematics", "Sciences", "Humanities", "Languages", "Arts"]
    levels = ["Year 10", "Year 11", "Year 12", "Year 13"]
    terms = ["Autumn", "Spring", "Summer"]
    statuses = ["Active", "Completed", "Withdrawn", "Waitlisted"]
    course_titles = rng.sample([
        "Algebra II", "Statistics", "Calculus", "Biology", "Chemistry", "Physics", "World History", "Geography",
        "Philosophy", "French", "Spanish", "Mandarin", "Studio Art", "Music Theory", "Drama", "Economics",
        "Computer Science", "Creative Writing", "Latin",
    ], 19)  # fmt: skip
    teachers = people(rng, 19)
    courses = [
        {"id": f"CRS-{110 + i * 7}", "title": t, "teacher": teachers[i], "department": rng.choice(departments),
         "level": rng.choice(levels), "credits": rng.choice([5, 10, 15, 20]), "starts": day(today, rng, -20, 120)}
        for i, t in enumerate(course_titles)
    ]  # fmt: skip
    students = people(rng, 24)
    enrolments = [
        {"id": f"ENR-{6001 + i}", "student": s, "course": rng.choice(course_titles), "term": rng.choice(terms),
         "status": rng.choice(statuses), "score": rng.randint(38, 99), "enrolled": day(today, rng, -200, -1)}
        for i, s in enumerate(students)
    ]  # fmt: skip
    spec: SiteJson = {
        "site": "school", "name": "Maple Grove High School", "today": today,
        "theme": {"layout": "cards", "accent": "#5b3fa0", "background": "#f3f0fa", "font": "DejaVu Sans"},
        "tables": {
            "courses": {
                "title": "Courses", "singular": "course", "key": "id", "label": "title",
                "columns": [
                    col("id", "Code", "id"), col("title", "Title", "text"), col("teacher", "Teacher", "text"),
                    col("department", "Department", "enum", values=departments), col("level", "Level", "enum", values=levels),
                    col("credits", "Credits", "number"), col("starts", "Starts", "date"),
                ],
                "rows": courses, "create": ["title", "teacher", "department", "level", "credits", "starts"],
                "edit": ["teacher", "credits", "starts"], "copy": "id",
            },
            "enrolments": {
                "title": "Enrolments", "singular": "enrolment", "key": "id", "label": "student",
                "columns": [
                    col("id", "Enrolment", "id"), col("student", "Student", "text"), col("course", "Course", "text"),
                    col("term", "Term", "enum", values=terms), col("status", "Status", "enum", values=statuses),
                    col("score", "Score", "number", suffix="%"), col("enrolled", "Enrolled", "date"),
                ],
                "rows": enrolments, "create": ["student", "course", "term", "status", "enrolled"],
                "edit": ["status", "score"], "copy": "id",
            },
        },
        "pages": [
            {"page": "courses", "title": "Courses", "table": "courses", "controls": [
                {"control_id": "courses-department", "kind": "dropdown", "column": "department", "param": "department", "label": "Department"},
                {"control_id": "courses-level", "kind": "options", "column": "level", "param": "level", "label": "Level"},
                {"control_id": "courses-credits", "kind": "slider", "column": "credits", "param": "max_credits", "label": "Max credits", "min": 0, "max": 20, "step": 5},
                {"control_id": "courses-sort", "kind": "sort", "params": ["sort", "dir"], "columns": ["title", "credits", "starts"], "label": "Sort by"},
                {"control_id": "courses-search", "kind": "search", "param": "q", "columns": ["title", "teacher"], "label": "Search"},
            ]},
            {"page": "enrolments", "title": "Enrolments", "table": "enrolments", "controls": [
                {"control_id": "enrolments-term", "kind": "dropdown", "column": "term", "param": "term", "label": "Term"},
                {"control_id": "enrolments-status", "kind": "options", "column": "status", "param": "status", "label": "Status"},
                {"control_id": "enrolments-score", "kind": "slider", "column": "score", "param": "max_score", "label": "Max score", "min": 0, "max": 100, "step": 5},
                {"control_id": "enrolments-enrolled", "kind": "date_range", "column": "enrolled", "params": ["from", "to"], "label": "Enrolled"},
                {"control_id": "enrolments-sort", "kind": "sort", "params": ["sort", "dir"], "columns": ["student", "score", "enrolled"], "label": "Sort by"},
                {"control_id": "enrolments-search", "kind": "search", "param": "q", "columns": ["student", "course"], "label": "Search"},
            ]},
        ],
    }  # fmt: skip
    doc = (
        "# Maple Grove High School (courses and enrolments)\n\n"
        "A secondary school's course office. Courses (CRS-110…) with teacher, department, level, credits and\n"
        "start date; enrolments (ENR-6001…) with student, course, term, status, score and enrolment date.\n"
        "A test site: never used for training rows.\n"
    )
    return spec, doc


SITES = {"shop": shop, "clinic": clinic, "fleet": fleet, "library": library, "hotel": hotel, "school": school}
SPLIT = {"train": ["clinic", "fleet", "hotel", "library", "shop"], "test": ["school"]}


def main(argv: list[str] | None = None) -> None:
    """Write every site (and the split) to `argv[0]`, default: `OUT`."""
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else OUT
    for site, make in SITES.items():
        spec, doc = make()
        write_json(out / site / "site.json", spec, sort_keys=False)
        write_bytes(out / site / "doc" / "README.md", doc.encode("utf-8"))
        load_spec(out / site / "site.json")  # validate what was written
    write_json(out / "site_split.json", SPLIT)
    print(f"wrote {len(SITES)} sites to {out.name}/")


if __name__ == "__main__":
    main()
