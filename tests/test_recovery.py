"""Recovery chains: which parts may fail and how (chain-specs), and, in real Chromium on the real sites server,
each failure kind failing its own gate at the failed attempt and passing after the planner's re-delegation;
a failure that passes its gate, or leaves a change behind, drops the chain with that reason."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
import pytest_asyncio
from bundled import NAMES, POOL_DIR, SITES_DIR, SPECS, pool_items_once
from chain_pools import rec
from playwright.async_api import Page
from view_pages import Watch, in_chromium, open_ready

from plandvc import io
from plandvc.browser import Browser
from plandvc.chains.recovery import KINDS, assign_failures, candidates, siblings_of
from plandvc.chains.walk import chain_specs
from plandvc.macros import TOGGLES
from plandvc.pool.store import Pool
from plandvc.records import ChainSpec, ItemRecord, Part
from plandvc.rows.manifest import VersionError, parse_manifest
from plandvc.run.chain import ChainOutput, RunParams, SiteInfo, run_chain
from plandvc.run.corrective import cut_points, settings
from plandvc.run.recovery import failure_problems
from plandvc.run.runner import load_parts
from plandvc.run.script import template_memory

ROOT = Path(__file__).resolve().parents[1]


def plandvc(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plandvc", *map(str, args)], capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def items() -> list[ItemRecord]:
    return pool_items_once(POOL_DIR, SITES_DIR)[0]


# ── chain-specs: which chains, which part, which kind ─────────────────────────


def test_the_rules_choose_only_failures_that_can_be_recognised_and_undone() -> None:
    table = {  # id: (macro, control, instruction)
        "a1": ("filter_by_dropdown", "status", "Status A."),
        "a2": ("filter_by_dropdown", "status", "Status B."),
        "a3": ("filter_by_dropdown", "status", "Status A."),  # the same value as a1
        "o1": ("filter_by_options", "chan", "Web."),
        "o2": ("filter_by_options", "chan", "Phone."),
        "c1": ("create_entry", "create", "Create x."),
        "c2": ("create_entry", "create", "Create y."),
        "e1": ("edit_entry", "edit", "Edit x."),
        "e2": ("edit_entry", "edit", "Edit y."),
        "k1": ("count_entries", "status", "How many A?"),
        "k2": ("count_entries", "status", "How many B?"),
        "p1": ("copy_value", "copy", "Copy x."),
        "p2": ("copy_value", "copy", "Copy y."),
        "n1": ("open_entry", "row", "Open x."),
        "n2": ("open_entry", "row", "Open y."),
        "s1": ("search_by_text", "q", "Search x."),
        "s2": ("search_by_text", "q", "Search y."),
        "z1": ("sort_by_form", "sort", "Sort x."),
    }
    recs: list[Any] = [
        rec(i, macro=m, control=c, instruction=text, answers=m == "count_entries")
        for i, (m, c, text) in table.items()
    ]
    sibs = siblings_of(recs)
    kinds = {r["id"]: {k: s for k, s in candidates(r, sibs)} for r in recs}
    assert kinds["a1"] == {"stopped_short": [], "wrong_value": ["a2"]}  # a3 says the same: not a wrong value
    assert kinds["k1"] == {"stopped_short": [], "wrong_value": ["k2"]}
    assert kinds["s1"] == {"stopped_short": [], "wrong_value": ["s2"]}
    assert kinds["z1"] == {"stopped_short": []}  # no sibling: no wrong value to play
    assert "filter_by_options" in TOGGLES and kinds["o1"] == {"stopped_short": []}
    for form in ("c1", "e1"):  # a wrong entry or field would stay; a form can be lost
        assert kinds[form] == {"stopped_short": [], "lost_work": []}
    for other in ("p1", "n1"):  # the clipboard keeps a wrong copy; another entry's page is elsewhere
        assert kinds[other] == {"stopped_short": []}


def test_a_share_adds_failures_and_leaves_the_chains_as_they_are(items: list[ItemRecord]) -> None:
    chains = chain_specs(items, 200, seed=3)
    assert assign_failures(chains, items, 0.0, seed=3) == chains
    got = assign_failures(chains, items, 0.5, seed=3)
    assert got == assign_failures(chains, items, 0.5, seed=3)  # seeded
    assert [{k: v for k, v in c.items() if k != "failure"} for c in got] == chains
    failing = [c for c in got if "failure" in c]
    assert 0.35 < len(failing) / len(chains) < 0.65
    assert {c["failure"]["kind"] for c in failing} == set(KINDS)
    by_id = {r["id"]: r for r in items}
    sibs = siblings_of(items)
    for c in failing:
        f = c["failure"]
        allowed = dict(candidates(by_id[c["parts"][f["part"]]["id"]], sibs))
        assert f["kind"] in allowed
        assert f.get("sibling") in (allowed[f["kind"]] or [None])


def test_share_zero_writes_the_chains_of_a_run_without_recovery(tmp_path: Path) -> None:
    """chain-specs with --recovery-share 0 is the walk's output byte for byte (the walk's draws are never
    touched by the recovery draws), and a positive share changes only the chosen lines."""
    items = tmp_path / "items.jsonl"
    assert plandvc("pool-items", "--pool", POOL_DIR, "--sites", SITES_DIR, "--out", items).returncode == 0
    outs = {}
    for share in ("0", "0.3"):
        out = tmp_path / f"chains-{share}.jsonl"
        p = plandvc("chain-specs", "--items", items, "--out", out, "--n", "300", "--recovery-share", share)
        assert p.returncode == 0, p.stderr
        outs[share] = out.read_bytes()
    walk = chain_specs(io.read_jsonl(items), 300, seed=0)
    assert outs["0"] == b"".join(orjson.dumps(c) + b"\n" for c in walk)
    lines0, lines3 = outs["0"].splitlines(), outs["0.3"].splitlines()
    changed = [(a, b) for a, b in zip(lines0, lines3, strict=True) if a != b]
    assert 0 < len(changed) < len(lines0)
    for a, b in changed:
        got = orjson.loads(b)
        assert {k: v for k, v in got.items() if k != "failure"} == orjson.loads(a)


def test_bad_recovery_input_is_one_line(tmp_path: Path) -> None:
    p = plandvc("chain-specs", "--items", tmp_path / "x", "--out", tmp_path / "o", "--recovery-share", "1.5")
    assert p.returncode != 0 and "Traceback" not in p.stderr and not (tmp_path / "o").exists()
    assert "--recovery-share: must be in [0, 1], got 1.5" in p.stderr
    assert failure_problems("c:1", {"part": 2, "kind": "wrong_value"}, 2) == [
        "c:1: failure.part 2 is not a part index (0..1)",
        "c:1: failure.sibling None: a wrong_value failure names a sibling trajectory",
    ]
    assert failure_problems("c:1", {"part": 0, "kind": "crashed", "sibling": "x"}, 1) == [
        "c:1: failure.kind 'crashed' is not one of stopped_short, wrong_value, lost_work",
        "c:1: failure.sibling is only for a wrong_value failure",
    ]
    assert failure_problems("c:1", {"part": 0, "kind": "lost_work"}, 1) == []


def test_the_memory_after_a_failed_attempt_says_what_failed() -> None:
    turns: list[Any] = [
        {
            "kind": "delegate",
            "family": "Filter",
            "instruction": "Sort.",
            "macro": "sort_by_form",
            "role": "normal",
        },
        {
            "kind": "delegate",
            "family": "Form",
            "instruction": "Create x.",
            "macro": "create_entry",
            "fails": "lost_work",
            "role": "normal",
        },
        {
            "kind": "delegate",
            "family": "Form",
            "instruction": "Nothing was saved. Do it again: Create x.",
            "macro": "create_entry",
            "role": "after_failure",
        },
        {"kind": "done", "answer": None, "role": "normal"},
    ]
    assert template_memory(turns, 0).startswith("Checklist: 1) Sort. 2) Create x. Next: Filter: Sort.")
    assert template_memory(turns, 2) == (
        "The Form step is not done: its report says the form was left unsaved, so nothing changed. "
        "Done: 1 of 2; left: 2. Next: Form: Nothing was saved. Do it again: Create x."
    )
    assert template_memory(turns, 3).endswith("All 2 checklist items are done.")


# ── the run, in real Chromium ─────────────────────────────────────────────────


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def chromium() -> Any:
    async with Browser() as b:
        yield b


def pick(items: list[ItemRecord], macro: str, sibling: bool = False) -> tuple[ItemRecord, ItemRecord | None]:
    """The first record of `macro` (with a sibling of another instruction when asked) and that sibling."""
    sibs = siblings_of(items)
    for r in items:
        if r["macro"] != macro:
            continue
        wrong = dict(candidates(r, sibs)).get("wrong_value")
        if not sibling:
            return r, None
        if wrong:
            return r, next(s for s in items if s["id"] == wrong[0])
    raise LookupError(macro)


def chain_of(
    r: ItemRecord, kind: str, sibling: ItemRecord | None = None, cut: int | None = None
) -> ChainSpec:
    failure: Any = {"part": 0, "kind": kind}
    if sibling is not None:
        failure["sibling"] = sibling["id"]
    if cut is not None:
        failure["cut"] = cut
    return {
        "key": f"rec-{r['id']}",
        "site": r["site"],
        "parts": [{"id": r["id"], "via": None}],
        "failure": failure,
    }


async def run(
    browser: Browser,
    base: str,
    chain: ChainSpec,
    parts: list[Part] | None = None,
    sibling: Part | None = None,
) -> ChainOutput:
    pool = Pool.open(POOL_DIR)
    if parts is None:
        parts, _ = load_parts(pool, chain)
    sid = chain.get("failure", {}).get("sibling")
    if sibling is None and sid:
        sibling = pool.part(sid)
    info = SiteInfo(NAMES[chain["site"]], SPECS[chain["site"]].today)
    session = await browser.new_session(base)
    try:
        return await run_chain(chain, parts, session, info, RunParams(), None, None, sibling)
    finally:
        await session.close()


def rows_of(out: ChainOutput) -> list[dict[str, Any]]:
    return [dict(r) for r in out.rows]


def text_of(row: dict[str, Any]) -> str:
    out = []
    for m in row["messages"]:
        c = m["content"]
        out += [c] if isinstance(c, str) else [p.get("text", "") for p in c]
    return "\n".join(out)


CASES = [
    (
        "stopped_short",
        "sort_by_form",
        False,
        "query: on /sites/",
        "I could not finish the task: I stopped before",
    ),
    ("wrong_value", "filter_by_dropdown", True, "query: on /sites/", "finished in"),
    ("wrong_value", "count_entries", True, "answer: expected", "finished in"),
    ("lost_work", "create_entry", False, "entry_created: expected a new", "so nothing was saved"),
    ("lost_work", "edit_entry", False, "entry_updated: expected an update", "so nothing was saved"),
]


@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(("kind", "macro", "sib", "failed_gate", "report"), CASES)
async def test_each_failure_fails_its_gate_then_the_redelegation_passes(
    chromium: Browser,
    base: str,
    items: list[ItemRecord],
    kind: str,
    macro: str,
    sib: bool,
    failed_gate: str,
    report: str,
) -> None:
    r, sibling = pick(items, macro, sib)
    out = await run(chromium, base, chain_of(r, kind, sibling))
    res = out.result
    assert res["ok"], res
    assert res["failure"] == kind
    assert res["failed_gate"].startswith(failed_gate)  # the failed attempt's own gate failed, right then
    assert " ok" in res["detail"] and res["error"] is None  # and the part's gate passes at the end
    rows = rows_of(out)
    assert [row["role"] for row in rows] == ["normal", "after_failure", "normal"]
    assert [row["op"] for row in rows] == ["delegate", "delegate", "done"]
    first = orjson.loads(rows[0]["target"])["action"][0]["delegate"]
    assert first["instruction"] == r["instruction"]  # the failed attempt's own delegation is the right one
    seen = text_of(rows[1])
    assert report in seen  # the recovery turn sees the failed report
    again = orjson.loads(rows[1]["target"])
    assert again["action"][0]["delegate"]["family"] == r["family"]
    assert again["memory"].startswith(f"The {r['family']} step is not done")
    assert out.episode is not None and out.episode["failure"]["kind"] == kind
    said = again["action"][0]["delegate"]["instruction"]
    assert said == orjson.loads(rows[1]["target"])["action"][0]["delegate"]["instruction"]
    if kind == "wrong_value":  # the value the page holds (the sibling's) and the one it needs
        assert sibling is not None
        wrong, right = (settings(Pool.open(POOL_DIR).part(x["id"]))[0].value for x in (sibling, r))
        assert f'"{wrong}"' in said and f'"{right}"' in said and wrong != right
    else:  # what was left undone, or the form left unsaved, then the task
        assert said != r["instruction"] and said.endswith(r["instruction"])


CUT_PARTS = [  # a recording of each kind of check, with steps before its last one
    "clinic-filter_by_dropdown-0001",  # query: open the page, choose, apply
    "clinic-sort_by_form-0000",  # query: two choices, apply
    "clinic-search_by_text-0000",  # visited: open the page, type, search
    "clinic-count_entries-0000",  # answer: choose, apply, count
    "clinic-open_entry-0000",  # visited: open the list, open the entry
    "clinic-edit_entry-0000",  # entry_updated: open the form, set, save
    "clinic-create_entry-0000",  # entry_created: open the form, six fields, submit
]
CUTS = [
    (pid, cut)
    for pid in CUT_PARTS
    for cut in cut_points(
        Pool.open(POOL_DIR).part(pid)["traj"]["steps"], pid.split("-")[1] == "count_entries"
    )
]


@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(("pid", "cut"), CUTS, ids=[f"{p}-cut{c}" for p, c in CUTS])
async def test_every_honest_cut_fails_its_gate_then_the_redelegation_passes(
    chromium: Browser, base: str, items: list[ItemRecord], pid: str, cut: int
) -> None:
    """stopped_short at every honest cut of a recording of each kind of check: the failed attempt's own gate
    fails right after it, the re-delegation does the steps left and the part's gate passes at the end, and
    the episode records the cut."""
    r = next(x for x in items if x["id"] == pid)
    out = await run(chromium, base, chain_of(r, "stopped_short", cut=cut))
    res = out.result
    assert res["ok"] and res["error"] is None, res
    assert res["failed_gate"] and " ok" not in res["failed_gate"], res["failed_gate"]
    assert " ok" in res["detail"]
    assert out.episode is not None and out.episode["failure"] == {
        "part": 0,
        "kind": "stopped_short",
        "cut": cut,
    }
    steps = Pool.open(POOL_DIR).part(pid)["traj"]["steps"]
    said = orjson.loads(out.rows[1]["target"])["action"][0]["delegate"]["instruction"]
    first = steps[cut]["memory"] if cut < len(steps) else "reporting the answer"  # a question's last act
    assert said.startswith(f"The previous attempt stopped before {first[:1].lower()}{first[1:].rstrip('.')}")


@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
async def test_a_failure_that_passes_its_gate_drops_the_chain(
    chromium: Browser, base: str, items: list[ItemRecord]
) -> None:
    """The part's recording gets a harmless last action (applying the filter again): stopping before it
    leaves the part done, so the 'failure' passes its gate and the chain is dropped, though every gate passes
    at the end. (A cut before a trailing scroll is never drawn: a scroll does not act.)"""
    r, _ = pick(items, "filter_by_dropdown")
    parts, _ = load_parts(Pool.open(POOL_DIR), chain_of(r, "stopped_short"))
    traj = parts[0]["traj"]
    again = {**traj["steps"][-1], "memory": "Applying the filter again."}
    parts[0] = {**parts[0], "traj": {**traj, "steps": [*traj["steps"], again]}}
    chain = chain_of(r, "stopped_short", cut=len(traj["steps"]))
    res = (await run(chromium, base, chain, parts)).result
    assert not res["ok"]
    assert res["error"].startswith("the failure passed its gate: query: /sites/")
    assert "ok" in res["detail"]


@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
async def test_a_failure_that_leaves_a_change_drops_the_chain(
    chromium: Browser, base: str, items: list[ItemRecord]
) -> None:
    """A 'wrong value' on a form (never chosen: the site deletes nothing) saves another entry: the part's gate
    fails at the attempt, but the entry stays, so the chain is dropped with that reason."""
    sibs = siblings_of(items)
    group = next(g for (_, macro, _, _), g in sorted(sibs.items()) if macro == "create_entry" and len(g) > 1)
    part, other = group[0], group[1]
    assert part["instruction"] != other["instruction"]
    chain = chain_of(part, "wrong_value", other)
    res = (await run(chromium, base, chain)).result
    assert not res["ok"]
    assert res["failed_gate"].startswith("entry_created: ")
    assert res["error"].startswith("the failure left a change: create ")


# ── run-chains and filter-rows on a sample ────────────────────────────────────

PER_KIND = 6


@dataclass(frozen=True)
class Sample:
    """A sample of recovery chains of every kind through run-chains, filter-rows and view (one per module)."""

    chains: list[ChainSpec]
    raw: Path
    rows: Path
    metrics: Path
    view: Path


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, items: list[ItemRecord]) -> Sample:
    d = tmp_path_factory.mktemp("recovery")
    chains: list[ChainSpec] = []
    for n, kind in enumerate(KINDS):
        walked = chain_specs(items, 60, seed=20 + n)
        chosen = [c for c in assign_failures(walked, items, 1.0, seed=n, kinds=[kind]) if "failure" in c]
        chains += chosen[:PER_KIND]
    io.write_jsonl(d / "chains.jsonl", chains)
    got = Sample(chains, d / "raw", d / "rows", d / "metrics", d / "view")
    p = plandvc("run-chains", "--chains", d / "chains.jsonl", "--pool", POOL_DIR, "--sites", SITES_DIR,
                "--out", got.raw, "--cache", d / "cache", "--workers", "2", "--no-progress")  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    p = plandvc("filter-rows", "--raw", got.raw, "--out", got.rows, "--metrics", got.metrics)
    assert p.returncode == 0, p.stderr[-2000:]
    p = plandvc("view", "--dataset", got.rows, "--raw", got.raw, "--out", got.view)
    assert p.returncode == 0, p.stderr[-2000:]
    return got


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_recovery_chains_are_kept_and_their_rows_counted(sample: Sample) -> None:
    """At least 95 % of the sample's recovery chains kept per kind (run-chains, then filter-rows' checks),
    and the rows counted by role in filter.json and the manifest."""
    recovery = io.read_json(sample.metrics / "filter.json")["recovery"]
    assert set(recovery["by_kind"]) == set(KINDS)
    for kind, g in recovery["by_kind"].items():
        assert g["chains_raw"] == PER_KIND and g["kept_rate"] >= 0.95, (kind, g)
    assert recovery["rows_by_role"]["after_failure"] == recovery["chains_kept"]
    manifest = io.read_json(sample.rows / "manifest.json")
    assert manifest["recovery"] == recovery
    assert sorted(c["failure"] for c in manifest["chains"]) == sorted(
        c["failure"]["kind"] for c in sample.chains
    )


@pytest.mark.slow
def test_a_row_whose_role_is_not_its_turns_drops_the_chain(sample: Sample, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    shutil.copytree(sample.raw, raw)
    key = sample.chains[0]["key"]
    lines = (raw / key / "rows.jsonl").read_bytes().splitlines()
    row = orjson.loads(lines[1])
    del row["role"]
    lines[1] = orjson.dumps(row)
    (raw / key / "rows.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    p = plandvc("filter-rows", "--raw", raw, "--out", tmp_path / "rows", "--metrics", tmp_path / "metrics")
    assert p.returncode == 0, p.stderr[-2000:]
    dropped = io.read_json(tmp_path / "rows" / "manifest.json")["dropped"]
    assert [(d["key"], d["kind"]) for d in dropped] == [(key, "turn_mismatch")]
    role = io.read_json(raw / key / "episode.json")["turns"][1]["role"]
    assert dropped[0]["detail"] == f"row 1: role None but the turn's role is {role!r}"


@pytest.mark.slow
def test_the_exports_carry_each_examples_role_and_weight(sample: Sample, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    exp = tmp_path / "exports"
    p = plandvc("export", "--rows", sample.rows, "--out", exp, "--metrics", tmp_path / "metrics")
    assert p.returncode == 0, p.stderr[-2000:]
    table = pq.read_table(next((exp / "hf" / "data").glob("train-*.parquet")), columns=["role", "weight"])
    assert set(table.column("role").to_pylist()) == {"normal", "after_failure"}
    assert set(table.column("weight").to_pylist()) == {1.0}
    line = orjson.loads((exp / "openai" / "train.jsonl").read_bytes().splitlines()[0])
    assert line["messages"][-1]["role"] == "assistant" and line["messages"][-1]["weight"] == 1
    assert "## Recovery turns" in (exp / "hf" / "README.md").read_text()


def test_the_manifest_types_and_checks_the_recovery_fields() -> None:
    """A manifest's chain failure kind and recovery counts are read typed; a kind that is not a failure kind,
    in a chain or in the counts, is one line naming the entry."""
    chain = {"key": "plan-a", "site": "clinic", "split": "train", "failure": "lost_work"}
    counts = {"chains_raw": 1, "ok_raw": 1, "kept": 1, "kept_rate": 1.0}
    recovery = {
        "by_kind": {"lost_work": counts},
        "chains_kept": 1,
        "rows_by_role": {"normal": 3, "after_failure": 1},
    }
    good = {"chains": [chain], "counts": {}, "dropped": [], "recovery": recovery}
    m = parse_manifest(good, "manifest.json")
    assert m.chains[0].failure == "lost_work" and m.recovery == recovery
    plain = {k: v for k, v in chain.items() if k != "failure"}
    without = parse_manifest({"chains": [plain], "counts": {}, "dropped": []}, "manifest.json")
    assert without.chains[0].failure is None and without.recovery is None
    with pytest.raises(
        VersionError, match=r"^manifest.json: chains\[0\].failure: 'tripped' is not one of stopped_short"
    ):
        parse_manifest({**good, "chains": [{**chain, "failure": "tripped"}]}, "manifest.json")
    bad = {**recovery, "by_kind": {"tripped": counts}}
    with pytest.raises(
        VersionError, match=r"^manifest.json: recovery.by_kind: 'tripped' is not a failure kind"
    ):
        parse_manifest({**good, "recovery": bad}, "manifest.json")


def view_data(page: Path) -> Any:
    return orjson.loads(page.read_text().split('id="view-data">')[1].split("</script>")[0])


@pytest.mark.slow
@in_chromium
async def test_the_viewer_marks_the_failed_step_and_filters_recovery_chains(
    sample: Sample, file_page: tuple[Page, Watch]
) -> None:
    pg, watch = file_page
    chain = sample.chains[0]
    turns = io.read_json(sample.raw / chain["key"] / "episode.json")["turns"]
    failed = next(t for t, x in enumerate(turns) if "fails" in x)
    page = sample.view / "chains" / f"{chain['key']}.html"
    assert view_data(page)["recovery"] == {
        "kind": chain["failure"]["kind"],
        "failed": failed,
        "redo": failed + 1,
    }
    await open_ready(pg, page)
    tabs = await pg.locator("#strip .tab").all_inner_texts()
    assert tabs[failed].endswith("✗") and tabs[failed + 1].endswith("↻")
    assert sum(t.endswith(("✗", "↻")) for t in tabs) == 2
    assert chain["failure"]["kind"] in await pg.locator("#recovery").inner_text()
    listed = view_data(sample.view / "index.html")
    assert listed["facets"]["failure"] == sorted([*KINDS, "none"])
    assert listed["failures"] == {c["key"]: c["failure"]["kind"] for c in sample.chains}
    for kind in KINDS:
        await open_ready(pg, sample.view / "index.html", f"#failure={kind}")
        keys = await pg.locator("table.chains tbody tr").evaluate_all("rs => rs.map(r => r.dataset.key)")
        assert sorted(keys) == sorted(c["key"] for c in sample.chains if c["failure"]["kind"] == kind)
    watch.assert_clean()


def test_a_bad_failure_line_is_one_line_per_problem_before_any_chain(
    tmp_path: Path, items: list[ItemRecord]
) -> None:
    """run-chains checks a failure's shape and its sibling (kept, same macro, control and page, another
    instruction) before any browser starts, one line per problem, and writes nothing."""
    drop, _ = pick(items, "filter_by_dropdown", sibling=False)
    sort, _ = pick(items, "sort_by_form")
    lines: list[Any] = [
        chain_of(drop, "wrong_value", sort),  # another macro
        {**chain_of(sort, "stopped_short"), "key": "k2", "failure": {"part": 3, "kind": "stopped_short"}},
        {
            **chain_of(sort, "wrong_value"),
            "key": "k3",
            "failure": {"part": 0, "kind": "wrong_value", "sibling": "nope"},
        },
    ]
    io.write_jsonl(tmp_path / "chains.jsonl", lines)
    out = tmp_path / "raw"
    p = plandvc("run-chains", "--chains", tmp_path / "chains.jsonl", "--pool", POOL_DIR, "--sites", SITES_DIR,
                "--out", out, "--cache", tmp_path / "cache", "--no-progress")  # fmt: skip
    assert p.returncode != 0 and "Traceback" not in p.stderr and not out.exists()
    where = tmp_path / "chains.jsonl"
    assert (
        f"{where}:1: key {lines[0]['key']!r}: failure.sibling {sort['id']!r} is not the same macro on the same "
        "control and page" in p.stderr
    )
    assert f"{where}:2: key 'k2': failure.part 3 is not a part index (0..0)" in p.stderr
    assert f"{where}:3: key 'k3': failure.sibling 'nope' is not a kept trajectory" in p.stderr


@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
async def test_a_chain_without_a_failure_has_no_recovery_keys(
    chromium: Browser, base: str, items: list[ItemRecord]
) -> None:
    r, _ = pick(items, "sort_by_form")
    chain: Any = {k: v for k, v in chain_of(r, "stopped_short").items() if k != "failure"}
    out = await run(chromium, base, chain)
    assert out.result["ok"] and "failure" not in out.result and "failed_gate" not in out.result
    assert out.episode is not None and "failure" not in out.episode
    assert [sorted(t) for t in out.episode["turns"]] == [
        ["family", "instruction", "kind", "macro"],
        ["answer", "kind"],
    ]
    assert all("role" not in row for row in out.rows)


# ── the planner evaluation on held-out recovery chains ────────────────────────


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_held_out_recovery_turns_are_scored_apart_and_the_oracle_recovers(tmp_path: Path) -> None:
    """eval-specs with every held-out chain a recovery chain: the teacher-forced scores report the
    `after_failure` turns apart (the oracle gets all, always-done none), and in the closed loop the
    specialist fails on cue, so the oracle succeeds only because it re-delegates."""
    from plandvc.eval.closed import LoopConfig
    from plandvc.eval.run import EvalConfig, evaluate
    from plandvc.eval.specs import SpecsConfig, eval_specs, load_held_out

    cfg = SpecsConfig(POOL_DIR, SITES_DIR, tmp_path / "eval", n=6, seed=1, recovery_share=1.0, workers=2,
                      cache=tmp_path / "cache")  # fmt: skip
    summary = eval_specs(cfg)
    held = load_held_out(tmp_path / "eval")
    assert summary["held_out"] == len(held) >= 5 and sum(summary["recovery"].values()) == len(held)
    redo = sum(t.role == "after_failure" for c in held for t in c.turns)
    assert redo == len(held) and all("failure" in c.line for c in held)

    def run(reference: str, mode: str) -> dict[str, Any]:
        out = tmp_path / f"{reference}-{mode}"
        ev = EvalConfig(tmp_path / "eval", out / "run", out / "eval.json", LoopConfig(POOL_DIR, SITES_DIR),
                        mode=mode, reference=reference)  # fmt: skip
        return evaluate(ev)

    oracle = run("oracle", "both")
    tf = oracle["teacher_forced"]
    assert tf["by_role"]["after_failure"] == {"turns": redo, "correct": redo, "accuracy": 1.0}
    assert tf["step_accuracy"] == 1.0
    assert oracle["closed_loop"]["success_rate"] == 1.0
    done = run("always-done", "teacher-forced")["teacher_forced"]
    assert done["by_role"]["after_failure"]["correct"] == 0


@pytest.mark.slow
def test_the_docs_examples_are_read_from_the_runs_output(sample: Sample, tmp_path: Path) -> None:
    """plandvc.view.shoot's example of a chain is its run's own text: the request, the failed attempt's
    report as the recovery turn's prompt shows it, the failed gate and the recovery target; the doc part is
    replaced between its markers only, and a doc without them is refused in one line."""
    from plandvc.view.shoot import BEGIN, END, example_of, examples_md, write_doc

    kept = {c["key"] for c in io.read_json(sample.rows / "manifest.json")["chains"]}
    for chain in sample.chains:
        e = example_of(chain, sample.raw, kept)
        episode = io.read_json(sample.raw / chain["key"] / "episode.json")
        redo = next(t for t, x in enumerate(episode["turns"]) if x.get("role") == "after_failure")
        row = io.read_jsonl(sample.raw / chain["key"] / "rows.jsonl")[redo]
        assert (e.kind, e.request) == (chain["failure"]["kind"], episode["instruction"])
        assert (
            e.target
            == episode["turns"][redo]["instruction"]
            == orjson.loads(row["target"])["action"][0]["delegate"]["instruction"]
        )
        assert e.report.startswith(f"The {e.family} specialist") and e.report in text_of(row)
        assert e.failed_gate and " ok" not in e.failed_gate
        assert e.cut == episode["failure"].get("cut") and (e.cut is None) == (e.kind != "stopped_short")
    doc = tmp_path / "doc.md"
    doc.write_text(f"before\n{BEGIN}\nold\n{END}\nafter\n")
    examples = [example_of(c, sample.raw, kept) for c in sample.chains[::PER_KIND]]
    write_doc(doc, examples_md(examples, "recovery/wrong_value.jpg", 0))
    text = doc.read_text()
    assert text.startswith(f"before\n{BEGIN}\n") and text.endswith(f"{END}\nafter\n") and "old" not in text
    assert all(e.target in text for e in examples)
    doc.write_text("no markers\n")
    with pytest.raises(
        io.InputError, match=r"doc.md: no <!-- recovery:begin --> \.\.\. <!-- recovery:end -->"
    ):
        write_doc(doc, "x")
