"""Write the bundled sites' `site.json` and `doc/README.md` from seeded generators (run once; commit the output).

    .venv/bin/python data/sites/make_sites.py

The committed site.json files are the source of truth; this script only documents how their data was made.
Each site has its own `random.Random(seed)`, so re-running it writes the same bytes.
"""

from __future__ import annotations

import datetime as dt
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from plandvc.io import write_bytes, write_json  # noqa: E402
from plandvc.sites.spec import load_spec  # noqa: E402

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


def col(name: str, label: str, ctype: str, **kw: Any) -> dict[str, Any]:
    return {"name": name, "label": label, "type": ctype, **kw}


# ── sites ────────────────────────────────────────────────────────────────────


def shop() -> tuple[dict[str, Any], str]:
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
    spec = {
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


def clinic() -> tuple[dict[str, Any], str]:
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
    spec = {
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


SITES = {"shop": shop, "clinic": clinic}
SPLIT = {"train": ["clinic", "shop"], "test": []}


def main() -> None:
    for site, make in SITES.items():
        spec, doc = make()
        write_json(HERE / site / "site.json", spec, sort_keys=False)
        write_bytes(HERE / site / "doc" / "README.md", doc.encode("utf-8"))
        load_spec(HERE / site / "site.json")  # validate what was written
    write_json(HERE / "site_split.json", SPLIT)
    print(f"wrote {len(SITES)} sites to {HERE.name}/")


if __name__ == "__main__":
    main()
