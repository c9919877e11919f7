"""Builders and checks for the chains tests: records made directly, tiny pool directories in the pool
format (docs/FORMATS.md), and `check_rules` (every chain rule on every chain) shared by the walk, items and sample tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from hypothesis import strategies as st

from plandvc.chains.walk import chain_key, next_via, reads_last_query
from plandvc.io import write_json, write_jsonl
from plandvc.macros import FAMILY_OF

ANSWER_MACROS = ("report_information", "count_entries")


def rec(id: str, site: str = "shop", **kw: Any) -> dict[str, Any]:
    """An items record with defaults: a fresh filter on /sites/<site>/orders that stays there."""
    r = {
        "id": id,
        "run": "r1",
        "dir": f"runs/r1/accepted/{id}",
        "site": site,
        "macro": "filter_by_dropdown",
        "start": f"/sites/{site}/orders",
        "control": f"c-{id}",
        "scope": [f"query:/sites/{site}/orders:{id}"],
        "answers": False,
        "fresh": True,
        "stays": True,
        "home_start": False,
        "instruction": f"Do {id}.",
    }
    r.update(kw)
    r["family"] = FAMILY_OF.get(r["macro"], "Navigation")
    return r


# ── hypothesis: generated pools of records ────────────────────────────────────


_ROW = st.tuples(
    st.sampled_from(sorted(FAMILY_OF)),  # macro
    st.integers(0, 2),  # start page: home, orders, items
    st.booleans(),  # fresh
    st.integers(0, 9),  # 0: answers whatever the macro
    st.frozensets(st.integers(0, 9), max_size=2),  # scope
    st.integers(0, 8),  # control (0: none)
    st.booleans(),  # stays
    st.integers(0, 3),  # > 0: a fresh home start is a home_start
)


def _site(site: str, rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    pages = [f"/sites/{site}", f"/sites/{site}/orders", f"/sites/{site}/items"]
    out = []
    for k, (macro, page, fresh, a, scope, control, stays, h) in enumerate(rows):
        start = pages[page]
        out.append(
            rec(
                f"{site}-{k:03d}",
                site,
                macro=macro,
                start=start,
                control="abcdefgh"[control - 1] if control else None,
                scope=sorted(f"s{i}" for i in scope),
                answers=macro in ANSWER_MACROS or a == 0,
                fresh=fresh,
                stays=stays,
                home_start=fresh and page == 0 and h > 0,
            )
        )
    return out


def pools(max_sites: int = 3, max_size: int = 10) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Records of 1..max_sites sites over a few pages, controls and scope strings, so that chains both can and
    cannot form."""
    return st.lists(st.lists(_ROW, max_size=max_size), min_size=1, max_size=max_sites).map(
        lambda sites: [r for s, rows in enumerate(sites) for r in _site(f"site{s}", rows)]
    )


# ── pool directories ─────────────────────────────────────────────────────────


def task_files(
    tid: str,
    site: str = "shop",
    macro: str = "filter_by_dropdown",
    start: str | None = None,
    start_kind: str = "fresh",
    keep: bool = False,
    control: dict[str, Any] | None = None,
    check: dict[str, Any] | None = None,
    scope: list[str] | None = None,
    end: str | None = None,
    answer: Any = None,
    history_macro: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """(task.json, trajectory.json, elements.json) of one recorded trajectory, in the pool format."""
    start = start or f"/sites/{site}/orders"
    task = {
        "task_id": tid,
        "site": site,
        "macro": macro,
        "instruction": f"Task {tid}.",
        "start": {"url": start, "kind": start_kind, "keep": keep},
        "control": control or {"control_id": f"c-{tid}", "role": "dropdown", "prep": {}},
        "check": check or {"kind": "query", "path": start, "params": {"p": ["v"]}},
        "verifier": {"exclusive": True},
        "scope": scope if scope is not None else [f"query:{start}:{tid}"],
    }
    traj = {
        "task_id": tid,
        "site": site,
        "macro": macro,
        "start_kind": start_kind,
        "history_macro": history_macro,
        "steps": [{"action": "click", "element": 0, "value": None, "memory": "Clicking."}],
        "done": "Done.",
        "answer": answer,
        "end": end if end is not None else start + "?p=v",
    }
    elements = [
        {"tag": "button", "role": "button", "text": "Apply", "label": "", "attrs": {}, "box": [0, 0, 9, 9]}
    ]
    return task, traj, elements


def write_pool(
    root: Path,
    parts: list[tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]],
    train: list[str] = ("shop", "clinic"),
    test: list[str] = ("fleet",),
    run: str = "r1",
) -> tuple[Path, Path]:
    """A pool dir (kept.jsonl, pool_ids.txt without the question macros, runs/<run>/accepted/...) and a sites
    dir with site_split.json; returns (pool, sites)."""
    pool, sites = root / "pool", root / "sites"
    kept = []
    for task, traj, elements in parts:
        d = pool / "runs" / run / "accepted" / task["task_id"]
        write_json(d / "task.json", task)
        write_json(d / "trajectory.json", traj)
        write_json(d / "elements.json", elements)
        kept.append({"id": task["task_id"], "run": run, "site": task["site"], "macro": task["macro"]})
    kept.sort(key=lambda r: r["id"])
    write_jsonl(pool / "kept.jsonl", kept)
    ids = sorted(r["id"] for r in kept if r["macro"] not in ANSWER_MACROS)
    (pool / "pool_ids.txt").write_text("".join(f"{i}\n" for i in ids))
    write_json(sites / "site_split.json", {"train": sorted(train), "test": sorted(test)})
    return pool, sites


def home_after_url_state(chain: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> bool:
    """The shape that fails by construction: a trip home after some earlier part's check reads the query."""
    parts = chain["parts"]
    return any(
        p["via"] == "home" and any(reads_last_query(by_id[q["id"]]) for q in parts[:k])
        for k, p in enumerate(parts)
    )


def check_rules(
    chains: list[dict[str, Any]], records: list[dict[str, Any]], home_rule: str = "any_earlier"
) -> None:
    """Every chain rule, on every chain."""
    by_id = {r["id"]: r for r in records}
    keys = set()
    for c in chains:
        parts = [by_id[p["id"]] for p in c["parts"]]
        assert 2 <= len(parts) <= 4
        assert {r["site"] for r in parts} == {c["site"]}
        ids = [r["id"] for r in parts]
        assert len(set(ids)) == len(ids)
        controls = [r["control"] for r in parts]
        assert len(set(controls)) == len(controls)
        for i, a in enumerate(parts):
            for b in parts[i + 1 :]:
                assert not set(a["scope"]) & set(b["scope"]), (a["id"], b["id"])
        assert not any(r["answers"] for r in parts[:-1])
        assert c["parts"][0]["via"] is None
        for a, b, p in zip(parts, parts[1:], c["parts"][1:], strict=False):
            assert p["via"] is not None and p["via"] == next_via(a, b)
        assert c["key"] == chain_key(c["site"], ids)
        if home_rule == "any_earlier":
            assert not home_after_url_state(c, by_id), c
        keys.add("+".join(ids))
    assert len(keys) == len(chains)  # no chain twice


def can_chain(recs: list[dict[str, Any]]) -> bool:
    """Whether some two records of a site form a chain."""
    return any(
        a is not b
        and a["control"] != b["control"]
        and not set(a["scope"]) & set(b["scope"])
        and next_via(a, b)
        for a in recs
        for b in recs
    )


def dump(chains: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(c) + b"\n" for c in chains)
