"""The agent's pure parts: prompts, messages, reply parsing, the specialist loop, report wording, budget
accounting and the planner loop — all on a fake session (the real browser is in test_agent_browser.py)."""

from __future__ import annotations

import base64
import json

import pytest
from agent_doubles import (
    FakeSession,
    FakeSnapshot,
    LinkClicker,
    Scripted,
    delegate,
    done,
    images,
    png,
    png_size,
    user_text,
)

from plandvc.agent.messages import (
    Delegation,
    Reply,
    agent_history,
    browser_state,
    parse_reply,
    path_of,
    planner_messages,
    read_reply,
)
from plandvc.agent.planner import TURN_CAP, Planner
from plandvc.agent.prompts import VERSIONS, specialist_system, version
from plandvc.agent.schema import RESPONSE_FORMAT, SCHEMA, SPECIALIST_SCHEMA, errors
from plandvc.agent.specialist import Specialist
from plandvc.agent.team import Report, Team
from plandvc.io import InputError
from plandvc.macros import FAMILIES

SNAP = FakeSnapshot(
    "http://127.0.0.1:8321/sites/shop/orders?status=Shipped",
    "Orders",
    [("Northwind Shop", "/sites/shop"), ("Customers", "/sites/shop/customers")],
    scroll_y=120.4,
    page_height=2400,
)


# ── prompts ──────────────────────────────────────────────────────────────────────────────────────────────


def test_v6_is_data_with_its_turn_cap_team_rules_and_output_format():
    v6 = VERSIONS["v6"]
    assert v6["max_turns"] == 25
    for family in FAMILIES:
        assert f"- {family}:" in v6["system"]
        assert f"You are the {family} specialist" in v6["specialist_system"][family]
    for needle in (
        "never touch the browser",
        "ONE step at a time",
        '"delegate"',
        '"done"',
        '"memory"',
        "<rules>",
    ):
        assert needle in v6["system"]


def test_unknown_version_or_family_is_one_clear_line():
    with pytest.raises(InputError, match="unknown planner version 'v0' \\(known: v6\\)"):
        version("v0")
    with pytest.raises(InputError, match="unknown family 'Shopping'"):
        specialist_system("v6", "Shopping")


# ── messages ─────────────────────────────────────────────────────────────────────────────────────────────


def test_path_of_drops_scheme_host_and_port():
    assert path_of("http://127.0.0.1:8320/sites/shop/orders?status=Shipped&dir=asc") == (
        "/sites/shop/orders?status=Shipped&dir=asc"
    )
    assert path_of("http://127.0.0.1:8320") == "/"
    assert path_of("/sites/shop") == "/sites/shop"


def test_browser_state_holds_url_title_scroll_and_indexed_elements():
    assert browser_state(SNAP) == (
        "<browser_state>\n"
        "URL: /sites/shop/orders?status=Shipped\n"
        "Title: Orders\n"
        "Scroll: 120 of 2400 px page height\n"
        "Interactive elements:\n"
        "[0]<a href=/sites/shop>Northwind Shop</a>\n"
        "[1]<a href=/sites/shop/customers>Customers</a>\n"
        "</browser_state>"
    )


def test_agent_history_numbers_each_delegation_with_its_report():
    assert agent_history([]) == "<agent_history>\nNo steps yet.\n</agent_history>"
    text = agent_history(
        [Delegation("m1", "Navigation", "Open Orders.", "R1"), Delegation("m2", "Filter", "F.", "R2")]
    )
    assert (
        text.index("<step_1>")
        < text.index("Delegated to Navigation: Open Orders.")
        < text.index("Report: R1")
    )
    assert (
        text.index("</step_1>") < text.index("<step_2>") < text.index("Report: R2") < text.index("</step_2>")
    )


