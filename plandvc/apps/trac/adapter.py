"""Trac 1.6, the issue tracker, as an app site: installed from `locks/trac.lock`, seeded, served by `tracd`.

- Install: its own venv under the apps home (`plandvc.apps.app.install_venv`), Trac and its dependencies pinned
  with hashes (`make lock-apps` re-pins; setuptools stays below 81, since Trac 1.6 imports pkg_resources).
- Seed (`template`): `trac-admin initenv` makes a SQLite environment; then one SQL transaction replaces the
  default components, milestones and versions with seeded ones, adds `Seed.tickets` tickets whose values are
  drawn from `random.Random(seed)` (summaries from the lists below, people from `plandvc.world.vocab`), gives
  anonymous users TICKET_CREATE, TICKET_MODIFY and TICKET_ADMIN (the last for the ticket deleter, which
  trac.ini enables), and sets every stored timestamp from the seed: a ticket's
  `time` and `changetime` are a fixed start (2024-03-01 09:00 UTC) plus seeded hours, the wiki pages and
  versions take the fixed start, milestones are due every 30 days after it. trac.ini shows absolute ISO dates
  in UTC, 10 query results a page, and `status!=closed` as the anonymous default query, enables the ticket
  deleter (`tracopt.ticket.deleter`), and logs nothing.
  The same (seed, tickets) gives the same database rows, byte for byte (a test dumps it twice).
- Serve (`serve`): a fresh copy of the template per session, `tracd -s` on a free loopback port with Trac's
  clock fixed (`CLOCKED_TRACD`: 2024-04-01 00:00 UTC, a microsecond on per reading), ready when `/` answers, stopped with its process group on exit (`plandvc.apps.app.Server`).
- State (`state`): the session database read into the gates' state shape (`plandvc.checks`): `entries`
  {"ticket": rows}, and `changes` worked out against the template: a ticket id the template lacks is a
  create (its fields as created: the current row with the ticket's logged changes undone), each new
  `ticket_change` of a field is an update of that ticket, a template ticket that is gone is a delete.
"""

from __future__ import annotations

import configparser
import contextlib
import random
import sqlite3
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plandvc.apps.app import (
    LOCKS,
    FreshSession,
    Server,
    _run,
    file_hash,
    install_venv,
    quiet_env,
    seeded_template,
    serve_copy,
)
from plandvc.checks import Change, Row
from plandvc.world import vocab

NAME = "trac"
LOCK = LOCKS / "trac.lock"
T0_US = 1_709_283_600 * 1_000_000  # 2024-03-01 09:00:00 UTC, in Trac's microseconds
HOUR_US = 3_600 * 1_000_000
DAY_US = 24 * HOUR_US
FIELDS = (
    "id", "type", "summary", "component", "priority", "severity", "milestone", "version", "owner",
    "reporter", "status", "resolution", "keywords", "description",
)  # fmt: skip
COMPONENTS = (
    "Accounts",
    "Billing",
    "Checkout",
    "Mobile app",
    "Notifications",
    "Reports",
    "Search",
    "Storage",
)
MILESTONES = ("Alpha", "Beta", "Release 1.0", "Release 1.1")
VERSIONS = ("1.0", "1.1", "2.0")
PRIORITIES = ("blocker", "critical", "major", "minor", "trivial")
TYPES = ("defect", "enhancement", "task")
SUBJECTS = (
    "Invoice export", "Password reset email", "Order history page", "Login form", "Search index",
    "Shipping label", "Monthly report", "Push notification", "Profile photo upload", "Coupon field",
    "Backup job", "Currency selector", "Audit log", "Dashboard chart", "Signup wizard", "Refund request",
    "Tax summary", "Session timeout", "Image thumbnail", "Delivery estimate",
)  # fmt: skip
PROBLEMS = (
    "times out on large accounts", "shows the wrong currency", "is missing a total", "fails after upgrade",
    "ignores the language setting", "duplicates entries", "loads very slowly", "crashes on empty input",
    "breaks on narrow screens", "sends two emails", "rounds amounts down", "loses the selected filter",
)  # fmt: skip
STATUS_WEIGHTS = (("new", 5), ("assigned", 3), ("accepted", 2), ("reopened", 1), ("closed", 3))
RESOLUTIONS = ("fixed", "invalid", "wontfix", "duplicate", "worksforme")
INI = {
    "trac": {
        "default_dateinfo_format": "absolute",
        "default_date_format": "iso8601",
        "default_timezone": "UTC",
    },
    "query": {"items_per_page": "10", "default_anonymous_query": "status!=closed"},
    "logging": {"log_type": "none"},
    "header_logo": {"src": ""},
    "project": {"descr": "Seeded tracker for held-out web tasks"},
    "components": {"tracopt.ticket.deleter.*": "enabled"},  # a Delete button on tickets (TICKET_ADMIN)
}


