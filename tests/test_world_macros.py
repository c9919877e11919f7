"""The world's widget macros switch_tab, choose_suggestion and delete_entry: offered only where a site has the
widget (on >= 10 world sites each, on none of the original sites), the server's tabs and delete, each recorded
by make-pool in real Chromium, each gate failing on a wrong attempt done in Chromium (the wrong tab, the whole
text typed and searched without the list, another suggestion, the confirmation dialog cancelled, another entry
deleted), and a chain holding each of them passing the chain run."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from chain_run import run_chains
from world_sample import WIDGET_SITES, RecordedSample

from plandvc import io
from plandvc.checks import gate
from plandvc.macros import macro
from plandvc.pool.tasks import site_tasks
from plandvc.sites.model import ENTRY_TABS
from plandvc.sites.server import App
from plandvc.sites.spec import Spec, load_sites

ROOT = Path(__file__).resolve().parents[1]
NEW = ("switch_tab", "choose_suggestion", "delete_entry")
# of the session's recorded world sample (`world_sample`): tabs and an autocomplete search, no banner (a
# dashboard and a card grid); and one with a cookie banner and a top bar, recorded only
CHAINED = WIDGET_SITES
SITES = (*CHAINED, "code-forgehub")


def has_widget(spec: Spec, name: str) -> bool:
    if name == "switch_tab":
        return spec.theme.tabs
    if name == "choose_suggestion":
        return any(c.kind == "search" and c.implementation == "autocomplete" for _, c in spec.controls)
    return any(t.delete for t in spec.tables.values())


def written(t: Any) -> set[str]:
    """The values a task's instruction must quote, besides its entry."""
    target = t["target"]
    if t["macro"] == "switch_tab":
        return {dict(ENTRY_TABS)[target["tab"]]}
    if t["macro"] == "choose_suggestion":
        return {target["text"], target["typed"]}
    return set()


@pytest.fixture(scope="module")
def world(world0: Path) -> Path:
    """The session's generated world (read-only)."""
    return world0


def test_offered_only_where_the_widget_is_and_on_ten_world_sites(world: Path) -> None:
    for spec in load_sites(ROOT / "data" / "sites").values():
        assert not any(has_widget(spec, m) for m in NEW)
        assert not [t for t in site_tasks(spec) if t["macro"] in NEW]
    offered = dict.fromkeys(NEW, 0)
    for spec in load_sites(world).values():
        tasks = site_tasks(spec)
        for m in NEW:
            mine = [t for t in tasks if t["macro"] == m]
            assert bool(mine) == has_widget(spec, m), (spec.site, m)
            offered[m] += bool(mine)
            for t in mine:
                assert t["check"]["kind"] == macro(m).check
                quoted = set(re.findall(r'"([^"]+)"', t["instruction"]))
                assert written(t) <= quoted and quoted, t["instruction"]
    assert min(offered.values()) >= 10, offered


def test_their_chain_roles() -> None:
    tab, sugg, delete = (macro(m) for m in NEW)
    # a tab is URL state: it stays on the entry's page, and a trip home after it would undo it
    assert tab.url_state and tab.leaves_page and tab.continues_page and tab.family == "Navigation"
    # a search chosen from the list is a page seen, like search_by_text
    assert (sugg.url_state, sugg.leaves_page, sugg.continues_page) == (False, True, True)
    assert sugg.check == "visited" and sugg.family == "Filter"
    # a delete changes the backend and leaves the entry's page (it lands on the list)
    assert (delete.url_state, delete.leaves_page, delete.continues_page) == (False, False, False)
    assert delete.check == "entry_deleted" and delete.scope == {"table", "entry", "query"}