def test_planner_messages_are_system_then_one_user_turn_with_the_screenshot():
    shot = png(7, 5)
    history = [Delegation("m", "Navigation", "Open the Orders page.", "The report.")]
    msgs = planner_messages("SYS", "Show orders.", history, SNAP, shot, 2, 25, "2026-03-14")
    assert [m["role"] for m in msgs] == ["system", "user"] and msgs[0]["content"] == "SYS"
    text = user_text(msgs)
    order = [
        "<user_request>\nShow orders.\n</user_request>",
        "<agent_history>",
        "<browser_state>",
        "<step_info>",
    ]
    assert [text.index(s) for s in order] == sorted(text.index(s) for s in order)
    assert "<step_info>\nStep 2 of 25\nToday: 2026-03-14\n</step_info>" in text
    assert "127.0.0.1" not in text and "8321" not in text
    (img,) = images(msgs)
    prefix = "data:image/png;base64,"
    assert img["image_url"]["url"].startswith(prefix)
    assert png_size(base64.b64decode(img["image_url"]["url"][len(prefix) :])) == (7, 5)
    assert msgs == planner_messages("SYS", "Show orders.", history, SNAP, shot, 2, 25, "2026-03-14")


def test_png_check_rejects_a_broken_png():
    good = png()
    assert png_size(good) == (4, 3)
    with pytest.raises(AssertionError, match="signature"):
        png_size(b"GIF89a" + good[6:])
    broken = bytearray(good)
    broken[20] ^= 0xFF  # inside IHDR: its CRC no longer matches
    with pytest.raises(AssertionError, match="bad CRC"):
        png_size(bytes(broken))


# ── replies and the schema ───────────────────────────────────────────────────────────────────────────────


def test_parse_reply_accepts_valid_and_fenced_json():
    ok = json.dumps(delegate("Filter", "Sort by date."))
    assert parse_reply(ok, SCHEMA) == (json.loads(ok), [])
    assert parse_reply(f"```json\n{ok}\n```", SCHEMA)[1] == []


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("I will delegate to Filter.", "not JSON"),
        ("", "not JSON"),
        (json.dumps(delegate("Shopping", "Buy.")), "matches none of anyOf"),
        (json.dumps({"action": [{"done": {"text": "x", "success": True}}]}), "missing 'memory'"),
        (json.dumps({**done(), "extra": 1}), "unexpected 'extra'"),
        (json.dumps({"memory": "m", "action": done()["action"] * 2}), "2 items"),
        (json.dumps({"memory": "m", "action": [{"done": {"text": "", "success": True}}]}), "anyOf"),
    ],
)
def test_parse_reply_rejects_what_breaks_the_schema(reply, problem):
    _, found = parse_reply(reply, SCHEMA)
    assert found and problem in found[0]


def test_a_valid_reply_is_read_once_into_a_typed_reply():
    reply = read_reply(parse_reply(json.dumps(delegate("Filter", "Sort by date.")), SCHEMA)[0])
    assert reply == Reply("m", "delegate", {"family": "Filter", "instruction": "Sort by date."})
    assert reply.text("family") == "Filter"
    finished = read_reply(done())
    assert finished.flag("success") is True
    with pytest.raises(TypeError, match="success"):
        finished.text("success")
    with pytest.raises(TypeError, match="text"):
        finished.flag("text")


def test_specialist_schema_types_integer_number_and_unions():
    def action(a):
        return {"memory": "m", "action": [a]}

    assert errors(action({"set_range": {"index": 2, "value": 2.5}}), SPECIALIST_SCHEMA) == []
    assert errors(action({"set_range": {"index": 2, "value": "250"}}), SPECIALIST_SCHEMA) == []
    assert errors(action({"set_range": {"index": 2, "value": None}}), SPECIALIST_SCHEMA)
    assert errors(action({"done": {"text": "t", "success": True, "answer": 7}}), SPECIALIST_SCHEMA) == []
    assert errors(action({"done": {"text": "t", "success": True, "answer": None}}), SPECIALIST_SCHEMA) == []
    assert errors(action({"click": {"index": True}}), SPECIALIST_SCHEMA)  # a bool is not an index
    assert errors(action({"click": {"index": 1.5}}), SPECIALIST_SCHEMA)
    assert errors(action({"done": {"text": "t", "success": True}}), SPECIALIST_SCHEMA)  # answer is required
    assert errors(action({"done": {"text": "t", "success": True, "answer": [1]}}), SPECIALIST_SCHEMA)
    assert errors(action({"back": {"now": True}}), SPECIALIST_SCHEMA)


