"""The macro vocabulary every stage shares: the 14 macros and their families, the sets the chain rules are
written in, and the trip home.

A macro is one kind of single-primitive task (filter by a dropdown, open an entry, ...); its family names the
specialist that does it. The pool generates and records tasks per macro, the chain walk joins parts by these
sets, the planner delegates by family, and filter-rows counts by both, so they all import this one module
(upstream of every package; docs/ARCHITECTURE.md, "Records and chains", states the rules in full).

The trip home is the navigate_home macro's one action: a click on the site's own home link
(`a[data-home]`). A chain part reached `via: "home"` is preceded by it; the recorded pool does it as a task.
"""

from __future__ import annotations

from typing import Any

FAMILY_OF: dict[str, str] = {
    "navigate_to_page": "Navigation",
    "open_entry": "Navigation",
    "navigate_home": "Navigation",
    "filter_by_dropdown": "Filter",
    "filter_by_options": "Filter",
    "filter_by_slider": "Filter",
    "filter_by_date_range": "Filter",
    "sort_by_form": "Filter",
    "search_by_text": "Filter",
    "create_entry": "Form",
    "edit_entry": "Form",
    "report_information": "Information",
    "count_entries": "Information",
    "copy_value": "Information",
}
MACROS = frozenset(FAMILY_OF)
FAMILIES = ("Navigation", "Filter", "Form", "Information")

# answer-only macros the executor pool leaves out; pool-items adds them back because they only end a chain
QA_MACROS = frozenset({"report_information", "count_entries"})
# parts whose check reads the last page's query string: a trip home after them undoes them
URL_STATE = frozenset(
    {"filter_by_dropdown", "filter_by_options", "filter_by_slider", "filter_by_date_range", "sort_by_form"}
)
# a part that stays on its page and leaves it for the next part to go on from
CHAIN_FIRST = URL_STATE | {"search_by_text"}
# a part that can start on a page an earlier part left changed (filtered, sorted, searched)
CHAIN_SECOND = URL_STATE | {"search_by_text", "copy_value"}
# control roles that need state the home page does not give: never a home start
FLAGGED_ROLES = frozenset({"prepared"})


# ── the trip home ──────────────────────────────────────────────────────────────

# what the planner delegates before a part reached via "home"
HOME_STEP = "Go to the home page of {site} with the site's own home link."
# the specialist's memory sentence for the one click
HOME_MEMORY = "Clicking the site's own home link."
# The done texts: a recorded navigate_home task names the site (the pool's trajectories); the replayed trip
# home inside a chain does not. Both stand in committed outputs (data/pool, the rows), so each keeps its words.
CHAIN_HOME_DONE = "I went to the home page with the site's home link."


def home_path(site: str) -> str:
    """The site's home page path, `/sites/<site>`."""
    return f"/sites/{site}"


def recorded_home_done(site_name: str) -> str:
    """The done text of a recorded navigate_home task."""
    return f"I went back to the home page of {site_name}."


def home_trajectory(site: str) -> dict[str, Any]:
    """The replayed plan of a chain's trip home: `{trajectory, elements}` in the pool's format, one click on the
    site's own home link, then done."""
    home = home_path(site)
    element = {
        "tag": "a",
        "role": "link",
        "text": "",
        "label": "",
        "attrs": {"data-home": "", "href": home},
        "box": [0, 0, 0, 0],
    }
    traj = {
        "task_id": f"{site}-home",
        "site": site,
        "macro": "navigate_home",
        "start_kind": "mid_chain",
        "history_macro": None,
        "steps": [{"action": "click", "element": 0, "value": None, "memory": HOME_MEMORY}],
        "done": CHAIN_HOME_DONE,
        "answer": None,
        "end": home,
    }
    return {"trajectory": traj, "elements": [element]}