def test_the_server_deletes_per_session_and_shows_tabs(world: Path) -> None:
    specs = load_sites(world)
    app = App(specs)
    spec = specs["papers-scholarvault"]
    page = next(p for p in spec.pages if spec.table_of(p).delete)
    table = spec.table_of(page)
    rid = str(table.rows[0][table.key])
    entry = f"/sites/{spec.site}/{page.page}/{rid}"
    html = app.handle("GET", entry, "a").body.decode()
    assert f'action="{entry}/delete"' in html and 'role="alertdialog"' in html
    assert app.handle("GET", f"{entry}/delete", "a").status == 405
    resp = app.handle("POST", f"{entry}/delete", "a")
    assert resp.status == 303 and resp.location == f"/sites/{spec.site}/{page.page}"
    assert app.handle("GET", entry, "a").status == 404 and app.handle("GET", entry, "b").status == 200
    [change] = app.store.snapshot("a", spec.site)["changes"]
    assert change["op"] == "delete" and change["id"] == rid and change["before"] == table.rows[0]
    assert app.handle("POST", f"{entry}/delete", "a").status == 404
    # tabs: the first is the page itself, the others a `tab` parameter; an unknown tab is a 400
    assert 'data-tab-panel="overview"' in app.handle("GET", entry, "b").body.decode()
    for name, _ in ENTRY_TABS[1:]:
        shown = app.handle("GET", f"{entry}?tab={name}", "b").body.decode()
        assert f'data-tab-panel="{name}"' in shown and f'href="{entry}?tab={name}" role="tab"' in shown
    assert app.handle("GET", f"{entry}?tab=reviews", "b").status == 400
    # the original sites have neither: a delete is a 404 and the tab parameter is not read
    shop = App(load_sites(ROOT / "data" / "sites"))
    orders = shop.specs["shop"].page("orders")
    assert orders is not None
    first = str(shop.specs["shop"].table_of(orders).rows[0]["id"])
    assert shop.handle("POST", f"/sites/shop/orders/{first}/delete", "a").status == 404
    assert shop.handle("GET", f"/sites/shop/orders/{first}?tab=x", "a").status == 200


# ── in Chromium ──────────────────────────────────────────────────────────────────────────────────────


async def attempt(
    sites: Path, site: str, start: str, act: Callable[[Any], Awaitable[None]]
) -> dict[str, Any]:
    """The gate state a session shows after `act(playwright page)` from `start`, in real Chromium."""
    from plandvc.browser import Browser
    from plandvc.ports import free_ports
    from plandvc.sites.servers import Servers

    with Servers(free_ports(1), sites) as servers:
        async with Browser() as browser:
            session = await browser.new_session(servers.bases[0])
            try:
                assert await session.goto(start) == 200
                await act(session.page)
                await session.page.wait_for_load_state()
                backend = await session.backend_state(site)
                return {"url": session.url, "seen": list(session.seen), **backend, "answer": None}
            finally:
                await session.close()


async def navigating(pg: Any, target: Any) -> None:
    """Click `target` and wait for the page it loads."""
    async with pg.expect_navigation():
        await target.click()


def task_of(pool: Path, site: str, name: str) -> dict[str, Any]:
    d = next((pool / "runs" / "r1" / "accepted").glob(f"{site}-{name}-*"))
    task: dict[str, Any] = io.read_json(d / "task.json")
    return task


def passes(task: dict[str, Any], state: dict[str, Any]) -> bool:
    return gate(task["check"], task.get("verifier") or {}, state)[0]


def wrong_attempts_fail(pool: Path, sites: Path, site: str) -> None:
    """Each new macro's gate on wrong attempts done in Chromium (and on the right one, so it can pass)."""
    run = lambda start, act: asyncio.run(attempt(sites, site, start, act))  # noqa: E731

    tab = task_of(pool, site, "switch_tab")
    label = dict(ENTRY_TABS)[tab["target"]["tab"]]
    other = next(lb for n, lb in ENTRY_TABS[1:] if n != tab["target"]["tab"])
    for name, ok in ((other, False), (label, True)):
        state = run(
            tab["check"]["path"],
            lambda pg, name=name: navigating(pg, pg.get_by_role("tab", name=name, exact=True)),
        )
        assert passes(tab, state) is ok, (name, state["url"])

    sugg = task_of(pool, site, "choose_suggestion")
    text, typed = sugg["target"]["text"], sugg["target"]["typed"]
    box = f'[data-control-id="{sugg["target"]["control_id"]}"]'
    item = f'[data-control-id="{sugg["target"]["control_id"]}-suggestion"]'
    lp = sugg["check"]["path"]

    async def whole_text(pg: Any) -> None:  # typed in full and searched with the button, the list unused
        await pg.locator(f"input{box}").fill(text)
        await navigating(pg, pg.locator(f'[data-control-id="{sugg["target"]["control_id"]}-apply"]'))

    async def choose(pg: Any, pick: str | None) -> None:
        await pg.locator(f"input{box}").fill(typed)
        items = pg.locator(item)
        await items.first.wait_for()
        texts = await items.all_inner_texts()
        assert text in texts and len(texts) >= 2, texts
        await navigating(
            pg, items.nth(texts.index(pick) if pick else next(i for i, t in enumerate(texts) if t != text))
        )

    state = run(lp, whole_text)
    assert parse_qs(urlsplit(state["url"]).query) == {"q": [text]} and not passes(sugg, state)
    assert not passes(sugg, run(lp, lambda pg: choose(pg, None)))
    assert passes(sugg, run(lp, lambda pg: choose(pg, text)))

    delete = task_of(pool, site, "delete_entry")
    singular = load_sites(sites)[site].tables[delete["check"]["table"]].singular
    confirm = f'[data-control-id="{delete["control"]["control_id"]}-confirm"]'

    async def open_dialog(pg: Any) -> None:
        await pg.get_by_role("button", name=f"Delete {singular}", exact=True).click()
        await pg.get_by_role("alertdialog").wait_for()

    async def cancel(pg: Any) -> None:
        await open_dialog(pg)
        await pg.get_by_role("alertdialog").get_by_role("button", name="Cancel").click()
        assert not await pg.get_by_role("alertdialog").is_visible()

    async def confirm_on(pg: Any) -> None:
        await open_dialog(pg)
        await navigating(pg, pg.locator(confirm))

    # on the entry's own page (a list with per-row actions starts the task there; its dialog is the same)
    entry = f"/sites/{site}/{delete['target']['page']}/{delete['target']['entry']}"
    state = run(entry, cancel)
    assert state["changes"] == [] and not passes(delete, state)
    another = next(
        f"{entry.rsplit('/', 1)[0]}/{r['id']}"
        for r in load_sites(sites)[site].tables[delete["check"]["table"]].rows
        if str(r["id"]) != delete["check"]["id"]
    )
    assert not passes(delete, run(another, confirm_on))
    state = run(entry, confirm_on)
    assert passes(delete, state) and [c["op"] for c in state["changes"]] == ["delete"]


