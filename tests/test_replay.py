"""The replayer's matching as pure functions over descriptors, and its steps: re-found by what is stable about
an element (never the raw index, never the box alone), the recorded done at the end, and ElementNotFound
naming the step and what it looked for."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from plandvc.replay import ElementNotFound, Replayer, ReplayModel, find, home_trajectory, score


def el(
    tag: str,
    text: str = "",
    label: str = "",
    box: tuple[int, int, int, int] = (0, 0, 10, 10),
    role: str = "",
    **attrs: str,
):
    return {"tag": tag, "role": role or {"a": "link", "button": "button"}.get(tag, "textbox"), "text": text,
            "label": label, "attrs": {k.replace("_", "-"): v for k, v in attrs.items()}, "box": list(box)}  # fmt: skip


ROWS = [
    el("a", f"Customer {i}", href=f"/sites/shop/orders/ORD-{1000 + i}", box=(20, 200 + 30 * i, 90, 18))
    for i in range(6)
]
PAGE = [
    el("a", "Northwind Shop", data_home="", href="/sites/shop", box=(10, 10, 120, 20)),
    el("a", "Orders", href="/sites/shop/orders", box=(10, 60, 80, 20)),
    el("select", label="Sort", id="orders-sort-column", name="sort", data_control_id="orders-sort", box=(300, 90, 80, 20)),
    el("select", label="Order", id="orders-sort-dir", name="dir", data_control_id="orders-sort", box=(400, 90, 80, 20)),
    el("input", label="Web", id="orders-channel-0", name="channel", type="checkbox", data_control_id="orders-channel", box=(500, 90, 13, 13)),
    el("input", label="Phone", id="orders-channel-1", name="channel", type="checkbox", data_control_id="orders-channel", box=(540, 90, 13, 13)),
    el("button", "Apply", type="submit", data_control_id="orders-channel-apply", box=(600, 90, 50, 20)),
    el("button", "Apply", type="submit", data_control_id="orders-sort-apply", box=(700, 90, 50, 20)),
    *ROWS,
]  # fmt: skip


def test_finds_each_element_by_its_stable_attributes() -> None:
    for i, want in enumerate(PAGE):
        assert find(want, PAGE) == i


def test_finds_a_row_link_after_the_rows_were_reordered_or_filtered() -> None:
    want = ROWS[4]
    resorted = PAGE[:8] + [{**r, "box": [20, 200 + 30 * k, 90, 18]} for k, r in enumerate(reversed(ROWS))]
    assert resorted[find(want, resorted)]["attrs"]["href"] == want["attrs"]["href"]
    filtered = [*PAGE[:8], {**ROWS[4], "box": [20, 200, 90, 18]}]  # only it is left, higher up the page
    assert find(want, filtered) == 8
    gone = PAGE[:8] + ROWS[:4]
    assert find(want, gone) is None  # never a neighbour in its old place


def test_a_link_with_a_query_on_the_same_path_still_matches() -> None:
    want = PAGE[1]
    live = [{**want, "attrs": {"href": "/sites/shop/orders?status=Shipped"}}]
    assert find(want, live) == 0


def test_same_control_elements_are_told_apart_by_name_and_label() -> None:
    assert PAGE[find(PAGE[3], PAGE)]["attrs"]["name"] == "dir"
    assert PAGE[find(PAGE[5], PAGE)]["label"] == "Phone"
    # the checkboxes swapped places: the label, not the box, decides
    swapped = [PAGE[5] | {"box": PAGE[4]["box"]}, PAGE[4] | {"box": PAGE[5]["box"]}]
    assert swapped[find(PAGE[5], swapped)]["label"] == "Phone"


def test_required_attributes_must_match() -> None:
    want = PAGE[6]
    assert score(want, {**want, "attrs": {**want["attrs"], "data-control-id": "orders-status-apply"}}) is None
    assert score(want, {**want, "tag": "a"}) is None
    assert score(PAGE[0], {**PAGE[0], "attrs": {"href": "/sites/shop"}}) is None  # not the home link


def test_the_box_alone_is_not_enough() -> None:
    want = el("button", "", box=(600, 90, 50, 20))
    assert find(want, [el("button", "", box=(600, 90, 50, 20))]) is None
    assert find(el("button", "Delete"), [el("button", "Apply", box=(0, 0, 10, 10))]) is None


def test_the_raw_index_is_not_used() -> None:
    traj = {
        "task_id": "t",
        "steps": [{"action": "click", "element": 0, "value": None, "memory": "m"}],
        "done": "d",
    }
    rp = Replayer(traj, [ROWS[2]], None)
    live = SimpleNamespace(
        url="/x", elements=[SimpleNamespace(index=k, descriptor=lambda d=d: d) for k, d in enumerate(PAGE)]
    )
    out = rp.next_action(live)
    assert out["action"] == [{"click": {"index": 8 + 2}}]


def _snap(descs, url="/sites/shop/orders"):
    return SimpleNamespace(
        url=url, elements=[SimpleNamespace(index=k, descriptor=lambda d=d: d) for k, d in enumerate(descs)]
    )


TRAJ = {
    "task_id": "shop-filter_by_options-0001", "answer": None, "done": 'I filtered the orders to Channel "Phone".',
    "steps": [
        {"action": "click", "element": 0, "value": None, "memory": 'Ticking "Phone".'},
        {"action": "select", "element": 1, "value": "Descending", "memory": "Choosing descending."},
        {"action": "input", "element": 2, "value": "Byrne", "memory": "Typing."},
        {"action": "set_range", "element": 3, "value": 250, "memory": "Setting."},
        {"action": "scroll", "element": None, "value": 300, "memory": "Scrolling."},
        {"action": "click", "element": 4, "value": None, "memory": "Applying the filter."},
    ],
}  # fmt: skip
SEARCH = el(
    "input",
    label="Search",
    id="orders-search-input",
    name="q",
    type="search",
    data_control_id="orders-search",
)
RANGE = el(
    "input",
    label="Max total",
    id="orders-total-input",
    name="max_total",
    type="range",
    data_control_id="orders-total",
)
LIVE = [*PAGE, SEARCH, RANGE]


class FakeSession:
    def __init__(self) -> None:
        self.events: list[dict] = [{"type": "action", "action": "old"}]
        self.seen = ["/before"]
        self.last_snapshot = _snap(LIVE)


def test_replayer_answers_every_step_then_the_recorded_done() -> None:
    session = FakeSession()
    rp = Replayer(TRAJ, [PAGE[5], PAGE[3], SEARCH, RANGE, PAGE[6]], session)
    got = []
    while not rp.finished:
        reply = rp.next_action(_snap(LIVE))
        got.append(reply["action"][0])
        session.events.append({"type": "action", "action": "x"})
        session.seen.append(f"/p{len(got)}")
    assert got == [
        {"click": {"index": 5}},
        {"select": {"index": 3, "value": "Descending"}},
        {"input": {"index": len(PAGE), "text": "Byrne"}},
        {"set_range": {"index": len(PAGE) + 1, "value": 250}},
        {"scroll": {"dy": 300}},
        {"click": {"index": 6}},
        {"done": {"text": TRAJ["done"], "success": True, "answer": None}},
    ]
    assert rp.cursor == len(TRAJ["steps"]) + 1
    # what its steps caused: not the session's earlier events and pages
    assert len(rp.events) == len(TRAJ["steps"]) and rp.events[0]["action"] == "x"
    assert rp.seen == [f"/p{k}" for k in range(1, len(TRAJ["steps"]) + 1)]
    with pytest.raises(RuntimeError, match="after its done"):
        rp.next_action(_snap(LIVE))


def test_element_not_found_names_the_step_and_what_it_looked_for() -> None:
    rp = Replayer(TRAJ, [PAGE[5], PAGE[3], SEARCH, RANGE, PAGE[6]], FakeSession())
    rp.next_action(_snap(LIVE))
    with pytest.raises(ElementNotFound) as e:
        rp.next_action(
            _snap([p for p in LIVE if p["attrs"].get("name") != "dir"], url="/sites/shop/orders?x=1")
        )
    msg = str(e.value)
    assert msg.startswith("step 2:") and "name='dir'" in msg and "data-control-id='orders-sort'" in msg
    assert "/sites/shop/orders?x=1" in msg and e.value.step == 2


def test_replay_model_answers_from_the_last_snapshot_without_screenshots() -> None:
    session = FakeSession()
    model = ReplayModel(Replayer(TRAJ, [PAGE[5], PAGE[3], SEARCH, RANGE, PAGE[6]], session), session)
    assert model.wants_screenshot is False
    reply = json.loads(asyncio.run(model.respond([], {})))
    assert list(reply) == ["memory", "action"] and reply["action"] == [{"click": {"index": 5}}]
    assert reply["memory"] == 'Ticking "Phone".'


def test_home_trajectory_clicks_the_home_link() -> None:
    h = home_trajectory("shop")
    rp = Replayer(h["trajectory"], h["elements"], None)
    assert rp.next_action(_snap(PAGE))["action"] == [{"click": {"index": 0}}]
    assert next(iter(rp.next_action(_snap(PAGE))["action"][0])) == "done"
    no_home = [p for p in PAGE if "data-home" not in p["attrs"]]
    with pytest.raises(ElementNotFound):
        Replayer(h["trajectory"], h["elements"], None).next_action(_snap(no_home))


BANNER_TRAJ = {
    "task_id": "shop-navigate_to_page-0001", "answer": None, "done": "I opened the orders.",
    "steps": [
        {"action": "click", "element": 0, "value": None, "memory": "Closing the newsletter pop-up."},
        {"action": "click", "element": 1, "value": None, "memory": "Opening the orders."},
    ],
}  # fmt: skip
NO_THANKS = el("button", "No thanks", type="button", box=(446, 463, 77, 30))


def test_a_banner_closing_step_is_skipped_when_the_banner_is_gone_and_no_other_step_is() -> None:
    """A later part of a chain was recorded on a fresh page with a banner an earlier part closed already."""
    rp = Replayer(BANNER_TRAJ, [NO_THANKS, PAGE[1]], FakeSession())
    assert rp.next_action(_snap(PAGE))["action"] == [{"click": {"index": 1}}]
    assert rp.skipped == 1 and rp.next_action(_snap(PAGE))["action"][0]["done"]["success"] is True
    # while the banner shows, its step is answered
    rp = Replayer(BANNER_TRAJ, [NO_THANKS, PAGE[1]], FakeSession())
    assert rp.next_action(_snap([*PAGE, NO_THANKS]))["action"] == [{"click": {"index": len(PAGE)}}]
    # any other missing element still stops the replay
    rp = Replayer(BANNER_TRAJ, [NO_THANKS, el("a", "Refunds", href="/sites/shop/refunds")], FakeSession())
    with pytest.raises(ElementNotFound, match=r"^step 2:"):
        rp.next_action(_snap(PAGE))