# ── the specialist ───────────────────────────────────────────────────────────────────────────────────────


async def test_specialist_clicks_a_link_then_reports_done_without_a_screenshot():
    session, model = FakeSession(), LinkClicker("Orders", wants_screenshot=False)
    res = await Specialist(session, model, "Navigation", "Open the Orders page.", 5).run()
    assert (res.ok, res.steps, res.done_text, res.answer) == (True, 2, "I opened the Orders page.", None)
    assert (res.url, res.title) == ("/sites/shop/orders", "Orders")
    assert session.events == [{"action": "click", "index": 1}]
    assert session.calls["screenshot"] == 0 and not any(images(m) for m in model.seen)
    assert "You are the Navigation specialist" in model.seen[0][0]["content"]
    assert "<task>\nOpen the Orders page.\n</task>" in user_text(model.seen[0])
    assert 'Action: click {"index": 1}' in user_text(model.seen[1])  # its own earlier step


async def test_specialist_takes_one_screenshot_per_step_when_the_model_wants_one():
    session, model = FakeSession(), LinkClicker("Orders", wants_screenshot=True)
    res = await Specialist(session, model, "Navigation", "Open the Orders page.", 5).run()
    assert res.ok and session.calls["screenshot"] == res.steps == 2
    assert all(len(images(m)) == 1 for m in model.seen)


@pytest.mark.parametrize(
    ("name", "params", "event"),
    [
        ("input", {"index": 0, "text": "Ada"}, {"action": "input", "index": 0, "text": "Ada"}),
        ("select", {"index": 1, "value": "Shipped"}, {"action": "select", "index": 1, "value": "Shipped"}),
        ("set_range", {"index": 0, "value": 250}, {"action": "set_range", "index": 0, "value": 250}),
        ("scroll", {"dy": 400}, {"action": "scroll", "dy": 400}),
        ("go_to", {"url": "/sites/shop/customers"}, {"action": "go_to", "url": "/sites/shop/customers"}),
        ("back", {}, {"action": "back"}),
    ],
)
async def test_specialist_runs_each_action_on_the_session(name, params, event):
    session = FakeSession()
    finish = {"memory": "m", "action": [{"done": {"text": "Did it.", "success": True, "answer": None}}]}
    res = await Specialist(
        session, Scripted([{"memory": "m", "action": [{name: params}]}, finish]), "Form", "x", 3
    ).run()
    assert res.ok and session.events == [event]


async def test_specialist_failures_are_results():
    bad = await Specialist(FakeSession(), Scripted(["not json"]), "Filter", "x", 3).run()
    assert (bad.ok, bad.steps, bad.out_of_steps) == (False, 1, False) and bad.error.startswith(
        "bad reply: not JSON"
    )
    unknown = await Specialist(
        FakeSession(), Scripted([{"memory": "m", "action": [{"hover": {}}]}]), "Filter", "x", 3
    ).run()
    assert unknown.error == "bad reply: unknown action 'hover'"
    session = FakeSession(fail_on="click")
    broke = await Specialist(session, LinkClicker("Orders"), "Navigation", "x", 3).run()
    assert (
        not broke.ok
        and broke.error == 'click {"index": 1} failed: StaleIndexError: index 1 is from an old snapshot'
    )
    assert (broke.url, broke.title) == ("/sites/shop", "Northwind Shop")
    said_no = await Specialist(FakeSession(), Scripted([done("Cannot.", False) | {}]), "Form", "x", 3).run()
    assert said_no.error  # a done without the answer key is a bad reply
    failed = {
        "memory": "m",
        "action": [{"done": {"text": "No such page.", "success": False, "answer": None}}],
    }
    gave_up = await Specialist(FakeSession(), Scripted([failed]), "Form", "x", 3).run()
    assert (gave_up.ok, gave_up.done_text, gave_up.error) == (
        False,
        "No such page.",
        "the specialist reported failure",
    )


class ElementNotFound(Exception):
    pass


