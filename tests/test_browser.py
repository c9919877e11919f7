"""The browser harness on the real sites server with real Chromium: the snapshot lists every control, actions
by index hit the right element, stale indices are refused, and the errors name what is missing."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from bundled import LIST_PAGES, SPECS, control_of

from plandvc.browser import (
    ActionError,
    Browser,
    ChromiumMissingError,
    ServerDownError,
    Session,
    StaleIndexError,
)
from plandvc.ports import free_ports

pytestmark = pytest.mark.asyncio(loop_scope="module")


def query(session: Session) -> dict[str, list[str]]:
    return parse_qs(urlsplit(session.url).query)


def path(session: Session) -> str:
    return urlsplit(session.url).path


def by_control(snap, control_id: str):
    found = snap.find(**{"data-control-id": control_id})
    assert found, f"no element with data-control-id={control_id} in\n{snap.render()}"
    return found


@pytest.mark.parametrize(("site", "page"), LIST_PAGES)
async def test_snapshot_lists_every_control_of_the_page(session: Session, site: str, page: str) -> None:
    spec = SPECS[site]
    await session.goto(f"/sites/{site}/{page}")
    snap = await session.snapshot()
    want = {c.control_id for c in spec.page(page).controls}
    listed = {e.attrs["data-control-id"] for e in snap.elements if "data-control-id" in e.attrs}
    assert want <= listed
    assert {f"{c}-apply" for c in want} <= listed
    # the home link, every entry of the (unfiltered) table, and nothing hidden
    assert snap.find(**{"data-home": ""})
    table = spec.table_of(spec.page(page))
    entry_links = {e.attrs["href"] for e in snap.elements if e.tag == "a"}
    for row in table.rows:
        assert any(
            h.startswith(f"/sites/{site}/{page}/") and h.endswith(f"/{row[table.key]}") for h in entry_links
        )
    assert all(e.attrs.get("type") != "hidden" for e in snap.elements)
    # each listed element is tagged with its index, and render() has one line per element
    tags = await session.page.evaluate(
        "() => [...document.querySelectorAll('[data-pdx]')].map(e => +e.dataset.pdx)"
    )
    assert tags == list(range(len(snap.elements)))
    lines = snap.render().splitlines()
    assert len(lines) == len(snap.elements)
    assert all(line.startswith(f"[{i}]<") for i, line in enumerate(lines))
    assert snap.url == f"/sites/{site}/{page}" and snap.title and snap.viewport == (1280, 800)
    assert snap.page_height >= 800 and snap.scroll_y == 0


async def test_the_snapshot_fails_when_a_control_is_missing(session: Session) -> None:
    """The check above is real: remove one control from the page and it no longer holds."""
    site, page = LIST_PAGES[0]
    control = SPECS[site].page(page).controls[0].control_id
    await session.goto(f"/sites/{site}/{page}")
    await session.page.evaluate(
        "(id) => document.querySelectorAll(`[data-control-id='${id}']`).forEach(e => e.remove())", control
    )
    snap = await session.snapshot()
    assert not snap.find(**{"data-control-id": control})


async def test_clicking_a_link_by_index_loads_its_url(session: Session) -> None:
    site = sorted(SPECS)[0]
    await session.goto(f"/sites/{site}")
    snap = await session.snapshot()
    targets = [
        (e.index, e.attrs["href"])
        for e in snap.elements
        if e.tag == "a" and e.attrs.get("href", "").startswith(f"/sites/{site}/")
    ]
    assert len(targets) >= 2
    for index, href in targets:
        await session.goto(f"/sites/{site}")
        snap = await session.snapshot()
        assert snap.elements[index].attrs["href"] == href
        await session.click(index)
        assert session.url == href


async def test_select_then_apply_sets_the_query(session: Session) -> None:
    spec, page, control = control_of("dropdown")
    value = spec.table_of(page).column(control.column).values[1]
    await session.goto(f"/sites/{spec.site}/{page.page}")
    snap = await session.snapshot()
    (select,) = by_control(snap, control.control_id)
    await session.select(select.index, value)
    await session.click(by_control(snap, f"{control.control_id}-apply")[0].index)
    assert path(session) == f"/sites/{spec.site}/{page.page}"
    assert query(session) == {control.param: [value]}
    # the new page shows the choice; an unknown option is refused with the options listed
    snap = await session.snapshot()
    (select,) = by_control(snap, control.control_id)
    assert select.value == value
    with pytest.raises(ActionError, match="no option 'No such value'"):
        await session.select(select.index, "No such value")


async def test_set_range_then_apply_sets_the_query(session: Session) -> None:
    spec, page, control = control_of("slider")
    mid = control.min + control.step * int((control.max - control.min) / control.step / 2)
    await session.goto(f"/sites/{spec.site}/{page.page}")
    snap = await session.snapshot()
    (slider,) = by_control(snap, control.control_id)
    kept = await session.set_range(slider.index, mid)
    assert float(kept) == mid
    await session.click(by_control(snap, f"{control.control_id}-apply")[0].index)
    assert {k: [float(x) for x in v] for k, v in query(session).items()} == {control.param: [mid]}
    snap = await session.snapshot()
    with pytest.raises(ActionError, match="not an <input type=range>"):
        await session.set_range(by_control(snap, f"{control.control_id}-apply")[0].index, 10)


async def test_input_then_apply_sets_the_query(session: Session) -> None:
    spec, page, control = control_of("search")
    table = spec.table_of(page)
    text = str(table.rows[0][control.columns[0]]).split()[0]
    await session.goto(f"/sites/{spec.site}/{page.page}")
    snap = await session.snapshot()
    (box,) = by_control(snap, control.control_id)
    await session.input(box.index, text)
    await session.click(by_control(snap, f"{control.control_id}-apply")[0].index)
    assert query(session) == {control.param: [text]}


async def test_date_range_inputs_then_apply_set_the_query(session: Session) -> None:
    spec, page, control = control_of("date_range")
    await session.goto(f"/sites/{spec.site}/{page.page}")
    snap = await session.snapshot()
    start, end = by_control(snap, control.control_id)
    await session.input(start.index, "2026-01-01")
    await session.input(end.index, "2026-02-28")
    await session.click(by_control(snap, f"{control.control_id}-apply")[0].index)
    assert query(session) == {control.params[0]: ["2026-01-01"], control.params[1]: ["2026-02-28"]}


async def test_option_checkboxes_then_apply_set_the_query(session: Session) -> None:
    spec, page, control = control_of("options")
    await session.goto(f"/sites/{spec.site}/{page.page}")
    snap = await session.snapshot()
    boxes = by_control(snap, control.control_id)
    assert len(boxes) >= 2 and all(b.attrs.get("type") == "checkbox" for b in boxes)
    await session.click(boxes[0].index)
    await session.click(boxes[1].index)
    await session.click(by_control(snap, f"{control.control_id}-apply")[0].index)
    assert query(session) == {control.param: [boxes[0].attrs["value"], boxes[1].attrs["value"]]}


async def test_an_index_is_stale_after_navigation_or_a_new_snapshot(session: Session) -> None:
    site = sorted(SPECS)[0]
    with pytest.raises(StaleIndexError, match="no snapshot taken yet"):
        await session.click(0)
    await session.goto(f"/sites/{site}")
    first = await session.snapshot()
    link = next(e for e in first.elements if e.tag == "a" and e.attrs["href"] != f"/sites/{site}")
    await session.click(link.index)
    with pytest.raises(StaleIndexError, match="navigated since"):
        await session.click(link.index)
    second = await session.snapshot()
    with pytest.raises(StaleIndexError, match=f"snapshot #{second.generation} was taken since"):
        await session.click(0, snapshot=first)
    # goto() is a navigation too; and the current snapshot's indices keep working
    await session.goto(f"/sites/{site}")
    with pytest.raises(StaleIndexError):
        await session.click(0, snapshot=second)
    third = await session.snapshot()
    await session.click(link.index, snapshot=third)
    assert session.url == link.attrs["href"]


async def test_server_down_is_a_clear_error_naming_the_url(browser: Browser) -> None:
    dead = f"http://127.0.0.1:{free_ports(1)[0]}"
    s = await browser.new_session(dead)
    try:
        with pytest.raises(ServerDownError, match=f"cannot load {dead}/sites/shop/orders"):
            await s.goto("/sites/shop/orders")
        with pytest.raises(ServerDownError, match=f"{dead}/_state/shop"):
            await s.backend_state("shop")
    finally:
        await s.close()


async def test_server_up_is_not_an_error(session: Session) -> None:
    """The counterpart of the test above: the same calls on a live server succeed."""
    site = sorted(SPECS)[0]
    assert await session.goto(f"/sites/{site}") == 200
    state = await session.backend_state()
    assert set(state) == {"entries", "changes", "clipboard"} and state["changes"] == []


async def test_missing_chromium_is_a_clear_one_line_error(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    missing = str(tmp_path / "no-chromium")
    monkeypatch.setenv("PLANDVC_CHROMIUM", missing)
    b = Browser()
    assert b.chromium == missing
    with pytest.raises(ChromiumMissingError) as err:
        await b.start()
    msg = str(err.value)
    assert "\n" not in msg and missing in msg
    assert "apt-get install chromium" in msg and "PLANDVC_CHROMIUM" in msg
    await b.close()
    monkeypatch.delenv("PLANDVC_CHROMIUM")
    assert Browser().chromium == "/usr/bin/chromium-headless-shell"  # headless: the headless shell
    assert Browser(headless=False).chromium == "/usr/bin/chromium"  # headful: the full browser
    with pytest.raises(ChromiumMissingError, match="apt-get install chromium-headless-shell"):
        await Browser(chromium=missing + "/chromium-headless-shell").start()


async def test_submitting_an_invalid_form_does_not_wait_for_a_navigation(session: Session) -> None:
    """A submit the browser will refuse (required fields empty) is clicked without waiting for a page."""
    site, page = next(
        (s, p.page) for s, spec in sorted(SPECS.items()) for p in spec.pages if spec.table_of(p).create
    )
    await session.goto(f"/sites/{site}/{page}/new")
    snap = await session.snapshot()
    (submit,) = [e for e in snap.elements if e.attrs.get("data-control-id", "").endswith("-apply")]
    await session.click(submit.index)
    assert session.url == f"/sites/{site}/{page}/new"
    assert (await session.backend_state())["changes"] == []


ADD_BUTTON_JS = (
    "() => { const b = document.createElement('button'); b.textContent = 'Probe'; document.body.prepend(b); }"
)


async def test_a_snapshot_is_reissued_only_while_nothing_happened(session: Session) -> None:
    """Two snapshots with nothing between them read the page once (the second is the first under a new
    generation); any action, even one that fails, makes the next snapshot read the page again."""
    site = sorted(SPECS)[0]
    await session.goto(f"/sites/{site}")
    first = await session.snapshot()
    await session.page.evaluate(ADD_BUTTON_JS)  # a change no action made: not seen by a re-issue
    second = await session.snapshot()
    assert second.generation == first.generation + 1 and second.elements == first.elements
    with pytest.raises(StaleIndexError):  # the first's indices are stale all the same
        await session.click(0, snapshot=first)
    third = await session.snapshot()  # the refused click was an action: the page is read again
    assert len(third.elements) == len(first.elements) + 1 and third.elements[0].text == "Probe"
    await session.scroll(0)
    await session.page.evaluate(ADD_BUTTON_JS)
    assert len((await session.snapshot()).elements) == len(third.elements) + 1
