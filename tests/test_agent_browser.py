"""The agent on the real sites server and real Chromium: a planner run with a scripted planner model that
delegates twice to specialists driven by a tiny scripted model, the reports in later turns' history, the
screenshots (the planner's, and none for a specialist that wants none), a bad reply, the budget, a failed
action."""

from __future__ import annotations

import base64
import json
import re
from collections import Counter
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from agent_doubles import LinkClicker, Scripted, delegate, done, images, png_size, user_text

from plandvc.agent import Planner, Team
from plandvc.agent.specialist import Specialist
from plandvc.browser import Browser, Session

pytestmark = pytest.mark.asyncio(loop_scope="module")
TODAY = "2026-03-14"  # the shop's site clock


@pytest_asyncio.fixture(loop_scope="module")
async def session(browser: Browser, base: str) -> AsyncIterator[Session]:
    """Here a fresh session starts on the shop's home page and counts its screenshots in `session.shots`
    (this overrides conftest's `session`, on the same `browser` and `base`)."""
    s = await browser.new_session(base)
    await s.goto("/sites/shop")
    s.shots = Counter()
    take = s.screenshot

    async def counted() -> bytes:
        s.shots["screenshot"] += 1
        return await take()

    s.screenshot = counted
    yield s
    await s.close()


class NavTeam(Team):
    """A team whose specialists are LinkClickers, one per delegation, kept in `self.models`."""

    def __init__(self, session, links, wants_screenshot=False, **kw):
        super().__init__(session, **kw)
        self.links, self.wants_screenshot = list(links), wants_screenshot
        self.models: list[LinkClicker] = []

    def specialist_model(self, family, instruction):
        self.models.append(LinkClicker(self.links.pop(0), wants_screenshot=self.wants_screenshot))
        return self.models[-1]