@pytest.mark.slow
@pytest.mark.timeout(2400)  # the session's recording (`world_sample`) is made by the first test that asks
def test_recorded_gated_and_chained(world_sample: RecordedSample) -> None:
    from plandvc.chains.items import pool_items
    from plandvc.chains.walk import chain_specs

    sites, pool, n = world_sample.sites, world_sample.pool, world_sample.per_macro
    assert world_sample.exit_code == 0, world_sample.output
    for name in SITES:
        assert [world_sample.accepted[(name, m)] for m in NEW] == [n, n, n], (name, world_sample.rejected)
    assert not [k for k in world_sample.rejected if k[1] in NEW], world_sample.rejected
    for d in sorted((pool / "runs" / "r1" / "accepted").glob("*-switch_tab-*")):
        tab = io.read_json(d / "task.json")["target"]["tab"]
        assert io.read_json(d / "trajectory.json")["end"].endswith(f"?tab={tab}")

    wrong_attempts_fail(pool, sites, CHAINED[0])

    records, report = pool_items(pool, sites)
    assert not report["unreadable"]
    records = [r for r in records if r["site"] in SITES]
    macro_of = {r["id"]: r["macro"] for r in records}
    chains = [c for c in chain_specs(records, 400, seed=0) if c["site"] in CHAINED]

    def prepared(part_id: str) -> bool:
        return bool(
            io.read_json(pool / "runs" / "r1" / "accepted" / part_id / "task.json")["control"]["prep"]
        )

    picked = []
    for m in NEW:
        chain = next(
            c
            for c in chains
            if m in {macro_of[p["id"]] for p in c["parts"]} and not any(prepared(p["id"]) for p in c["parts"])
        )
        picked.append(chain)
        if m == "switch_tab":  # a trip home would undo the tab: nothing after it comes via home
            i = next(k for k, p in enumerate(chain["parts"]) if macro_of[p["id"]] == m)
            assert all(p["via"] != "home" for p in chain["parts"][i + 1 :]), chain
    results = asyncio.run(run_chains(picked, pool, sites))
    assert all(ok for ok, _ in results), results


def test_the_pool_doc_lists_every_macro_with_its_record() -> None:
    """docs/POOL.md's table of macros says what each registry record says (family, check, scope, roles)."""
    from plandvc.macros import REGISTRY

    text = (ROOT / "docs" / "POOL.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)` \| (.+) \|$", text, re.M)}
    assert list(rows) == list(REGISTRY)
    for name, m in REGISTRY.items():
        roles = [r for r in ("url_state", "leaves_page", "continues_page", "question") if getattr(m, r)]
        family, check, scope, role, _where = (c.strip() for c in rows[name].split("|"))
        assert (family, check) == (m.family, f"`{m.check}`"), name
        assert scope == (", ".join(sorted(m.scope)) or "—") and role == (", ".join(roles) or "—"), name
