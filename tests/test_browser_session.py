"""The harness's session guarantees on the real sites server with real Chromium: parallel sessions are
isolated (clipboard and server state) and a leak would be caught, copies survive a navigation, screenshots
are reproducible, `seen` / `events` are recorded, and a killed Chromium is relaunched."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
from bundled import SPECS, spec_with

from plandvc.browser import Browser, BrowserError, Session

pytestmark = pytest.mark.asyncio(loop_scope="module")

N_PARALLEL = 4
ROUNDS = 5  # copy-then-navigate rounds
SPEC, PAGE = spec_with(lambda s, p: bool(s.table_of(p).create) and s.table_of(p).copy is not None)
TABLE = SPEC.table_of(PAGE)
LIST = f"/sites/{SPEC.site}/{PAGE.page}"


def field_value(column: str, k: int) -> str:
    """A valid, session-specific value for create-form field `column` of session `k`."""
    col = TABLE.column(column)
    if col.type == "enum":
        return col.values[k % len(col.values)]
    if col.type == "number":
        return str(10 + k)
    if col.type == "date":
        return f"2026-01-{10 + k:02d}"
    return f"Isolation Probe {k}"


async def copy_and_create(s: Session, k: int) -> None:
    """Session k copies entry k's value and creates one entry of its own through the site's forms."""
    row = TABLE.rows[k]
    await s.goto(f"{LIST}/{row[TABLE.key]}")
    snap = await s.snapshot()
    (copy,) = [e for e in snap.elements if "data-copy" in e.attrs]
    await s.click(copy.index)
    await s.goto(f"{LIST}/new")
    snap = await s.snapshot()
    for column in TABLE.create:
        (el,) = [e for e in snap.elements if e.attrs.get("name") == column]
        if el.tag == "select":
            await s.select(el.index, field_value(column, k))
        else:
            await s.input(el.index, field_value(column, k))
    (submit,) = [e for e in snap.elements if e.attrs.get("data-control-id", "").endswith("-apply")]
    await s.click(submit.index)


async def isolation_problems(sessions: list[Session]) -> list[str]:
    """Run the copy-and-create script in every session at once; list what each saw that was not its own."""
    await asyncio.gather(*(copy_and_create(s, k) for k, s in enumerate(sessions)))
    problems = []
    for k, s in enumerate(sessions):
        state = await s.backend_state(SPEC.site)
        own = str(TABLE.rows[k][TABLE.copy])
        if state["clipboard"] != [own]:
            problems.append(f"session {k}: clipboard {state['clipboard']} != [{own!r}]")
        creates = [c for c in state["changes"] if c["op"] == "create"]
        mine = {c: field_value(c, k) for c in TABLE.create}
        if len(creates) != 1 or {c: str(v) for c, v in creates[0]["fields"].items() if c in mine} != mine:
            problems.append(f"session {k}: changes {creates} are not just its own create {mine}")
        probes = sorted(r.get(TABLE.create[0]) for r in state["entries"][TABLE.name] if "Probe" in str(r))
        if probes != [v for c, v in mine.items() if c == TABLE.create[0] and "Probe" in v]:
            problems.append(f"session {k}: entries hold probes {probes}")
    return problems


async def test_parallel_sessions_see_only_their_own_clipboard_and_state(browser: Browser, base: str) -> None:
    sessions = [await browser.new_session(base) for _ in range(N_PARALLEL)]
    try:
        assert await isolation_problems(sessions) == []
    finally:
        await asyncio.gather(*(s.close() for s in sessions))
    # close() reset the server state of the sites they touched: a new session of the same cookie jar would
    # not see it; a new session starts from the spec's rows
    fresh = await browser.new_session(base)
    try:
        await fresh.goto(LIST)
        state = await fresh.backend_state()
        assert state["changes"] == [] and len(state["entries"][TABLE.name]) == len(TABLE.rows)
    finally:
        await fresh.close()


async def test_the_isolation_check_catches_a_shared_context(browser: Browser, base: str) -> None:
    """The same checks against sessions that share one context (cookies, binding) must fail."""
    first = await browser.new_session(base)
    shared = [first] + [
        Session(first.context, await first.context.new_page(), base) for _ in range(N_PARALLEL - 1)
    ]
    try:
        problems = await isolation_problems(shared)
    finally:
        await first.close()
    assert any("clipboard" in p for p in problems)
    assert any("changes" in p for p in problems)


async def test_a_copy_is_recorded_once_even_when_the_page_navigates_right_after(session: Session) -> None:
    row = TABLE.rows[0]
    await session.goto(f"{LIST}/{row[TABLE.key]}")
    for n in range(ROUNDS):
        # a button whose handler copies and leaves the page at once, so the binding's reply cannot come back
        nxt = f"{LIST}/{TABLE.rows[(n + 1) % len(TABLE.rows)][TABLE.key]}"
        await session.page.evaluate(
            """([text, url]) => { const b = document.createElement('button'); b.id = 'copy-and-go';
                 b.textContent = 'Copy and go';
                 b.onclick = () => { navigator.clipboard.writeText(text); location.href = url; };
                 document.body.prepend(b); }""",
            [f"copied-{n}", nxt],
        )
        snap = await session.snapshot()
        (button,) = snap.find(id="copy-and-go")
        await session.click(button.index)
        assert session.url == nxt  # the click waited for the page its handler opened
    state = await session.backend_state()
    assert state["clipboard"] == [f"copied-{n}" for n in range(ROUNDS)]
    # a write the binding could not take (here: the binding is made unreachable) stays pending in the tab
    # and is re-sent by the next page, once
    await session.page.evaluate(
        "() => { window.__plandvc_clip = undefined; navigator.clipboard.writeText('pending-write'); }"
    )
    await session.goto(LIST)
    assert (await session.backend_state())["clipboard"][ROUNDS:] == ["pending-write"]
    # execCommand('copy') is captured too, and nothing reaches the shared OS clipboard
    await session.page.evaluate(
        "() => { const t = document.createElement('textarea'); t.value = 'via-exec'; document.body.append(t);"
        " t.select(); document.execCommand('copy'); }"
    )
    assert (await session.backend_state())["clipboard"][-1] == "via-exec"


async def test_screenshots_are_byte_identical_across_fresh_contexts(browser: Browser, base: str) -> None:
    shots = []
    for _ in range(2):
        s = await browser.new_session(base)
        try:
            await s.goto(LIST)
            shots.append(await s.screenshot())
            if len(shots) == 2:  # and another page, for the counter-check below
                await s.goto(f"/sites/{SPEC.site}")
                shots.append(await s.screenshot())
        finally:
            await s.close()
    assert all(shot.startswith(b"\x89PNG\r\n\x1a\n") for shot in shots)
    assert shots[0] == shots[1]
    assert shots[0] != shots[2]  # the comparison can fail: another page differs


async def test_seen_and_events_record_what_happened(session: Session) -> None:
    control = next(c for c in PAGE.controls if c.kind == "dropdown")
    value = TABLE.column(control.column).values[0]
    await session.goto(f"/sites/{SPEC.site}")
    snap = await session.snapshot()
    nav = next(e for e in snap.elements if e.tag == "a" and e.attrs.get("href") == LIST)
    await session.click(nav.index)
    snap = await session.snapshot()
    (select,) = snap.find(**{"data-control-id": control.control_id})
    (apply,) = snap.find(**{"data-control-id": f"{control.control_id}-apply"})
    await session.select(select.index, value)
    await session.click(apply.index)
    filtered = f"{LIST}?{control.param}={value.replace(' ', '+')}"
    assert session.url == filtered
    await session.scroll(300)
    await session.back()
    await session.go_to(f"/sites/{SPEC.site}")
    assert session.seen == [f"/sites/{SPEC.site}", LIST, filtered, LIST, f"/sites/{SPEC.site}"]
    assert [(e["action"], e["value"], e["url"]) for e in session.events] == [
        ("click", None, f"/sites/{SPEC.site}"),
        ("select", value, LIST),
        ("click", None, LIST),
        ("scroll", 300, filtered),
        ("back", None, filtered),
        ("go_to", f"/sites/{SPEC.site}", LIST),
    ]
    assert all(e["type"] == "action" for e in session.events)
    assert session.events[0]["target"] == nav.summary(state=False)
    assert f"data-control-id={control.control_id}" in session.events[1]["target"]


async def test_a_killed_chromium_is_relaunched_by_the_next_session(base: str) -> None:
    async with Browser() as b:
        old = await b.new_session(base)
        await old.goto(f"/sites/{SPEC.site}")
        pid = b.chromium_pid()
        assert pid is not None and b.launches == 1
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(BrowserError):  # the session on the dead browser fails, clearly
            await old.goto(LIST)
        new = await b.new_session(base)
        assert b.launches == 2 and b.alive and b.chromium_pid() not in (None, pid)
        await new.goto(LIST)
        snap = await new.snapshot()
        assert snap.url == LIST and snap.elements
        await new.close()
        await old.close()  # closing a session of the dead browser is harmless
    assert SPECS  # the sites were loaded for this module


async def test_a_killed_driver_is_replaced_by_the_next_session(base: str) -> None:
    """The Playwright driver (a node process of this one) killed: the next session starts a new driver and
    Chromium, instead of failing on the dead driver's "Target ... has been closed"."""
    others = set(driver_pids())  # the drivers of the module's other browsers
    async with Browser() as b:
        old = await b.new_session(base)
        drivers = set(driver_pids()) - others
        assert len(drivers) == 1
        os.kill(drivers.pop(), signal.SIGKILL)
        with pytest.raises(BrowserError):
            await old.goto(LIST)
        new = await b.new_session(base)
        assert b.alive and b.launches == 2 and b.drivers == 2 and len(set(driver_pids()) - others) == 1
        await new.goto(LIST)
        assert (await new.snapshot()).url == LIST
        await new.close()


