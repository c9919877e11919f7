"""The bundled `clinic` site (`data/sites/clinic`): its seeded data, tables, pages and README."""

from __future__ import annotations

import random

from plandvc.sites.bundled import kit as k


def make() -> tuple[k.SiteJson, str]:
    """This site's site.json and doc/README.md."""
    rng, today = random.Random(202), "2026-04-22"
    doctors = ["Dr. Okafor", "Dr. Lindqvist", "Dr. Tanaka", "Dr. Moreau", "Dr. Haddad"]
    departments = ["Cardiology", "Dermatology", "Pediatrics", "Orthopedics", "General practice"]
    statuses = ["Scheduled", "Checked in", "Completed", "No-show", "Cancelled"]
    insurers = ["Meridian Health", "BlueLeaf", "CareFirst Mutual", "Self-pay"]
    patients = k.people(rng, 22)
    appts = [
        {"id": f"APT-{3101 + i}", "patient": patients[i], "doctor": rng.choice(doctors),
         "department": rng.choice(departments), "status": rng.choice(statuses),
         "duration": rng.choice([15, 20, 30, 45, 60]), "date": k.day(today, rng, -20, 25)}
        for i in range(22)
    ]  # fmt: skip
    pats = [
        {"id": f"PAT-{5001 + i}", "name": patients[i], "born": k.day(today, rng, -30000, -400),
         "insurer": rng.choice(insurers), "visits": rng.randint(1, 28), "city": rng.choice(k.CITIES),
         "last_visit": k.day(today, rng, -400, -1)}
        for i in range(21)
    ]  # fmt: skip
    spec: k.SiteJson = {
        "site": "clinic", "name": "Riverside Clinic", "today": today,
        "theme": {"layout": "topnav", "accent": "#1f5fa8", "background": "#f2f6fb", "font": "DejaVu Sans"},
        "tables": {
            "appointments": {
                "title": "Appointments", "singular": "appointment", "key": "id", "label": "patient",
                "columns": [
                    k.col("id", "Appointment", "id"), k.col("patient", "Patient", "text"),
                    k.col("doctor", "Doctor", "enum", values=doctors), k.col("department", "Department", "enum", values=departments),
                    k.col("status", "Status", "enum", values=statuses), k.col("duration", "Duration", "number", suffix=" min"),
                    k.col("date", "Date", "date"),
                ],
                "rows": appts, "create": ["patient", "doctor", "department", "status", "duration", "date"],
                "edit": ["status", "date", "duration"], "copy": "id",
            },
            "patients": {
                "title": "Patients", "singular": "patient", "key": "id", "label": "name",
                "columns": [
                    k.col("id", "Patient ID", "id"), k.col("name", "Name", "text"), k.col("born", "Date of birth", "date"),
                    k.col("insurer", "Insurer", "enum", values=insurers), k.col("visits", "Visits", "number"),
                    k.col("city", "City", "text"), k.col("last_visit", "Last visit", "date"),
                ],
                "rows": pats, "create": ["name", "born", "insurer", "city"], "edit": ["insurer", "city"], "copy": "id",
            },
        },
        "pages": [
            {"page": "appointments", "title": "Appointments", "table": "appointments", "controls": [
                k.dropdown("appointments-doctor", "doctor", "doctor", "Doctor"),
                k.options("appointments-status", "status", "status", "Status"),
                k.date_range("appointments-date", "date", ["from", "to"], "Date"),
                k.sort("appointments-sort", ["sort", "dir"], ["date", "duration", "patient"], "Sort by"),
                k.search("appointments-search", "q", ["patient", "id"], "Find patient"),
            ]},
            {"page": "patients", "title": "Patients", "table": "patients", "controls": [
                k.dropdown("patients-insurer", "insurer", "insurer", "Insurer"),
                k.slider("patients-visits", "visits", "max_visits", "Max visits", 0, 30, 1),
                k.sort("patients-sort", ["sort", "dir"], ["name", "visits", "last_visit"], "Sort by"),
                k.search("patients-search", "q", ["name", "city"], "Search"),
            ]},
        ],
    }  # fmt: skip
    doc = (
        "# Riverside Clinic (medical appointments and patients)\n\n"
        "A clinic's front desk. Appointments (APT-3101…) by doctor, department, status, duration and date;\n"
        "patients (PAT-5001…) with insurer, visit count and last visit. Both can be created and edited.\n"
    )
    return spec, doc
