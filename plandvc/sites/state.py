"""Per-session backend state of the sites: entries and the change log, per (session, site), copy-on-write.

A session that never changed a site reads the spec's rows directly; its first create/update/delete copies that
site's tables. Sessions never see each other's state. No clocks, no randomness: new ids are the largest
numeric id of the table in that session + 1, with the ids' prefix and zero padding (`ORD-1042` -> `ORD-1043`).
"""

from __future__ import annotations

import copy
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from plandvc.sites.query import BadValue, parse_number
from plandvc.sites.spec import Spec, Table, is_date

_NUMBERED = re.compile(r"^(.*?)(\d+)$")


@dataclass
class SiteState:
    """One session's copy of one site: its tables (all copied on first write) and its changes."""

    entries: dict[str, list[dict[str, Any]]]
    changes: list[dict[str, Any]] = field(default_factory=list)


def next_id(table: Table, rows: list[dict[str, Any]]) -> str:
    """The largest numeric id + 1, keeping the prefix and width of the id it follows."""
    best: tuple[int, str, int] | None = None
    for r in rows:
        m = _NUMBERED.match(str(r[table.key]))
        if m and (best is None or int(m.group(2)) > best[0]):
            best = (int(m.group(2)), m.group(1), len(m.group(2)))
    if best is None:
        return str(len(rows) + 1)
    n, prefix, width = best
    return f"{prefix}{str(n + 1).zfill(width)}"


def coerce_fields(table: Table, names: tuple[str, ...], form: dict[str, list[str]]) -> dict[str, Any]:
    """Typed values of the form fields `names`; a missing, empty or malformed one is a BadValue."""
    out: dict[str, Any] = {}
    for name in names:
        col = table.column(name)
        got = form.get(name, [])
        if len(got) > 1:
            raise BadValue(f"field {name!r} given {len(got)} times")
        text = got[0].strip() if got else ""
        if not text:
            raise BadValue(f"{col.label} is required")
        if col.type == "enum":
            if text not in col.values:
                raise BadValue(f"{col.label}: {text!r} is not one of {', '.join(col.values)}")
            out[name] = text
        elif col.type == "number":
            try:
                out[name] = parse_number(text)
            except BadValue:
                raise BadValue(f"{col.label}: {text!r} is not a number") from None
        elif col.type == "date":
            if not is_date(text):
                raise BadValue(f"{col.label}: {text!r} is not a date YYYY-MM-DD")
            out[name] = text
        else:
            if len(text) > 200:
                raise BadValue(f"{col.label}: longer than 200 characters")
            out[name] = text
    return out


class StateStore:
    """All sessions' state for a set of specs; thread-safe (one lock, operations are tiny)."""

    def __init__(self, specs: dict[str, Spec]):
        self.specs = specs
        self._lock = threading.Lock()
        self._states: dict[tuple[str, str], SiteState] = {}

    def rows(self, session: str, site: str, table: str) -> list[dict[str, Any]]:
        """The table's rows as this session sees them (do not mutate)."""
        with self._lock:
            st = self._states.get((session, site))
            return list(st.entries[table]) if st else list(self.specs[site].tables[table].rows)

    def entry(self, session: str, site: str, table: str, entry_id: str) -> dict[str, Any] | None:
        key = self.specs[site].tables[table].key
        for r in self.rows(session, site, table):
            if r[key] == entry_id:
                return r
        return None

    def snapshot(self, session: str, site: str) -> dict[str, Any]:
        """The state API's body: `{"entries": {table: rows}, "changes": [...]}` (deep copies)."""
        with self._lock:
            st = self._states.get((session, site))
            if st is None:
                entries = {t: [dict(r) for r in tab.rows] for t, tab in self.specs[site].tables.items()}
                return {"entries": entries, "changes": []}
            return copy.deepcopy({"entries": st.entries, "changes": st.changes})

    def _own(self, session: str, site: str) -> SiteState:
        st = self._states.get((session, site))
        if st is None:
            tables = self.specs[site].tables
            st = SiteState(entries={t: [dict(r) for r in tab.rows] for t, tab in tables.items()})
            self._states[(session, site)] = st
        return st

    def create(self, session: str, site: str, table: str, fields: dict[str, Any]) -> str:
        """Append an entry with a new id; log `{"op": "create", ..., "before": null}`; return the id."""
        tab = self.specs[site].tables[table]
        with self._lock:
            st = self._own(session, site)
            rows = st.entries[table]
            new_id = next_id(tab, rows)
            row = {c.name: fields.get(c.name, _blank(c.type)) for c in tab.columns}
            row[tab.key] = new_id
            rows.append(row)
            st.changes.append(
                {"seq": len(st.changes) + 1, "op": "create", "table": table, "id": new_id,
                 "fields": dict(fields), "before": None}
            )  # fmt: skip
            return new_id

    def update(self, session: str, site: str, table: str, entry_id: str, fields: dict[str, Any]) -> bool:
        """Set the changed fields of an entry; log `{"op": "update", fields, before}`; False if unchanged."""
        tab = self.specs[site].tables[table]
        with self._lock:
            current = self._states.get((session, site))
            rows = current.entries[table] if current else list(tab.rows)
            row = next((r for r in rows if r[tab.key] == entry_id), None)
            if row is None:
                raise KeyError(entry_id)
            changed = {k: v for k, v in fields.items() if row[k] != v}
            if not changed:
                return False
            st = self._own(session, site)
            row = next(r for r in st.entries[table] if r[tab.key] == entry_id)
            before = {k: row[k] for k in changed}
            row.update(changed)
            st.changes.append(
                {"seq": len(st.changes) + 1, "op": "update", "table": table, "id": entry_id,
                 "fields": changed, "before": before}
            )  # fmt: skip
            return True

    def delete(self, session: str, site: str, table: str, entry_id: str) -> None:
        """Remove an entry; log `{"op": "delete", "fields": {}, "before": <the row>}`; KeyError if absent."""
        tab = self.specs[site].tables[table]
        with self._lock:
            st = self._own(session, site)
            rows = st.entries[table]
            at = next((i for i, r in enumerate(rows) if r[tab.key] == entry_id), None)
            if at is None:
                raise KeyError(entry_id)
            before = rows.pop(at)
            st.changes.append(
                {"seq": len(st.changes) + 1, "op": "delete", "table": table, "id": entry_id,
                 "fields": {}, "before": before}
            )  # fmt: skip

    def reset(self, session: str, site: str) -> None:
        with self._lock:
            self._states.pop((session, site), None)


def _blank(col_type: str) -> Any:
    return 0 if col_type == "number" else ""