def driver_pids() -> list[int]:
    """The Playwright drivers this process started (`node ... run-driver`), from /proc."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            args = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and any(a.endswith(b"run-driver") for a in args):
            out.append(int(stat.parent.name))
    return out


async def test_a_session_that_hangs_while_opening_relaunches_chromium(
    base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Playwright's new_page can wait forever on a Chromium killed at the wrong moment: opening a session
    is bounded, and a hang kills and relaunches the browser instead of stalling the worker."""
    import plandvc.browser.chromium as chromium

    real_open = Session.open
    calls = 0

    async def hang_once(context, base_url):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        if calls == 1:
            await asyncio.Event().wait()  # never set: the hang
        return await real_open(context, base_url)

    monkeypatch.setattr(chromium, "SETUP_TIMEOUT_S", 1.0)
    monkeypatch.setattr(Session, "open", hang_once)
    async with Browser() as b:
        first_pid = b.chromium_pid()
        s = await b.new_session(base)
        assert calls == 2 and b.launches == 2 and b.chromium_pid() not in (None, first_pid)
        await s.goto(LIST)
        assert (await s.snapshot()).url == LIST
        await s.close()


async def test_a_session_that_always_hangs_is_a_clear_error(
    base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import plandvc.browser.chromium as chromium

    async def hang(context, base_url):  # type: ignore[no-untyped-def]
        await asyncio.Event().wait()

    monkeypatch.setattr(chromium, "SETUP_TIMEOUT_S", 0.5)
    monkeypatch.setattr(Session, "open", hang)
    async with Browser() as b:
        with pytest.raises(BrowserError, match="cannot open a session: timed out"):
            await b.new_session(base)
