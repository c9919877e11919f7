"""An app's recorded tasks as held-out chains: the records the chain walk reads, the chains walked and run with
the scripted planner on a fresh app session each, and the held-out folder the evaluation reads (docs/APPS.md,
"Held out in eval: Trac").

- `app_items(pool)`: one `ItemRecord` per kept task of a `record-apps` folder, with the facts the request
  composer reads (`Ask`, from the task's target: `trac_ask`). The walk's fields are read off the task as
  pool-items reads them off a generated site's. Trac's home is its start page, the wiki (`HOME`): a task
  starting there fresh is a home start, and a chain's trip home is a click on the main navigation's "Wiki"
  link (`trac_home`, run-chains' `SiteInfo.home`). A part's `control` is what it acts on (a query parameter, a ticket and
  macro, a form); its `scope` is the task's, widened where Trac's pages tie parts together (below).
- `app_part(pool, id)`: a kept part as run-chains and the closed loop take it (`plandvc.records.Part`).
- `AppSession`: a browser session whose backend state is the app's own database (the adapter's `state`), so
  `plandvc.run.chain.run_chain` and `plandvc.eval.closed.run_episode` gate every part on it unchanged.
- `app_specs(cfg)`: the walk (`plandvc.chains.make.make_chains`, requests composed), each chain run by
  `run_chain` on its own fresh tracd, the rows checked by filter-rows' checks; the folder has eval-specs'
  layout (`items.jsonl`, `chains.jsonl`, `raw/<key>/`, `specs.jsonl`, `summary.json`), so
  `plandvc.eval.specs.load_held_out` and the teacher-forced evaluation read it as they read eval-specs'.

Nothing here writes a training row: the folder is the evaluation's only.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from plandvc import io
from plandvc.apps import trac
from plandvc.apps.script import AppTask
from plandvc.chains.make import ChainParams, make_chains
from plandvc.chains.walk import HOME_RULES
from plandvc.macros import REGISTRY
from plandvc.macros.home import CHAIN_HOME_DONE, HOME_MEMORY
from plandvc.memory.text import answer_text
from plandvc.records import (
    Ask,
    BackendState,
    ChainSpec,
    ElementDescriptor,
    ItemRecord,
    Part,
    Replayable,
    Task,
    Trajectory,
)
from plandvc.run.chain import RunParams, SiteInfo, run_chain
from plandvc.run.timing import Clock, TimedSession
from plandvc.urls import url_path

SITE_NAME = "Trac"
HOME = "/wiki"  # Trac's start page: the main navigation's "Wiki" link
TODAY = "2024-04-01"  # the seeded tracker's "today": after its last seeded ticket (docs/APPS.md)
# the query parameters of Trac's ticket list, as the tasks' scopes name them
QUERY_SCOPES = tuple(f"query:/query:{p}" for p in ("component", "status", "order", "page"))
LABELS = {"component": "Component", "priority": "Priority", "milestone": "Milestone", "type": "Type",
          "status": "Status", "reporter": "Reporter", "summary": "Summary"}  # fmt: skip


# ── records ──────────────────────────────────────────────────────────────────


def _base(task: AppTask) -> Ask:
    return {
        "macro": task["macro"],
        "site": SITE_NAME,
        "page": "query",
        "plural": "tickets",
        "singular": "ticket",
    }


def trac_ask(task: AppTask, summaries: Mapping[int, str]) -> Ask:
    """The composer's facts of a Trac task, from its target (`summaries`: ticket id -> summary, the entry's
    name); a KeyError names a macro it does not know."""
    m, t = task["macro"], task["target"]
    ask = _base(task)
    if "id" in t:
        ask["entry"] = summaries[int(t["id"])]
    if m == "search_by_text":
        ask |= {
            "kind": "search",
            "impl": "form",
            "values": [str(t["word"])],
            "query": [["q", str(t["word"])]],
        }
    elif m in ("filter_by_dropdown", "count_entries"):
        ask |= {"label": "Component", "kind": "dropdown", "impl": "select", "type": "enum"}
        ask |= {"values": [str(t["component"])], "query": [["component", str(t["component"])]]}
    elif m == "filter_by_options":
        values = [str(v) for v in t["status"]]
        ask |= {"label": "Status", "kind": "options", "impl": "checkboxes", "type": "enum", "values": values}
        ask["query"] = [["status", v] for v in values]
    elif m == "sort_by_form":
        col = str(t["column"])
        key = "id" if col == "Ticket" else col.lower()
        ask |= {"label": col, "kind": "sort", "impl": "headers", "dir": "asc", "query": [["order", key]]}
        ask["type"] = "number" if col == "Ticket" else "text"
    elif m == "go_to_page":
        ask["number"] = int(t["page"])
    elif m in ("report_information", "edit_entry"):
        ask["label"] = LABELS[str(t["field"])]
        if m == "edit_entry":
            ask["values"] = [str(t["value"])]
    elif m == "create_entry":
        ask["fields"] = [[LABELS[k], str(t[k])] for k in ("summary", "component", "priority")]
    elif m == "navigate_to_page":
        ask["plural"] = str(t["title"]).lower()
    elif m not in ("open_entry", "delete_entry"):
        raise KeyError(f"{task['task_id']}: no facts for macro {m!r}")
    check = task["check"]
    if check["kind"] == "answer":
        ask["answer"] = str(check["expected"])
    return ask


def _control(task: AppTask) -> str:
    """What a task acts on: the query parameter of a list part, else its macro and ticket (or its page)."""
    params = task["check"].get("params")
    if task["check"]["kind"] == "query" and isinstance(params, dict):
        return "query:" + ",".join(sorted(params))
    if task["macro"] == "count_entries":
        return "query:component"
    t = task["target"]
    return f"{task['macro']}:{t.get('id', t.get('path', ''))}"


def _scope(task: AppTask) -> list[str]:
    """The task's scope, widened by Trac's pages: a count's answer depends on the status filter too (the list
    it counts), and a question opens the ticket, which leaves the list page a query part before it is gated
    on, so it claims every query scope (it ends a chain only after no list part)."""
    scope = set(task["scope"])
    if task["macro"] == "count_entries":
        scope.add("query:/query:status")
    if task["macro"] == "report_information":
        scope.update(QUERY_SCOPES)
    return sorted(scope)


def app_record(pool: Path, kept: Mapping[str, str], summaries: Mapping[int, str]) -> ItemRecord:
    """The walk's record of one kept app task (`kept`: a kept.jsonl line)."""
    part = app_part(pool, kept["id"], kept["run"])
    task, traj = cast(AppTask, part["task"]), part["traj"]
    start = url_path(task["start"]["url"])
    return {
        "id": task["task_id"],
        "run": kept["run"],
        "dir": part["dir"],
        "site": task["site"],
        "macro": task["macro"],
        "family": REGISTRY[task["macro"]].family,
        "start": start,
        "control": _control(task),
        "scope": _scope(task),
        "answers": traj.get("answer") not in (None, "") or task["check"]["kind"] == "answer",
        "fresh": task["start"]["kind"] == "fresh",
        "stays": url_path(traj.get("end") or "") == start,
        "home_start": task["start"]["kind"] == "fresh" and start == HOME,
        "instruction": task["instruction"],
        "ask": trac_ask(task, summaries),
    }


