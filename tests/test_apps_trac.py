"""Trac 1.6 as an app site, all real: its venv installed from the hash lock (into the apps home, outside the
checkout), a seeded SQLite environment, tracd on a free loopback port, Chromium driving its pages, and gates
reading Trac's own database. The install runs once per apps home (about 10-25 s; then under a second).

The end-to-end recording of every macro's tasks, each gate failing on a sibling's real outcome and the replay
are tests/test_apps_recorded.py's, for every app alike."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from plandvc.apps.app import apps_home, fresh_copy
from plandvc.apps.trac import adapter as trac
from plandvc.apps.trac import tasks as trac_tasks
from plandvc.checks import gate
from plandvc.ports import free_ports

REPO = Path(__file__).resolve().parents[1]


def dump(env: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(env / "db" / "trac.db")) as db:
        return list(db.iterdump())


def test_the_lock_pins_every_package_with_hashes() -> None:
    text = trac.LOCK.read_text()
    pins = dict(re.findall(r"^([a-z0-9_.-]+)==(\S+) \\$", text, flags=re.M))
    assert pins["trac"] == "1.6" and int(pins["setuptools"].split(".")[0]) < 81
    blocks = re.split(r"^(?=[a-z0-9_.-]+==)", text, flags=re.M)[1:]
    assert len(blocks) == len(pins) == 4 and all("--hash=sha256:" in b for b in blocks)


def test_install_is_outside_the_checkout_and_quick_when_done() -> None:
    root = trac.install()
    assert REPO not in root.parents and apps_home() in root.parents
    t0 = time.monotonic()
    assert trac.install() == root
    assert time.monotonic() - t0 < 1.0
    out = subprocess.run(
        [trac.bin_path(root, "python"), "-c", "import trac; print(trac.__version__)"],
        capture_output=True, text=True, check=True, env=trac.quiet_env(),
    )  # fmt: skip
    assert out.stdout.strip() == "1.6"


def test_the_seed_is_a_function_of_its_inputs(tmp_path: Path) -> None:
    root = trac.install()
    for name in ("a", "b"):
        trac.seed_env(root, tmp_path / name, trac.Seed(seed=3, tickets=25))
    trac.seed_env(root, tmp_path / "c", trac.Seed(seed=4, tickets=25))
    a, b, c = (dump(tmp_path / n) for n in "abc")
    assert a == b and a != c
    rows = trac.tickets(tmp_path / "a")
    assert len(rows) == 25 and len({r["summary"] for r in rows}) == 25
    with contextlib.closing(sqlite3.connect(tmp_path / "a" / "db" / "trac.db")) as db:
        times = {t for (t,) in db.execute("SELECT time FROM wiki")}
        perms = {a for (a,) in db.execute("SELECT action FROM permission WHERE username='anonymous'")}
    assert times == {trac.T0_US}
    assert {"TICKET_CREATE", "TICKET_MODIFY", "TICKET_ADMIN"} <= perms


def test_serve_gives_a_fresh_copy_and_leaves_nothing_running() -> None:
    with trac.serve() as s:
        pid, env = s.server.pid, s.env
        assert s.server.rss_kib() > 0 and Path(f"/proc/{pid}").exists()
        assert s.state()["changes"] == []
        with contextlib.closing(sqlite3.connect(env / "db" / "trac.db")) as db, db:
            db.execute("UPDATE ticket SET priority='trivial' WHERE id=1")
    assert not Path(f"/proc/{pid}").exists()
    assert not env.exists()
    with trac.serve() as s2:
        assert s2.env != env
        assert next(r for r in trac.tickets(s2.env) if r["id"] == 1) == next(
            r for r in trac.tickets(s2.template) if r["id"] == 1
        )
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert str(s2.env) not in out


def test_a_server_that_dies_is_one_line_and_stopped(tmp_path: Path) -> None:
    from plandvc.apps.app import Server
    from plandvc.errors import InfrastructureError

    port = free_ports(1)[0]
    cmd = [trac.bin_path(trac.install(), "tracd"), "-s", "--port", str(port), str(tmp_path / "no-env")]
    server = Server(cmd, f"http://127.0.0.1:{port}")
    with pytest.raises(InfrastructureError, match="exited"), server:
        pass
    assert server.proc is None


def test_state_reads_creates_updates_and_deletes_from_tracs_database(tmp_path: Path) -> None:
    tpl = trac.template()
    env = tmp_path / "env"
    fresh_copy(tpl, env)
    with contextlib.closing(sqlite3.connect(env / "db" / "trac.db")) as db, db:
        db.execute(
            "INSERT INTO ticket (id, type, time, changetime, component, priority, status, summary, owner, "
            "reporter) VALUES (99, 'task', 1, 1, 'Search', 'minor', 'new', 'Made here', '', 'anonymous')"
        )
        db.execute("INSERT INTO ticket_change VALUES (99, 2, 'anonymous', 'priority', 'minor', 'major')")
        db.execute("UPDATE ticket SET priority='major' WHERE id=99")
        db.execute("INSERT INTO ticket_change VALUES (2, 2, 'anonymous', 'component', 'x', 'Search')")
        db.execute("INSERT INTO ticket_change VALUES (2, 2, 'anonymous', 'comment', '1', 'hello')")
        db.execute("DELETE FROM ticket WHERE id=3")
    st = trac.state(env, tpl)
    ops = [(c["op"], c["id"]) for c in st["changes"]]
    assert ops == [("create", 99), ("update", 2), ("update", 99), ("delete", 3)]  # updates by time, ticket
    created = st["changes"][0]["fields"]
    assert created["priority"] == "minor" and created["summary"] == "Made here"  # as created
    created_check = {"kind": "entry_created", "table": "ticket", "fields": {"summary": "Made here"}}
    assert gate(created_check, {}, st)[0]
    assert not gate(created_check, {"exclusive": True}, st)[0]  # ticket 2 changed too
    assert gate({"kind": "entry_deleted", "table": "ticket", "id": "3"}, {}, st)[0]


def test_tasks_are_a_function_of_the_offer_and_seed() -> None:
    o = trac_tasks.offer(trac.template())
    a, b = trac_tasks.MACROS.tasks(o, 0, 2), trac_tasks.MACROS.tasks(o, 0, 2)
    assert a == b and a != trac_tasks.MACROS.tasks(o, 1, 2)
    assert {t["macro"] for t in a} == set(trac_tasks.MACROS.names())
    assert len(a) == 2 * len(trac_tasks.MACROS.names())
    from plandvc.macros import REGISTRY

    for t in a:  # each macro keeps the registry's name and check kind
        assert t["check"]["kind"] == REGISTRY[t["macro"]].check, t["task_id"]


def test_record_apps_writes_a_pool_and_refuses_unknown_names(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from plandvc.cli import cli
    from plandvc.io import read_jsonl

    runner = CliRunner()
    bad = runner.invoke(cli, ["record-apps", "--app", "nope", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 1 and "unknown app 'nope'" in bad.output
    bad = runner.invoke(cli, ["record-apps", "--out", str(tmp_path / "x"), "--macros", "fly"])
    assert bad.exit_code == 1 and "trac has no macro fly" in bad.output
    out = tmp_path / "pool"
    args = ["record-apps", "--out", str(out), "--per-macro", "1", "--macros", "search_by_text,delete_entry"]
    ok = runner.invoke(cli, args)
    assert ok.exit_code == 0, ok.output
    assert "2 of 2 tasks kept" in ok.output
    assert [k["macro"] for k in read_jsonl(out / "kept.jsonl")] == ["delete_entry", "search_by_text"]
