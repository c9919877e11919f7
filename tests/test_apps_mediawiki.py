"""MediaWiki 1.39 as an app site, all real: Debian's packages downloaded, checked against the lock's sha256 and
unpacked under the apps home (outside the checkout and the system), a seeded SQLite wiki, PHP's built-in
server on a free loopback port, Chromium driving its pages, and gates reading MediaWiki's own tables. The
install runs once per apps home (about 20 s; then under a second).

The slow test runs held-out chains twice to the same bytes, and the oracle scores 1.0; recording every macro,
each gate failing on a sibling's real outcome and the replay are tests/test_apps_recorded.py's."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sqlite3
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from plandvc.apps import REGISTRY, debian
from plandvc.apps.app import apps_home
from plandvc.apps.mediawiki import adapter as mediawiki
from plandvc.apps.mediawiki import tasks as mediawiki_tasks
from plandvc.checks import gate
from plandvc.errors import InfrastructureError

REPO = Path(__file__).resolve().parents[1]
APP = REGISTRY["mediawiki"]


def test_the_lock_pins_every_package_with_its_sha256_and_a_wrong_one_is_refused(tmp_path: Path) -> None:
    debs = debian.read_lock(mediawiki.LOCK)
    names = [d.package for d in debs]
    listed = [n for n in (mediawiki.LOCK.with_suffix(".debs")).read_text().split() if not n.startswith("#")]
    assert names == [n for n in listed if n in names] and {
        "mediawiki",
        "php8.2-cli",
        "php8.2-sqlite3",
    } <= set(names)
    assert all(re.fullmatch(r"[0-9a-f]{64}", d.sha256) for d in debs)
    assert next(d for d in debs if d.package == "mediawiki").version.startswith("1:1.39.")
    small = next(d for d in debs if d.package == "libonig5")
    wrong = debian.Deb(small.package, small.version, small.arch, "0" * 64)
    with pytest.raises(InfrastructureError, match="sha256"):
        debian.fetch([wrong], tmp_path / "debs")


def test_install_is_outside_the_checkout_and_quick_when_done() -> None:
    folder = mediawiki.install()
    assert REPO not in folder.parents and apps_home() in folder.parents
    t0 = time.monotonic()
    assert mediawiki.install() == folder
    assert time.monotonic() - t0 < 1.0
    out = subprocess.run(
        [*mediawiki.php_cmd(folder, opcache=True), "-m"], capture_output=True, text=True, check=True,
        env=mediawiki.php_env(folder, folder),
    )  # fmt: skip
    assert {"pdo_sqlite", "intl", "mbstring", "Zend OPcache"} <= set(out.stdout.split("\n"))
    assert (folder / "root" / mediawiki.MW / "includes" / "Setup.php").exists()


def test_the_seed_is_a_function_of_its_inputs(tmp_path: Path) -> None:
    folder = mediawiki.install()
    for name in ("a", "b"):
        mediawiki.seed_env(folder, tmp_path / name, mediawiki.Seed(seed=3, pages=20))
    mediawiki.seed_env(folder, tmp_path / "c", mediawiki.Seed(seed=4, pages=20))
    a, b, c = (mediawiki.env_dump(tmp_path / n) for n in "abc")
    assert a == b and a != c
    pages = mediawiki.pages(tmp_path / "a")
    entries = [p for p in pages if p["namespace"] == 0 and p["categories"]]
    assert len(entries) == 20 and len({p["title"] for p in entries}) == 20
    with contextlib.closing(sqlite3.connect(tmp_path / "a" / "data" / "wiki.sqlite")) as db:
        times = {t for (t,) in db.execute("SELECT rev_timestamp FROM revision")}
        times |= {t for (t,) in db.execute("SELECT rc_timestamp FROM recentchanges")}
        times |= {t for (t,) in db.execute("SELECT user_registration FROM user")}
    assert min(times) == mediawiki.T0 and max(times) < mediawiki.NOW  # every stored time from the seed
    assert (tmp_path / "a" / "LocalSettings.php").read_bytes() == (
        tmp_path / "b" / "LocalSettings.php"
    ).read_bytes()


def _api(base: str, **params: str) -> dict[str, object]:
    """A POST to the wiki's api.php as an anonymous user (whose edit token is "+\\")."""
    data = urllib.parse.urlencode({**params, "format": "json", "token": "+\\"}).encode()
    with urllib.request.urlopen(base + "/api.php", data, timeout=60) as r:
        out: dict[str, object] = json.loads(r.read())
    assert "error" not in out, out
    return out


