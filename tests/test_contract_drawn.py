"""check-pool's static walk draws what the world's pages draw with a script: the calendar's days (for the month
it shows) and a search box's suggestions (from the page's word list). A recorded day or suggestion is found
only where the script would have drawn it: a day of another month, or a word the list does not offer, is a
problem, and the drawn ones set the same query the browser sets."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from plandvc.contract.pages import StepError, Walker
from plandvc.records import ElementDescriptor, TrajectoryStep
from plandvc.sites.server import App
from plandvc.sites.spec import load_sites
from plandvc.world.make import make_world


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("world") / "w"
    make_world(out, seed=0, furniture="v2")  # the drawn widgets with an Apply of their own (v3: one per form)
    return out


def _page_with(world: Path, piece: str) -> tuple[Walker, str]:
    """A walker on the first list page whose control is drawn as `piece` (e.g. date_range/calendar)."""
    kind, impl = piece.split("/")
    for s in json.loads((world / "world.json").read_text())["sites"]:
        for key, got in sorted(s["controls"].items()):
            page, k = key.split("/")
            if (k, got) == (kind, impl):
                walker = Walker(App(load_sites(world)), "t")
                assert walker.get(f"/sites/{s['site']}/{page}") == 200
                return walker, s["site"]
    raise LookupError(piece)


def _click(w: Walker, n: int, want: ElementDescriptor) -> None:
    step: TrajectoryStep = {"action": "click", "element": 0, "value": None, "memory": ""}
    w.step(n, step, want)


def _by_attr(w: Walker, name: str, suffix: str) -> ElementDescriptor:
    assert w.page is not None
    return next(d for d in w.page.snapshot() if str(d["attrs"].get(name) or "").endswith(suffix))


def _day(iso: str) -> ElementDescriptor:
    return {"tag": "button", "role": "button", "text": str(int(iso[8:])), "label": iso,
            "attrs": {"type": "button", "aria-label": iso}}  # fmt: skip


def test_a_calendar_day_is_found_only_in_the_month_the_calendar_shows(world: Path) -> None:
    w, _ = _page_with(world, "date_range/calendar")
    assert w.page is not None
    today = next(n for n in w.page.doc.nodes if n.tag == "body").attrs["data-today"]
    opener = _by_attr(w, "data-control-id", "-from")
    _click(w, 0, opener)
    with pytest.raises(StepError, match="no element like <button aria-label="):
        _click(w, 1, _day(f"{int(today[:4]) - 1}{today[4:8]}01"))  # a year back, not navigated to
    _click(w, 1, _by_attr(w, "aria-label", "Previous year"))
    _click(w, 2, _day(f"{int(today[:4]) - 1}{today[4:8]}01"))  # now shown
    control = str(opener["attrs"]["data-control-id"]).removesuffix("-from")
    _click(w, 3, _by_attr(w, "data-control-id", f"{control}-apply"))
    query = parse_qs(urlsplit(w.page.url).query)
    assert f"{int(today[:4]) - 1}{today[4:8]}01" in [v for vs in query.values() for v in vs], w.page.url


def test_a_suggestion_is_found_only_when_the_word_list_offers_it(world: Path) -> None:
    w, _ = _page_with(world, "search/autocomplete")
    assert w.page is not None
    node = next(n for n in w.page.doc.nodes if n.attrs.get("data-suggest"))
    words = json.loads(
        next(n for n in w.page.doc.nodes if n.attrs.get("id") == node.attrs["data-suggest"]).text()
    )
    word = str(words[0])
    typing: TrajectoryStep = {"action": "input", "element": 0, "value": word[:3], "memory": ""}
    w.step(0, typing, w.page.doc.descriptor(node))
    cid = node.attrs["data-control-id"] + "-suggestion"
    offered: ElementDescriptor = {
        "tag": "li",
        "role": "option",
        "text": word,
        "label": "",
        "attrs": {"data-control-id": cid},
    }
    other: ElementDescriptor = {**offered, "text": "No such word anywhere"}
    with pytest.raises(StepError, match="No such word anywhere"):
        _click(w, 1, other)
    _click(w, 1, offered)
    query = parse_qs(urlsplit(w.page.url).query)
    assert query.get(node.attrs["name"]) == [word] and query.get("sugg") == ["1"], w.page.url