def app_part(pool: Path, tid: str, run: str = "trac") -> Part:
    """A kept app task's files as a part (`task` is the app's task.json: it has no spec control)."""
    rel = f"runs/{run}/accepted/{tid}"
    folder = pool / rel
    task = cast(Task, io.read_json(folder / "task.json"))
    traj = cast(Trajectory, io.read_json(folder / "trajectory.json"))
    elements = cast(list[ElementDescriptor], io.read_json(folder / "elements.json"))
    return {"id": tid, "run": run, "dir": rel, "task": task, "traj": traj, "elements": elements}


def app_items(pool: Path, seed: trac.Seed) -> list[ItemRecord]:
    """Every kept task of an app pool as a walk record, sorted by id (the question macros included)."""
    summaries = {int(str(t["id"])): str(t["summary"]) for t in trac.tickets(trac.template(seed))}
    return sorted(
        (app_record(pool, k, summaries) for k in io.read_jsonl(pool / "kept.jsonl")), key=lambda r: r["id"]
    )


# ── sessions ─────────────────────────────────────────────────────────────────


class AppSession(TimedSession):
    """A browser session on an app: the session's calls passed through, its backend state read from the app's
    own database by `state` (the adapter's), with the session's clipboard; a screenshot waits for the page's
    network to be idle."""

    def __init__(self, session: Any, state: Callable[[], Mapping[str, Any]]) -> None:
        super().__init__(session, Clock())
        self._state = state

    async def screenshot(self) -> bytes:
        """The viewport once the page's network is idle: an app's own scripts change the page after it loads
        (Trac's folding arrows on a ticket), so a screenshot taken at once would show either state."""
        page = getattr(self._session, "page", None)
        if page is not None:
            await page.wait_for_load_state("networkidle")
        return await super().screenshot()

    async def backend_state(self, site: str | None = None) -> BackendState:
        s = self._state()
        return {"entries": s["entries"], "changes": s["changes"], "clipboard": list(self.clipboard)}


# ── the held-out chains ──────────────────────────────────────────────────────


@dataclass
class AppSpecsConfig:
    """eval-apps' walk and run: the app pool, its seed (as recorded), the output folder and the walk's params."""

    pool: Path
    out: Path
    seed: int = 0
    size: int = 40
    n: int = 30
    sizes: tuple[int, ...] = (2, 3, 4)
    tries: int = 40
    answer_share: float = 0.5
    params: RunParams | None = None


