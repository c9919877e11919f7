"""What the bundled sites are made of: the seeded names and dates, a column, and one builder per control kind
(its keys in the order site.json writes them), so each site's module states only its own data."""

from __future__ import annotations

import datetime as dt
import random

SiteJson = dict[str, object]  # a site.json as written (load_spec reads it back into the typed Spec)
Control = dict[str, object]  # one control of a page, as site.json writes it

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


def dropdown(control_id: str, column: str, param: str, label: str) -> Control:
    return {"control_id": control_id, "kind": "dropdown", "column": column, "param": param, "label": label}


def options(control_id: str, column: str, param: str, label: str) -> Control:
    return {"control_id": control_id, "kind": "options", "column": column, "param": param, "label": label}


def slider(
    control_id: str, column: str, param: str, label: str, lo: float, hi: float, step: float
) -> Control:
    return {"control_id": control_id, "kind": "slider", "column": column, "param": param, "label": label,
            "min": lo, "max": hi, "step": step}  # fmt: skip


def date_range(control_id: str, column: str, params: list[str], label: str) -> Control:
    return {
        "control_id": control_id,
        "kind": "date_range",
        "column": column,
        "params": params,
        "label": label,
    }


def sort(control_id: str, params: list[str], columns: list[str], label: str) -> Control:
    return {"control_id": control_id, "kind": "sort", "params": params, "columns": columns, "label": label}


def search(control_id: str, param: str, columns: list[str], label: str) -> Control:
    return {"control_id": control_id, "kind": "search", "param": param, "columns": columns, "label": label}