def test_serve_gives_a_fresh_copy_and_state_reads_mediawikis_tables() -> None:
    """A session's creates, edits and deletes (through MediaWiki's own API) are read as the gates' changes,
    stamped by MediaWiki's fixed clock; the next session starts from the template again."""
    with mediawiki.serve() as s:
        pid, env = s.server.pid, s.env
        assert s.server.rss_kib() > 0 and s.state()["changes"] == []
        city = next(p for p in mediawiki.pages(env) if p["categories"] == "Cities")
        dish = next(p for p in mediawiki.pages(env) if p["categories"] == "Dishes")
        _api(s.base, action="edit", title="Made here", text="A page made here.")
        text = str(city["text"]).replace(f"| {city['Population']}\n", "| 1,234\n")
        _api(s.base, action="edit", title=str(city["title"]), text=text)
        _api(s.base, action="delete", title=str(dish["title"]))
        st = s.state()
        with contextlib.closing(sqlite3.connect(env / "data" / "wiki.sqlite")) as db:
            stamps = {
                t
                for (t,) in db.execute(
                    "SELECT rev_timestamp FROM revision WHERE rev_timestamp > ?",
                    (mediawiki.T0[:8] + "999999",),
                )
            }
    ops = [(c["op"], c["id"]) for c in st["changes"]]
    assert ops[0][0] == "update" and ops[0][1] == city["id"]
    assert [o for o, _ in ops[1:]] == ["create", "delete"] and ops[2][1] == dish["id"]
    assert st["changes"][0]["fields"]["Population"] == "1,234" and "Mayor" not in st["changes"][0]["fields"]
    assert mediawiki.NOW in stamps  # the fixed clock
    created = {
        "kind": "entry_created",
        "table": "page",
        "fields": {"title": "Made here", "text": "A page made here."},
    }
    assert (
        gate(created, {}, st)[0] and not gate(created, {"exclusive": True}, st)[0]
    )  # two other pages changed
    assert gate({"kind": "entry_deleted", "table": "page", "id": str(dish["id"])}, {}, st)[0]
    updated = {
        "kind": "entry_updated",
        "table": "page",
        "id": str(city["id"]),
        "fields": {"Population": "1,234"},
    }
    assert gate(updated, {}, st)[0]
    assert not Path(f"/proc/{pid}").exists() and not env.exists()
    with mediawiki.serve() as s2:
        assert s2.state()["changes"] == [] and s2.env != env
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert str(s2.env) not in out


def test_tasks_are_a_function_of_the_offer_and_seed() -> None:
    from plandvc.chains.compose import compose, delegation
    from plandvc.macros import REGISTRY as MACROS

    o = mediawiki_tasks.offer(mediawiki.template())
    a, b = mediawiki_tasks.MACROS.tasks(o, 0, 2), mediawiki_tasks.MACROS.tasks(o, 0, 2)
    assert a == b and a != mediawiki_tasks.MACROS.tasks(o, 1, 2)
    assert {t["macro"] for t in a} == set(mediawiki_tasks.MACROS.names()) == set(APP.macros)
    assert len(a) == 2 * len(mediawiki_tasks.MACROS.names()) and len(APP.macros) >= 6
    facts = APP.facts(0, 40)
    for t in a:  # each macro keeps the registry's name and check kind; its facts word its values
        assert t["check"]["kind"] == MACROS[t["macro"]].check, t["task_id"]
        ask = facts(t).ask
        said = delegation(ask)
        assert all(v in said for v in ask.get("values", [])), (t["task_id"], said)
        assert str(t["target"].get("title", "")) in said or t["macro"] == "create_entry"
    edit = next(t for t in a if t["macro"] == "edit_entry")
    assert str(edit["target"]["value"]) in compose([facts(edit).ask], [None], "k").request


def test_record_apps_records_two_wiki_tasks(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from plandvc.cli import cli
    from plandvc.io import read_jsonl

    out = tmp_path / "pool"
    args = ["record-apps", "--app", "mediawiki", "--out", str(out), "--per-macro", "1"]
    ok = CliRunner().invoke(cli, [*args, "--macros", "search_by_text,report_information"])
    assert ok.exit_code == 0, ok.output
    assert "2 of 2 tasks kept" in ok.output
    kept = read_jsonl(out / "kept.jsonl")
    assert [k["macro"] for k in kept] == ["report_information", "search_by_text"]
    assert (
        "127.0.0.1"
        not in (out / "runs" / "mediawiki" / "accepted" / kept[0]["id"] / "trajectory.json").read_text()
    )


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wiki's pool, one recording per macro, written by record-apps' own function."""
    from plandvc.apps.record import record_pool

    out = tmp_path_factory.mktemp("mediawiki") / "pool"
    record_pool(APP, out, 0, 40, 1)
    return out


@pytest.mark.slow
@pytest.mark.timeout(900)  # a fresh wiki per task: minutes on a loaded 2-core machine
@pytest.mark.asyncio(loop_scope="module")
async def test_held_out_wiki_chains_are_the_same_twice_and_the_oracle_scores_one(
    pool: Path, tmp_path: Path
) -> None:
    """Chains walked on the recorded pool (questions included), each run on its own fresh wiki and gated
    part by part: all held out, the same bytes twice (rows and screenshots); the oracle scores 1.0
    teacher-forced and in the closed loop, always-done nothing."""
    from plandvc.eval.apps import AppSpecsConfig, app_specs
    from plandvc.eval.apps_run import AppEvalConfig, eval_apps
    from plandvc.io import tree_hash

    specs, again = tmp_path / "specs", tmp_path / "again"
    summary = await asyncio.to_thread(app_specs, AppSpecsConfig("mediawiki", pool, specs, n=3))
    assert summary["chains"] == 3 and summary["held_out"] == 3, summary
    assert await asyncio.to_thread(app_specs, AppSpecsConfig("mediawiki", pool, again, n=3)) == summary
    differ = [p.relative_to(specs) for p in sorted(specs.rglob("*")) if p.is_file()]
    differ = [p for p in differ if (specs / p).read_bytes() != (again / p).read_bytes()]
    assert differ == [] and tree_hash(specs) == tree_hash(again)  # the rows' text and screenshots too
    cfg = AppEvalConfig(specs, pool, tmp_path / "eval", ["oracle", "always-done"])
    metrics = await asyncio.to_thread(eval_apps, cfg)
    assert metrics["oracle"]["teacher_forced"]["step_accuracy"] == 1.0
    assert metrics["oracle"]["closed_loop"]["success"] == 3
    assert metrics["always-done"]["closed_loop"]["success"] == 0
