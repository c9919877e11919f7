"""Replay robustness to a redesign: a pool recorded on the world, replayed on the same sites re-themed.

    plandvc make-sites --seed 0 --out /tmp/w && plandvc make-pool --sites /tmp/w --out /tmp/pool --per-macro 1
    plandvc make-sites --seed 0 --theme-seed 1 --out /tmp/w-rethemed
    python -m plandvc.contract.retheme --pool /tmp/pool --sites /tmp/w-rethemed

Each kept trajectory is replayed in a fresh session on the re-themed site (its task's prep, then the replayer
alone, `plandvc.replay`) and gated on what the replay caused, as make-pool gated the recording. A re-theme
(`themes.restyle`) keeps the data, layout family, pagination, banner and controls, and redraws the palette,
font, corner radius and navigation. The replayer finds an element by what is stable about it (control id,
link path, name, text, label; the box only breaks ties), so the promise is:

- every trajectory that takes no step on the site's navigation (the drawer's toggle, a menu's button, a link
  to one of the site's list pages) replays and passes its gate on the re-themed site;
- a trajectory that does may fail, when the navigation it used is gone (a drawer's "☰ Menu" on a top bar
  site, a top bar's link hidden in a closed drawer) — and then only as "element not found", never by acting
  on the wrong element or by failing its gate.

`check_promise` states that as a check; `tests/test_world_theme.py` records, re-themes, replays and asserts it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from plandvc.checks import gate
from plandvc.errors import script_main
from plandvc.io import InputError
from plandvc.pool.prep import prepare
from plandvc.pool.store import Pool
from plandvc.ports import free_ports
from plandvc.records import ElementDescriptor, Part
from plandvc.replay import ElementNotFound, Replayer, replay
from plandvc.sites.spec import load_sites
from plandvc.urls import url_path

if TYPE_CHECKING:
    from plandvc.browser import Browser

# the buttons that open a world site's navigation (templates/world/base.html): the drawer's and the menus'
NAV_BUTTONS = ("☰ Menu", "Browse ▾", "Help ▾")


@dataclass(frozen=True)
class Replayed:
    """One trajectory replayed on the re-themed site: passed its gate or not, why, and whether it stepped on
    the navigation."""

    task_id: str
    site: str
    macro: str
    uses_nav: bool
    passed: bool
    not_found: bool  # failed because a recorded element had no match (the clean failure)
    reason: str = ""


def uses_navigation(part: Part, page_paths: set[str]) -> bool:
    """Whether a step of `part` clicks the navigation: a nav button, or a link to one of the site's list
    pages (`page_paths`, by path; a body link to a list page counts too, which only errs towards "uses")."""
    for step in part["traj"].get("steps") or []:
        k = step.get("element")
        if k is None:  # a part from `Pool` names only recorded elements (its cross-file check)
            continue
        d: ElementDescriptor = part["elements"][k]
        attrs = d.get("attrs") or {}
        if d.get("tag") == "button" and " ".join(str(d.get("text") or "").split()) in NAV_BUTTONS:
            return True
        if d.get("tag") == "a" and "href" in attrs and url_path(str(attrs["href"])) in page_paths:
            return True
    return False


async def _replay_one(browser: Browser, base: str, part: Part, uses_nav: bool) -> Replayed:
    task = part["task"]
    session = await browser.new_session(base)
    try:
        await prepare(session, task)
        rp = Replayer(part["traj"], part["elements"], session)
        await replay(rp, session)
        st = await session.backend_state(task["site"])
        state = {
            "url": session.url, "seen": rp.seen, "entries": st["entries"], "changes": st["changes"],
            "clipboard": st["clipboard"], "events": rp.events, "answer": rp.answer,
        }  # fmt: skip
        ok, detail = gate(task["check"], task.get("verifier") or {}, state)
        return Replayed(part["id"], task["site"], task["macro"], uses_nav, ok, False, "" if ok else detail)
    except ElementNotFound as e:
        return Replayed(part["id"], task["site"], task["macro"], uses_nav, False, True, str(e))
    except Exception as e:  # a replay that errs otherwise is a failure of its own kind (not a clean one)
        why = f"{type(e).__name__}: {e}".splitlines()[0]
        return Replayed(part["id"], task["site"], task["macro"], uses_nav, False, False, why)
    finally:
        await session.close()


async def _replay_all(parts: list[tuple[Part, bool]], base: str, workers: int) -> list[Replayed]:
    from plandvc.browser import Browser

    queue: asyncio.Queue[tuple[Part, bool]] = asyncio.Queue()
    for p in parts:
        queue.put_nowait(p)
    done: list[Replayed] = []

    async def worker() -> None:
        async with Browser() as browser:
            while not queue.empty():
                part, nav = queue.get_nowait()
                done.append(await _replay_one(browser, base, part, nav))

    await asyncio.gather(*(worker() for _ in range(max(1, min(workers, len(parts) or 1)))))
    return sorted(done, key=lambda r: r.task_id)


def replay_pool(pool: str | Path, sites: str | Path, workers: int = 2) -> list[Replayed]:
    """Replay every kept trajectory of `pool` whose site is in `sites` (e.g. a re-themed world), gated."""
    from plandvc.sites.servers import Servers

    specs = load_sites(sites)
    store = Pool.open(pool)
    parts: list[tuple[Part, bool]] = []
    for tid in store.ids():
        part = store.part(tid)
        spec = specs.get(part["task"]["site"])
        if spec is None:
            continue
        paths = {f"/sites/{spec.site}/{p.page}" for p in spec.pages}
        parts.append((part, uses_navigation(part, paths)))
    if not parts:
        raise InputError(f"{pool}: no kept trajectory of a site in {sites}")
    with Servers(free_ports(1), sites) as servers:
        return asyncio.run(_replay_all(parts, servers.bases[0], workers))


def check_promise(results: Iterable[Replayed], exempt_nav: bool = True) -> list[str]:
    """The broken promises (empty when kept): a trajectory off the navigation that did not pass (every one
    when `exempt_nav` is False), or one on it that failed other than by a missing element."""
    broken = []
    for r in results:
        if r.passed:
            continue
        if not r.uses_nav or not exempt_nav:
            broken.append(f"{r.task_id}: {r.reason}")
        elif not r.not_found:
            broken.append(f"{r.task_id} (uses the navigation) failed unclean: {r.reason}")
    return broken


def report(results: list[Replayed]) -> str:
    """Shares overall, off and on the navigation, and per macro."""

    def share(rs: list[Replayed]) -> str:
        n = len(rs)
        ok = sum(r.passed for r in rs)
        return f"{ok}/{n} ({100 * ok / n:.1f} %)" if n else "0/0"

    lines = [
        f"replayed and passed: {share(results)}",
        f"  off the navigation: {share([r for r in results if not r.uses_nav])}",
        f"  on the navigation:  {share([r for r in results if r.uses_nav])}",
        "| macro | passed | on the navigation (passed) |",
        "|---|---:|---:|",
    ]
    macros = sorted({r.macro for r in results})
    for m in macros:
        rs = [r for r in results if r.macro == m]
        lines.append(f"| {m} | {share(rs)} | {share([r for r in rs if r.uses_nav])} |")
    reasons = Counter(r.reason.split(" on ")[0][:90] for r in results if not r.passed)
    lines += [f"  {n} x {why}" for why, n in reasons.most_common(8)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pool", type=Path, required=True, help="a pool recorded on the world")
    ap.add_argument(
        "--sites", type=Path, required=True, help="the same world, re-themed (make-sites --theme-seed)"
    )
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)

    def body() -> int:
        results = replay_pool(args.pool, args.sites, args.workers)
        print(report(results))
        broken = check_promise(results)
        for b in broken:
            print(f"broken: {b}", file=sys.stderr)
        return 1 if broken else 0

    return script_main("retheme", body)


if __name__ == "__main__":
    sys.exit(main())