@dataclass(frozen=True)
class Seed:
    """What a seeded Trac holds: the RNG seed and the number of tickets."""

    seed: int = 0
    tickets: int = 40

    @property
    def key(self) -> str:
        return f"s{self.seed}-n{self.tickets}"


def install() -> Path:
    """Trac's venv root (installed on first use)."""
    return install_venv(NAME, LOCK)


def bin_path(root: Path, tool: str) -> str:
    return str(root / "venv" / "bin" / tool)


def template(seed: int = 0, size: int = 40) -> Path:
    """The seeded environment for (seed, size tickets) (made once; sessions copy it): the App's `template`."""
    root, s = install(), Seed(seed, size)
    return seeded_template(NAME, root, f"{s.key}-{_code_key()}", lambda env: seed_env(root, env, s))


def seed_env(root: Path, env: Path, seed: Seed) -> None:
    """A new seeded environment at `env` with the Trac of venv root `root` (see the module docstring)."""
    _run(
        [bin_path(root, "trac-admin"), str(env), "initenv", "Tracker", "sqlite:db/trac.db"],
        "trac-admin initenv",
        env=quiet_env(),
    )
    _configure(env / "conf" / "trac.ini")
    with contextlib.closing(sqlite3.connect(env / "db" / "trac.db")) as db, db:
        _fill(db, seed)


def _code_key() -> str:
    """A key of the seed's code (this module and the word lists): a change to it makes a new template."""
    return file_hash(Path(__file__), Path(vocab.__file__))


def _configure(ini: Path) -> None:
    cp = configparser.RawConfigParser(interpolation=None)
    cp.optionxform = str  # type: ignore[assignment,method-assign]
    cp.read(ini)
    for section, options in INI.items():
        if not cp.has_section(section):
            cp.add_section(section)
        for k, v in options.items():
            cp.set(section, k, v)
    with open(ini, "w") as f:
        cp.write(f)


def people(rng: random.Random, n: int) -> list[str]:
    """n distinct user names (lower-case first names)."""
    return sorted(name.lower() for name in rng.sample(vocab.FIRST, n))


def _fill(db: sqlite3.Connection, seed: Seed) -> None:
    """The seeded rows: components, milestones, versions, tickets, permissions, fixed timestamps."""
    rng = random.Random(seed.seed)
    users = people(rng, 6)
    components = sorted(rng.sample(COMPONENTS, 6))
    db.execute("DELETE FROM component")
    db.execute("DELETE FROM milestone")
    db.execute("DELETE FROM version")
    db.executemany(
        "INSERT INTO component (name, owner, description) VALUES (?, ?, '')",
        [(c, rng.choice(users)) for c in components],
    )
    db.executemany(
        "INSERT INTO milestone (name, due, completed, description) VALUES (?, ?, 0, '')",
        [(m, T0_US + 30 * DAY_US * (i + 1)) for i, m in enumerate(MILESTONES)],
    )
    db.executemany(
        "INSERT INTO version (name, time, description) VALUES (?, ?, '')", [(v, T0_US) for v in VERSIONS]
    )
    pairs = [(s, p) for s in SUBJECTS for p in PROBLEMS]
    summaries = [f"{s} {p}" for s, p in rng.sample(pairs, seed.tickets)]
    statuses = [s for s, w in STATUS_WEIGHTS for _ in range(w)]
    t = T0_US
    for i, summary in enumerate(summaries, start=1):
        t += rng.randint(1, 30) * HOUR_US
        status = rng.choice(statuses)
        owner = rng.choice(users) if status != "new" else ""
        row = {
            "id": i,
            "type": rng.choice(TYPES),
            "time": t,
            "changetime": t + rng.randint(0, 72) * HOUR_US,
            "component": rng.choice(components),
            "severity": None,
            "priority": rng.choice(PRIORITIES),
            "owner": owner,
            "reporter": rng.choice(users),
            "cc": "",
            "version": rng.choice(("", *VERSIONS)),
            "milestone": rng.choice(MILESTONES),
            "status": status,
            "resolution": rng.choice(RESOLUTIONS) if status == "closed" else "",
            "summary": summary,
            "description": f"Steps to reproduce: open the {summary.split()[0].lower()} screen and watch it.",
            "keywords": "",
        }
        cols = ", ".join(row)
        db.execute(f"INSERT INTO ticket ({cols}) VALUES ({', '.join('?' * len(row))})", list(row.values()))
    db.executemany(
        "INSERT INTO permission (username, action) VALUES ('anonymous', ?)",
        [("TICKET_CREATE",), ("TICKET_MODIFY",), ("TICKET_ADMIN",)],
    )
    db.execute("UPDATE wiki SET time = ?", (T0_US,))


