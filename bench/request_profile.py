"""The request profile: how the chains' requests read, v1 (joined) and v2 (composed) side by side with the 643
WebVoyager tasks, measured with the same regexes.

The chains are made here from an items file exactly as chain-specs makes them (`plandvc.chains.make`), with the
params of each version; v1's request is the parts' instructions joined as run-chains joins them
(`plandvc.memory.joined`), v2's the composed one chain-specs writes. Nothing is run in a browser.

    python bench/request_profile.py --items data/items.jsonl --sites data/world

The yardstick, `bench/yardsticks/webvoyager_tasks.jsonl`, is the `id` and `ques` of each line of
WebVoyager's `data/WebVoyager_data.jsonl` (MinorJerry/WebVoyager at 5a78967, Apache-2.0).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path

from plandvc import io
from plandvc.chains.items import site_specs
from plandvc.chains.make import ChainParams, make_chains
from plandvc.memory import joined
from plandvc.records import ItemRecord

HERE = Path(__file__).resolve().parent
YARDSTICK = HERE / "yardsticks" / "webvoyager_tasks.jsonl"
# a widget or a UI step named in the request (the list: slider, checkbox, dropdown, sort form, search
# box, button, home page, page N; and the other widgets our pages draw: tabs, calendars, chips, radios,
# suggestions, column headers)
WIDGET = re.compile(
    r"\b(?:sliders?|checkbox(?:es)?|dropdowns?|sort form|search box|buttons?|home page|page \d+|tabs?|calendars?"
    r"|chips?|radios?|suggestions?|column headers?)\b",
    re.I,
)
THEN = re.compile(r"\. Then\b")
QUESTION = re.compile(r"\?|\b(?:how many|how much|what|which|who|when|where|tell me|find out)\b", re.I)


@dataclass(frozen=True)
class Profile:
    """One set of requests, measured."""

    name: str
    requests: int
    widget_share: float
    then_share: float
    question_share: float
    mean_words: float


def profile(name: str, requests: list[str]) -> Profile:
    """The shares (0-1) of requests that name a widget, join sentences with ". Then", ask a question."""
    n = len(requests)
    return Profile(
        name,
        n,
        sum(bool(WIDGET.search(r)) for r in requests) / n,
        sum(bool(THEN.search(r)) for r in requests) / n,
        sum(bool(QUESTION.search(r)) for r in requests) / n,
        statistics.fmean(len(r.split()) for r in requests),
    )


def requests_of(items: list[ItemRecord], params: ChainParams, sites: Path) -> list[str]:
    """Each chain's request as the run makes it: composed, or the parts' instructions joined."""
    by_id = {r["id"]: r for r in items}
    chains = make_chains(items, params, site_specs(sites) if params.goal_share else None)
    return [c.get("request") or joined(by_id[p["id"]]["instruction"] for p in c["parts"]) for c in chains]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=Path, default=Path("data/items.jsonl"))
    ap.add_argument("--sites", type=Path, default=Path("data/world"))
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the profiles as JSON")
    args = ap.parse_args()
    items: list[ItemRecord] = io.read_jsonl(args.items)
    base = {"n": args.n, "seed": args.seed, "recovery_share": 0.2}
    v1 = ChainParams(**base)  # type: ignore[arg-type]
    v2 = ChainParams(**base, request="composed", goal_share=0.4)  # type: ignore[arg-type]
    yard = [json.loads(line)["ques"] for line in YARDSTICK.read_text(encoding="utf-8").splitlines()]
    rows = [
        profile("WebVoyager (643 tasks)", yard),
        profile("plandvc v1 (joined)", requests_of(items, v1, args.sites)),
        profile("plandvc v2 (composed)", requests_of(items, v2, args.sites)),
    ]
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=1))
        return
    print("| requests | n | widget or UI step | '. Then'-joined | asks a question | mean words |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r.name} | {r.requests} | {r.widget_share:.1%} | {r.then_share:.1%} | {r.question_share:.1%} | "
            f"{r.mean_words:.1f} |"
        )


if __name__ == "__main__":
    main()