def trac_home() -> Replayable:
    """A chain's trip home on Trac, in the pool's format: one click on the main navigation's "Wiki" link."""
    element: ElementDescriptor = {
        "tag": "a",
        "role": "link",
        "text": "Wiki",
        "label": "",
        "attrs": {"href": HOME},
        "box": [0, 0, 0, 0],
    }
    traj: Trajectory = {
        "task_id": "trac-home",
        "site": "trac",
        "macro": "navigate_home",
        "start_kind": "mid_chain",
        "history_macro": None,
        "steps": [{"action": "click", "element": 0, "value": None, "memory": HOME_MEMORY}],
        "done": CHAIN_HOME_DONE,
        "answer": None,
        "end": HOME,
    }
    return {"trajectory": traj, "elements": [element]}


def site_info() -> SiteInfo:
    """Trac as the planner sees it: its name, its today, its trip home."""
    return SiteInfo(SITE_NAME, TODAY, trac_home())


async def _run_all(
    chains: list[ChainSpec], pool: Path, seed: trac.Seed, params: RunParams, raw: Path
) -> list[dict[str, Any]]:
    """Every chain by run_chain on its own fresh tracd session in one Chromium; ok chains' files in raw/."""
    from plandvc.browser import Browser

    results = []
    async with Browser() as browser:
        for chain in chains:
            parts = [app_part(pool, p["id"]) for p in chain["parts"]]
            with trac.serve(seed) as s:
                session = await browser.new_session(s.base)
                try:
                    out = await run_chain(
                        chain, parts, AppSession(session, s.state), site_info(), params, None
                    )
                finally:
                    await session.close()
            res = dict(out.result)
            results.append(res)
            if res["ok"] and out.episode is not None:
                folder = raw / chain["key"]
                io.write_jsonl(folder / "rows.jsonl", out.rows)
                for name, data in sorted(out.images.items()):
                    io.write_bytes(folder / name, data)
                io.write_json(folder / "episode.json", out.episode, sort_keys=False)
    return sorted(results, key=lambda r: r["key"])


COMMAND = "eval-apps"
is_app_specs_out = io.owned_folder(
    ("items.jsonl", "chains.jsonl", "raw", "results.jsonl", "specs.jsonl", "summary.json"),
    "summary.json",
    lambda found: isinstance(found, dict) and {"held_out", "chains", "app"} <= found.keys(),
)


def app_specs(cfg: AppSpecsConfig) -> dict[str, Any]:
    """Walk, run and check an app's held-out chains into `cfg.out` (eval-specs' layout); the summary."""
    from plandvc.eval.specs import spec_line
    from plandvc.rows.validate import Reason, check_chain

    io.check_output_dir(cfg.out, is_app_specs_out, COMMAND)
    seed = trac.Seed(cfg.seed, cfg.size)
    records = app_items(cfg.pool, seed)
    walk = ChainParams(
        cfg.n, cfg.sizes, cfg.seed, cfg.tries, cfg.answer_share, HOME_RULES[0], 0.0, "composed", 0.0
    )
    chains = make_chains(records, walk)
    tmp = io.staging(cfg.out)
    io.write_jsonl(tmp / "items.jsonl", records)
    io.write_jsonl(tmp / "chains.jsonl", chains)
    results = asyncio.run(_run_all(chains, cfg.pool, seed, cfg.params or RunParams(), tmp / "raw"))
    io.write_jsonl(tmp / "results.jsonl", results, sort_keys=True)
    dropped: Counter[str] = Counter()
    lines = []
    for res in results:
        if not res["ok"]:
            dropped["run: " + str(res.get("error")).split(":")[0]] += 1
            continue
        got = check_chain(tmp / "raw" / res["key"], res["key"])
        if isinstance(got, Reason):
            dropped["rows: " + got.kind] += 1
            continue
        lines.append(spec_line(got.episode))
    lines.sort(key=lambda x: x["key"])
    io.write_jsonl(tmp / "specs.jsonl", lines)
    turns = [t for x in lines for t in x["turns"]]
    summary = {
        "app": "trac",
        "records": len(records),
        "records_by_macro": dict(sorted(Counter(r["macro"] for r in records).items())),
        "chains": len(chains),
        "held_out": len(lines),
        "dropped": dict(sorted(dropped.items())),
        "by_size": dict(sorted(Counter(str(len(x["parts"])) for x in lines).items())),
        "by_macro": dict(
            sorted(Counter(t["macro"] for x in lines for t in x["turns"] if t["macro"]).items())
        ),
        "asking": sum(bool(answer_text(x["answer"])) for x in lines),
        "turns": len(turns),
        "turns_by_kind": dict(sorted(Counter(t["kind"] for t in turns).items())),
        "seed": cfg.seed,
        "size": cfg.size,
    }
    io.write_json(tmp / "summary.json", summary)
    io.publish_dir(tmp, cfg.out)
    return summary