def _screenshot(messages) -> bytes:
    (img,) = images(messages)
    url = img["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    return base64.b64decode(url.split(",", 1)[1])


async def test_planner_delegates_twice_and_reads_the_reports(session):
    team = NavTeam(session, ["Orders", "Customers"])
    model = Scripted(
        [
            delegate("Navigation", "Open the Orders page.", "Checklist: 1) Orders 2) Customers"),
            delegate("Navigation", "Open the Customers page.", "Orders is open."),
            done("The Orders and Customers pages were opened."),
        ]
    )
    res = await Planner(session, "Open Orders, then Customers.", model, team, today=TODAY).run()
    assert (res.success, res.turns, res.errors) == (True, 3, [])
    assert [r.status for r in team.reports] == ["done", "done"] and team.steps_used == 4
    assert "/sites/shop/orders" in session.seen and session.seen[-1] == "/sites/shop/customers"

    first, second, third = (user_text(m) for m in model.seen)
    assert (
        "No steps yet." in first
        and "URL: /sites/shop\n" in first
        and "Step 1 of 25\nToday: 2026-03-14" in first
    )
    assert re.search(r"^\[\d+\]<a\b[^\n]*>\s*Orders\s*</a>", first, re.M)  # the real snapshot's elements
    report1, report2 = (r.text for r in team.reports)
    assert report1.startswith("The Navigation specialist (pooled_v4) finished in 2 steps (38 of 40")
    assert "Its report: I opened the Orders page." in report1
    assert re.search(r"^Page now: /sites/shop/orders \(.+\)$", report1, re.M)
    assert (
        "<step_1>\nMemory: Checklist: 1) Orders 2) Customers\nDelegated to Navigation: Open the Orders page."
        in second
    )
    assert (
        f"Report: {report1}\n</step_1>" in second
        and "<step_2>" not in second
        and "URL: /sites/shop/orders\n" in second
    )
    assert f"Report: {report1}\n</step_1>" in third and f"Report: {report2}\n</step_2>" in third
    assert "(36 of 40 specialist steps left)" in report2 and "127.0.0.1" not in third

    # the planner's screenshot each turn, a valid 1280x800 PNG; the specialists (replay-like) took none
    assert all(png_size(_screenshot(m)) == (1280, 800) for m in model.seen)
    assert session.shots["screenshot"] == 3
    assert all(not images(m) for sm in team.models for m in sm.seen)


async def test_a_specialist_that_wants_screenshots_gets_one_per_step(session):
    model = LinkClicker("Orders", wants_screenshot=True)
    res = await Specialist(session, model, "Navigation", "Open the Orders page.", 5).run()
    assert res.ok and res.steps == 2 == session.shots["screenshot"]
    assert all(png_size(_screenshot(m)) == (1280, 800) for m in model.seen)


async def test_a_bad_reply_is_recorded_retried_then_the_run_fails(session):
    team = NavTeam(session, ["Orders"])
    model = Scripted(["Sure! I will open Orders.", json.dumps(delegate("Shopping", "Buy it.")), done()])
    res = await Planner(session, "Open Orders.", model, team, today=TODAY).run()
    assert (res.success, res.turns, res.reason) == (False, 1, "turn 1: no valid reply after a retry")
    assert res.errors[0].startswith("turn 1: not JSON") and "matches none of anyOf" in res.errors[1]
    assert "Your last reply was not valid: not JSON" in model.seen[1][-1]["content"]
    assert team.reports == [] and session.seen == ["/sites/shop"]  # nothing was delegated


async def test_the_budget_used_up_is_reported(session):
    team = NavTeam(session, ["Orders", "Customers"], overall_budget=2)
    model = Scripted(
        [
            delegate("Navigation", "Open the Orders page."),
            delegate("Navigation", "Open the Customers page."),
            done(),
        ]
    )
    res = await Planner(session, "Open Orders, then Customers.", model, team, today=TODAY).run()
    assert res.success and [r.status for r in team.reports] == ["done", "budget_exhausted"]
    assert len(team.models) == 1 and session.seen[-1] == "/sites/shop/orders"  # the second never ran
    assert (
        "Report: The Navigation specialist (pooled_v4) was not run: the specialist step budget is used up "
        "(0 of 2 specialist steps left).\nPage now: /sites/shop/orders ("
    ) in user_text(model.seen[2])


async def test_a_failed_action_on_the_page_is_reported_as_failed(session):
    bad_click = {"memory": "m", "action": [{"click": {"index": 9999}}]}
    team = Team(session, model=Scripted([bad_click], wants_screenshot=False))
    report = await team.run_step("Navigation", "Open the Orders page.")
    assert report.status == "failed" and report.steps == 1 and report.steps_left == 39
    assert report.text.startswith(
        "The Navigation specialist (pooled_v4) failed after 1 step (39 of 40 specialist steps left). "
        'Error: click {"index": 9999} failed: ActionError: no element [9999]'
    )
    assert re.search(r"^Page now: /sites/shop \(.+\)$", report.text, re.M)


class ReplayTeam(Team):
    """The scripted run's shape: each delegation's specialist model is a real replay of a trajectory."""

    def __init__(self, session, plans, **kw):
        super().__init__(session, **kw)
        self.plans = list(plans)

    def specialist_model(self, family, instruction):
        from plandvc.replay import Replayer, ReplayModel

        plan = self.plans.pop(0)
        return ReplayModel(Replayer(plan["trajectory"], plan["elements"], self.session), self.session)


async def test_a_replayed_trip_home_takes_no_screenshot_and_reports_its_done_text(session):
    from plandvc.replay import home_trajectory

    await session.goto("/sites/shop/orders")
    team = ReplayTeam(session, [home_trajectory("shop")])
    model = Scripted([delegate("Navigation", "Go to the home page of Northwind Shop."), done()])
    res = await Planner(session, "Go home.", model, team, today=TODAY).run()
    assert res.success and session.seen[-1] == "/sites/shop"
    (report,) = team.reports
    assert report.text.startswith("The Navigation specialist (pooled_v4) finished in 2 steps (38 of 40")
    assert "Its report: I went to the home page with the site's home link." in report.text
    assert session.shots["screenshot"] == 2  # the planner's two turns only


async def test_a_replay_that_cannot_find_its_element_is_reported_as_failed(session):
    from plandvc.replay import home_trajectory

    plan = home_trajectory("shop")
    plan["elements"][0]["attrs"] = {"data-control-id": "no-such-control"}
    report = await ReplayTeam(session, [plan]).run_step(
        "Navigation", "Go to the home page of Northwind Shop."
    )
    assert report.status == "failed" and report.steps == 1 and session.seen == ["/sites/shop"]
    assert "Error: no reply: ElementNotFound: step 1: no element like" in report.text