# ── serving ───────────────────────────────────────────────────────────────────


NOW_US = 1_711_929_600 * 1_000_000  # 2024-04-01 00:00:00 UTC: tracd's clock in a session
# tracd with Trac's clock (`trac.util.datefmt.time_now` and `datetime_now`, which every Trac module imports
# from there) fixed at NOW_US, one microsecond on per reading: what a session creates or changes is stamped
# the same way in every run (the pages, the screenshots and the roadmap's "late by" show no real time), and two
# changes of one ticket never share a time (ticket_change's key)
CLOCKED_TRACD = """
import datetime, itertools, sys
from trac.util import datefmt
_ticks = itertools.count()
def time_now():
    return ({now_us} + next(_ticks)) / 1e6
def datetime_now(tz=None):
    return datetime.datetime.fromtimestamp(time_now(), tz)
datefmt.time_now, datefmt.datetime_now = time_now, datetime_now
from trac.web.standalone import main
sys.argv[0] = "tracd"
sys.exit(main())
"""


def serve(seed: int = 0, size: int = 40) -> AbstractContextManager[FreshSession]:
    """A fresh copy of the Trac seeded with (seed, size tickets), served by tracd on a free loopback port and
    stopped on exit: the App's `serve`."""
    tpl = template(seed, size)
    root = tpl.parent.parent

    def server(env: Path, port: int) -> Server:
        tracd = [bin_path(root, "python"), "-c", CLOCKED_TRACD.format(now_us=NOW_US)]
        cmd = [*tracd, "-s", "--hostname", "127.0.0.1", "--port", str(port), str(env)]
        return Server(cmd, f"http://127.0.0.1:{port}", probe="/query")

    return serve_copy(NAME, tpl, server, state)


# ── state ─────────────────────────────────────────────────────────────────────


def _connect(env: Path) -> sqlite3.Connection:
    db = sqlite3.connect(f"file:{env / 'db' / 'trac.db'}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    return db


def tickets(env: Path, with_time: bool = False) -> list[Row]:
    """Every ticket, by id, with the fields in FIELDS (custom fields added by name); `with_time`: its `time`
    too (when it was opened: the goal kinds' compare; the gates' state has no time)."""
    cols = (*FIELDS, "time") if with_time else FIELDS
    with contextlib.closing(_connect(env)) as db:
        rows = [
            {k: ("" if r[k] is None else r[k]) for k in cols}
            for r in db.execute(f"SELECT {', '.join(cols)} FROM ticket ORDER BY id")
        ]
        custom: dict[int, dict[str, str]] = {}
        for r in db.execute("SELECT ticket, name, value FROM ticket_custom ORDER BY ticket, name"):
            custom.setdefault(r["ticket"], {})[r["name"]] = r["value"] or ""
    for row in rows:
        row.update(custom.get(int(row["id"] or 0), {}))
    return rows


def ticket_changes(env: Path) -> list[tuple[int, int, str, str, str]]:
    """The field changes logged in ticket_change: (ticket, time, field, old, new), in the order they were made."""
    with contextlib.closing(_connect(env)) as db:
        return [
            (int(r["ticket"]), int(r["time"]), r["field"], r["oldvalue"] or "", r["newvalue"] or "")
            for r in db.execute(
                "SELECT ticket, time, field, oldvalue, newvalue FROM ticket_change ORDER BY time, ticket, field"
            )
        ]


def state(env: Path, template: Path) -> dict[str, Any]:
    """`entries` and `changes` of a session's database against its template (the gates' state shape)."""
    now, before = tickets(env), tickets(template)
    old_ids = {r["id"] for r in before}
    new_ids = {r["id"] for r in now}
    seeded = set(ticket_changes(template))
    logged = [c for c in ticket_changes(env) if c not in seeded]
    changes: list[Change] = []
    for row in now:
        if row["id"] in old_ids:
            continue
        fields = dict(row)
        for ticket, _t, name, old, _new in reversed(logged):
            if ticket == row["id"] and name in fields:
                fields[name] = old
        changes.append({"table": "ticket", "op": "create", "id": row["id"], "fields": fields})
    for ticket, _t, name, _old, new in logged:
        if name.startswith("_") or name == "comment":
            continue
        changes.append({"table": "ticket", "op": "update", "id": ticket, "fields": {name: new}})
    for row in before:
        if row["id"] not in new_ids:
            changes.append({"table": "ticket", "op": "delete", "id": row["id"], "fields": {}})
    return {"entries": {"ticket": now}, "changes": changes}
