"""django-oscar 4.2 as an app site, all real: its venv installed from the hash lock (into the apps home, outside
the checkout), a seeded Django project on SQLite with a Whoosh index, Django's runserver on a free loopback
port, Chromium driving the shop's pages, and gates reading Oscar's own database. The install runs once per apps
home (about 30-40 s), the seed once per seed and code (about a minute on a loaded machine).

The slow test runs held-out chains twice; recording every macro, each gate failing on a sibling's real outcome
and the replay are tests/test_apps_recorded.py's, for every app alike."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from plandvc.apps import REGISTRY
from plandvc.apps.app import apps_home, fresh_copy
from plandvc.apps.oscar import adapter as oscar
from plandvc.apps.oscar import facts as oscar_facts
from plandvc.apps.oscar import tasks as oscar_tasks
from plandvc.checks import gate

REPO = Path(__file__).resolve().parents[1]
APP = REGISTRY["oscar"]


def dump(env: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(env / "db.sqlite3")) as db:
        return list(db.iterdump())


def test_the_lock_pins_every_package_with_hashes() -> None:
    text = oscar.LOCK.read_text()
    pins = dict(re.findall(r"^([a-z0-9_.-]+)==(\S+) \\$", text, flags=re.M))
    assert pins["django-oscar"] == "4.2.1" and pins["django"].startswith("4.2.")
    assert pins["whoosh"] and pins["django-haystack"] == "3.2.dev0"
    assert int(pins["setuptools"].split(".")[0]) < 81
    blocks = re.split(r"^(?=[a-z0-9_.-]+==)", text, flags=re.M)[1:]
    assert len(blocks) == len(pins) and all("--hash=sha256:" in b for b in blocks)


def test_install_is_outside_the_checkout_and_quick_when_done() -> None:
    root = oscar.install()
    assert REPO not in root.parents and apps_home() in root.parents
    t0 = time.monotonic()
    assert oscar.install() == root
    assert time.monotonic() - t0 < 1.0
    out = subprocess.run(
        [oscar.python(root), "-c", "import oscar, django; print(oscar.get_version(), django.get_version())"],
        capture_output=True, text=True, check=True, env=oscar.quiet_env(),
    )  # fmt: skip
    assert out.stdout.split()[0] == "4.2.1" and out.stdout.split()[1].startswith("4.2")


def test_the_catalogue_is_a_function_of_the_seed() -> None:
    a, b, c = (
        oscar.catalogue(oscar.Seed(3, 20)),
        oscar.catalogue(oscar.Seed(3, 20)),
        oscar.catalogue(oscar.Seed(4)),
    )
    assert a == b and a != c
    assert len(a["products"]) == 20 and len({p["title"] for p in a["products"]}) == 20
    assert {p["category"] for p in a["products"]} == set(a["categories"]) and len(a["categories"]) == 5


def test_the_seed_is_a_function_of_its_inputs(tmp_path: Path) -> None:
    """Two seeds of the same inputs give the same database, statement for statement (every stored time fixed)."""
    root = oscar.install()
    for name in ("a", "b"):
        oscar.seed_env(root, tmp_path / name / "env", oscar.Seed(seed=3, products=20))
    a, b = (dump(tmp_path / n / "env") for n in "ab")
    assert a == b
    rows = oscar.products(tmp_path / "a" / "env")
    assert len(rows) == 20 and all(r["price"] and r["colour"] and r["material"] for r in rows)
    with contextlib.closing(sqlite3.connect(tmp_path / "a" / "env" / "db.sqlite3")) as db:
        joined = {t for (t,) in db.execute("SELECT date_joined FROM auth_user")}
        created = sorted(t for (t,) in db.execute("SELECT date_created FROM catalogue_product"))
    assert joined == {"2024-03-01 09:00:00"} and created[0] > "2024-03-01 09:00:00"
    assert (tmp_path / "a" / "env" / "whoosh").is_dir()


def test_serve_gives_a_fresh_copy_and_leaves_nothing_running() -> None:
    with oscar.serve() as s:
        pid, env = s.server.pid, s.env
        assert s.server.rss_kib() > 0 and Path(f"/proc/{pid}").exists()
        assert s.state()["changes"] == []
        with contextlib.closing(sqlite3.connect(env / "db.sqlite3")) as db, db:
            db.execute("UPDATE address_useraddress SET line4 = 'Nowhere' WHERE id = 1")
        assert s.state()["changes"] == [
            {"table": "address", "op": "update", "id": 1, "fields": {"city": "Nowhere"}}
        ]
    assert not Path(f"/proc/{pid}").exists()
    assert not env.exists()
    with oscar.serve() as s2:
        assert s2.env != env and s2.state()["changes"] == []
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert str(s2.env) not in out


def test_state_reads_creates_updates_and_deletes_from_oscars_database(tmp_path: Path) -> None:
    tpl = oscar.template()
    env = tmp_path / "env"
    fresh_copy(tpl, env)
    with contextlib.closing(sqlite3.connect(env / "db.sqlite3")) as db, db:
        basket, product = db.execute("SELECT basket_id, product_id FROM basket_line LIMIT 1").fetchone()
        db.execute(
            "INSERT INTO basket_line (id, basket_id, product_id, quantity, line_reference, price_currency, "
            "date_created, date_updated, stockrecord_id) VALUES (99, ?, ?, 1, 'x', 'GBP', 0, 0, ?)",
            (basket, product + 1, product + 1),
        )
        db.execute("UPDATE basket_line SET quantity = 7 WHERE id = 1")
        db.execute("DELETE FROM address_useraddress WHERE id = 2")
    st = oscar.state(env, tpl)
    ops = [(c["table"], c["op"], c["id"]) for c in st["changes"]]
    assert ops == [("basket_line", "update", 1), ("basket_line", "create", 99), ("address", "delete", 2)]
    created = {"kind": "entry_created", "table": "basket_line", "fields": {"quantity": 1}}
    assert gate(created, {}, st)[0]
    assert not gate(created, {"exclusive": True}, st)[0]  # line 1 changed too
    assert gate({"kind": "entry_deleted", "table": "address", "id": "2"}, {"exclusive": True}, st)[0]


def test_tasks_are_a_function_of_the_offer_and_seed() -> None:
    o = oscar_tasks.offer(oscar.template())
    a, b = oscar_tasks.MACROS.tasks(o, 0, 2), oscar_tasks.MACROS.tasks(o, 0, 2)
    assert a == b and a != oscar_tasks.MACROS.tasks(o, 1, 2)
    assert {t["macro"] for t in a} == set(oscar_tasks.MACROS.names()) and len(oscar_tasks.MACROS.names()) >= 8
    assert len(a) == 2 * len(oscar_tasks.MACROS.names())
    from plandvc.macros import REGISTRY as MACROS

    for t in a:  # each macro keeps the registry's name and check kind, and starts on the shop's home
        assert t["check"]["kind"] == MACROS[t["macro"]].check, t["task_id"]
        assert t["start"]["url"] == APP.home


def test_every_task_has_facts_the_composer_words() -> None:
    from plandvc.chains.compose import delegation

    facts = APP.facts(0, 40)
    for task in APP.tasks(0, 40, 2):
        f = facts(task)
        assert f.ask["site"] == "Oscar Shop"
        said = delegation(f.ask)
        for v in f.ask.get("values", []):
            assert v in said, (task["task_id"], said)
        if task["macro"] in ("report_information", "count_entries"):  # a question follows no list part
            assert set(oscar_facts.LIST_SCOPES) <= set(f.scope)


def test_record_apps_writes_an_oscar_pool(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from plandvc.cli import cli
    from plandvc.io import read_jsonl

    out = tmp_path / "pool"
    args = ["record-apps", "--app", "oscar", "--out", str(out), "--per-macro", "1"]
    ok = CliRunner().invoke(cli, [*args, "--macros", "sort_by_form,delete_entry"])
    assert ok.exit_code == 0, ok.output
    assert "2 of 2 tasks kept" in ok.output
    assert [k["macro"] for k in read_jsonl(out / "kept.jsonl")] == ["delete_entry", "sort_by_form"]


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from plandvc.apps.record import record_pool

    out = tmp_path_factory.mktemp("oscar") / "pool"
    record_pool(APP, out, 0, 40, 1, ["create_entry", "report_information", "sort_by_form", "go_to_page"])
    return out


@pytest.mark.slow
@pytest.mark.timeout(900)  # a fresh runserver per task: minutes on a loaded 2-core machine
def test_held_out_shop_chains_run_gated_the_same_twice_and_the_oracle_scores_one(
    pool: Path, tmp_path: Path
) -> None:
    """A create then a question after a trip home, and a sort then a page on the catalogue: walked, run on a
    fresh shop each, held out; the same bytes twice; the oracle 1.0 teacher-forced and in the closed loop."""
    from plandvc.eval.apps import AppSpecsConfig, app_specs
    from plandvc.eval.apps_run import AppEvalConfig, eval_apps
    from plandvc.io import tree_hash

    summary = app_specs(AppSpecsConfig("oscar", pool, tmp_path / "specs", n=3, sizes=(2,)))
    assert summary["held_out"] == summary["chains"] >= 2, summary
    again = app_specs(AppSpecsConfig("oscar", pool, tmp_path / "again", n=3, sizes=(2,)))
    assert again == summary and tree_hash(tmp_path / "specs") == tree_hash(tmp_path / "again")
    metrics = eval_apps(AppEvalConfig(tmp_path / "specs", pool, tmp_path / "eval", ["oracle"]))
    assert metrics["oracle"]["teacher_forced"]["step_accuracy"] == 1.0
    assert metrics["oracle"]["closed_loop"]["success"] == summary["held_out"]