class LostReplay(Scripted):
    """A replay that cannot find its recorded element on the page at its second step."""

    async def respond(self, messages, response_format):
        if self.seen:
            raise ElementNotFound("step 2: no element like <a>Orders</a>")
        return await super().respond(messages, response_format)


async def test_specialist_whose_model_raises_fails_with_the_error():
    model = LostReplay([{"memory": "m", "action": [{"scroll": {"dy": 100}}]}], wants_screenshot=False)
    res = await Specialist(FakeSession(), model, "Navigation", "x", 5).run()
    assert (res.ok, res.steps) == (False, 2)
    assert res.error == "no reply: ElementNotFound: step 2: no element like <a>Orders</a>"


async def test_specialist_runs_out_of_steps():
    session = FakeSession()
    scroll = {"memory": "m", "action": [{"scroll": {"dy": 300}}]}
    res = await Specialist(session, Scripted([scroll] * 3), "Information", "x", 3).run()
    assert (res.ok, res.out_of_steps, res.steps) == (False, True, 3)
    assert res.error == "ran out of steps (3) before done" and session.calls["scroll"] == 3


# ── the team: reports and the budget ─────────────────────────────────────────────────────────────────────


class ClickerTeam(Team):
    """A team whose specialists click the link named at the end of their instruction."""

    def __init__(self, session, links, **kw):
        super().__init__(session, **kw)
        self.links = list(links)

    def specialist_model(self, family, instruction):
        return LinkClicker(self.links.pop(0))


async def test_report_names_family_executor_steps_done_text_and_page():
    team = ClickerTeam(FakeSession(), ["Orders"])
    report = await team.run_step("Navigation", "Open the Orders page.")
    assert report.ok and team.reports == [report] and team.steps_used == 2
    assert report.text == (
        "The Navigation specialist (pooled_v4) finished in 2 steps (38 of 40 specialist steps left).\n"
        "Its report: I opened the Orders page.\n"
        "Page now: /sites/shop/orders (Orders)"
    )


def test_report_wording_of_an_answer_a_failure_and_an_unknown_page():
    base = dict(family="Information", instruction="How many?", executor="pooled_v4", budget=40)
    answered = Report(
        **base,
        status="done",
        steps=1,
        steps_left=12,
        done_text="7 orders.",
        answer=7,
        error=None,
        url="/sites/shop/orders",
        title="Orders",
    )
    assert answered.text.splitlines()[1:] == [
        "Its report: 7 orders.",
        "Answer: 7",
        "Page now: /sites/shop/orders (Orders)",
    ]
    failed = Report(
        **base,
        status="failed",
        steps=1,
        steps_left=39,
        done_text=None,
        answer=None,
        error="ElementNotFound: step 2",
        url="",
        title="",
    )
    assert failed.text == (
        "The Information specialist (pooled_v4) failed after 1 step (39 of 40 specialist steps left). "
        "Error: ElementNotFound: step 2\nPage now: unknown"
    )


async def test_budget_is_shared_and_its_exhaustion_reported():
    session = FakeSession()
    team = ClickerTeam(session, ["Orders", "Customers", "Orders"], overall_budget=3)
    first = await team.run_step("Navigation", "Open the Orders page.")
    assert first.ok and (first.steps, first.steps_left) == (2, 1)
    second = await team.run_step("Navigation", "Open the Customers page.")  # one step left: clicks, no done
    assert second.status == "out_of_steps" and (second.steps, second.steps_left) == (1, 0)
    assert second.text.startswith(
        "The Navigation specialist (pooled_v4) ran out of steps after 1 step without finishing "
        "(0 of 3 specialist steps left)."
    )
    assert second.text.endswith("Page now: /sites/shop/customers (Customers)")
    clicks = session.calls["click"]
    third = await team.run_step("Navigation", "Open the Orders page.")
    assert third.status == "budget_exhausted" and third.steps == 0 and session.calls["click"] == clicks
    assert third.text == (
        "The Navigation specialist (pooled_v4) was not run: the specialist step budget is used up "
        "(0 of 3 specialist steps left).\nPage now: /sites/shop/customers (Customers)"
    )
    assert [r.status for r in team.reports] == ["done", "out_of_steps", "budget_exhausted"]


