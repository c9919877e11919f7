"""The trip home: the navigate_home macro's one action, a click on the site's own home link (`a[data-home]`).

A chain part reached `via: "home"` is preceded by it; the recorded pool does it as a task. Run-chains replays
`home_trajectory`, the planner delegates `HOME_STEP`, and the recorder writes `recorded_home_done`.
"""

from __future__ import annotations

from plandvc.records import ElementDescriptor, Replayable, Trajectory

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


def home_trajectory(site: str) -> Replayable:
    """The replayed plan of a chain's trip home: `{trajectory, elements}` in the pool's format, one click on the
    site's own home link, then done."""
    home = home_path(site)
    element: ElementDescriptor = {
        "tag": "a",
        "role": "link",
        "text": "",
        "label": "",
        "attrs": {"data-home": "", "href": home},
        "box": [0, 0, 0, 0],
    }
    traj: Trajectory = {
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