async def test_team_without_a_model_says_so_and_a_negative_budget_is_refused():
    with pytest.raises(RuntimeError, match="no specialist model"):
        await Team(FakeSession()).run_step("Navigation", "x")
    with pytest.raises(ValueError, match="overall_budget"):
        Team(FakeSession(), overall_budget=-1)
    served = Team(FakeSession(), model=LinkClicker("Orders"))
    assert (await served.run_step("Navigation", "Open the Orders page.")).ok


# ── the planner ──────────────────────────────────────────────────────────────────────────────────────────


async def test_planner_delegates_twice_then_done_and_shows_reports_in_history():
    session = FakeSession()
    team = ClickerTeam(session, ["Orders", "Customers"])
    model = Scripted(
        [
            delegate("Navigation", "Open the Orders page.", "Checklist: 1) Orders 2) Customers"),
            delegate("Navigation", "Open the Customers page.", "Orders open."),
            done("Both pages were opened."),
        ]
    )
    res = await Planner(session, "Open Orders, then Customers.", model, team, today="2026-03-14").run()
    assert (res.turns, res.success, res.done_text, res.errors, res.reason) == (
        3,
        True,
        "Both pages were opened.",
        [],
        None,
    )
    assert session.calls["snapshot"] >= 3 and session.calls["screenshot"] == 3  # the planner's, one per turn
    assert model.formats == [RESPONSE_FORMAT] * 3
    first, second, third = (user_text(m) for m in model.seen)
    assert "No steps yet." in first and "Step 1 of 25" in first
    assert (
        "<step_1>\nMemory: Checklist: 1) Orders 2) Customers\nDelegated to Navigation: Open the Orders page.\n"
        in second
    )
    assert team.reports[0].text in second and "URL: /sites/shop/orders\n" in second
    assert team.reports[0].text in third and team.reports[1].text in third and "Step 3 of 25" in third
    assert all(len(images(m)) == 1 for m in model.seen)


async def test_planner_retries_a_bad_reply_once_with_feedback():
    model = Scripted(["not json at all", done()])
    res = await Planner(FakeSession(), "r", model, ClickerTeam(FakeSession(), [])).run()
    assert (
        res.success
        and res.turns == 1
        and len(res.errors) == 1
        and res.errors[0].startswith("turn 1: not JSON")
    )
    retry = model.seen[1]
    assert retry[:2] == model.seen[0] and retry[2] == {"role": "assistant", "content": "not json at all"}
    assert retry[3]["role"] == "user" and "Your last reply was not valid: not JSON" in retry[3]["content"]


async def test_planner_fails_after_two_bad_replies():
    model = Scripted([json.dumps(delegate("Shopping", "Buy.")), '{"memory": "m"}', done()])
    res = await Planner(FakeSession(), "r", model, ClickerTeam(FakeSession(), [])).run()
    assert (res.success, res.turns, res.reason) == (False, 1, "turn 1: no valid reply after a retry")
    assert len(res.errors) == 2 and "missing 'action'" in res.errors[1] and len(model.replies) == 1


async def test_planner_turn_cap_fails_the_run():
    session = FakeSession()
    team = ClickerTeam(session, ["Orders", "Customers", "Orders"])
    model = Scripted([delegate("Navigation", "Go.")] * 3 + [done()])
    res = await Planner(session, "r", model, team, max_turns=2).run()
    assert (res.success, res.turns, res.reason, len(team.reports)) == (False, 2, TURN_CAP, 2)
    assert "Step 2 of 2" in user_text(model.seen[-1])


async def test_planner_done_with_success_false_and_model_errors_propagate():
    res = await Planner(
        FakeSession(), "r", Scripted([done("Could not.", False)]), ClickerTeam(FakeSession(), [])
    ).run()
    assert (res.success, res.done_text, res.reason) == (
        False,
        "Could not.",
        "the planner finished with success false",
    )
    with pytest.raises(RuntimeError, match="script exhausted"):
        await Planner(FakeSession(), "r", Scripted([]), ClickerTeam(FakeSession(), [])).run()
