"""Examples of recovery chains for the docs, from real output: one chain of each failure kind run through
run-chains, filter-rows and the viewer, its request, failed report, failed gate and recovery target written
into a markdown file, and the viewer's page of one of them at its recovery turn shot in headless Chromium.

    python -m plandvc.view.shoot --pool data/pool --sites data/sites --out docs/recovery --doc docs/STAGES.md

The chains are the first recovery chain of each kind that chain-specs' walk and `assign_failures` make with
`--seed` (share 1, one kind at a time), so the same pool, sites and seed give the same examples. The
pipeline runs in a temporary folder (nothing of it is kept but the picture and the text). With `--doc`, the
part of that file between `<!-- recovery:begin -->` and `<!-- recovery:end -->` is replaced.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from plandvc.browser.chromium import VIEWPORT, chromium_path
from plandvc.chains.items import pool_items
from plandvc.chains.recovery import KINDS, assign_failures
from plandvc.chains.walk import chain_specs
from plandvc.errors import script_main
from plandvc.io import InputError, read_json, read_jsonl, write_bytes, write_jsonl
from plandvc.records import ChainSpec, FailureKind

BEGIN, END = "<!-- recovery:begin -->", "<!-- recovery:end -->"
SHOWN: FailureKind = "wrong_value"  # the kind whose viewer page is pictured
_REPORT = re.compile(r"Report: (.*?)\n</step_\d+>", re.S)


@dataclass(frozen=True)
class Example:
    """One recovery chain as the docs show it, every text taken from the run's own output."""

    kind: FailureKind
    key: str
    macro: str
    part: int
    parts: int
    cut: int | None
    request: str
    report: str
    failed_gate: str
    family: str
    target: str
    kept: bool


def pick_chains(pool: Path, sites: Path, seed: int) -> list[ChainSpec]:
    """The first recovery chain of each kind, walked and assigned with `seed` (share 1, one kind at a time)."""
    items, _ = pool_items(pool, sites)
    out: list[ChainSpec] = []
    for n, kind in enumerate(KINDS):
        walked = chain_specs(items, 60, seed=seed + n)
        failing = [c for c in assign_failures(walked, items, 1.0, seed=seed, kinds=[kind]) if "failure" in c]
        if not failing:
            raise InputError(f"{pool}: no chain of seed {seed + n} can fail as {kind}")
        out.append(failing[0])
    return out


def _plandvc(*args: str | Path) -> None:
    p = subprocess.run([sys.executable, "-m", "plandvc", *map(str, args)], capture_output=True, text=True)
    if p.returncode != 0:
        raise InputError(f"plandvc {args[0]} failed: {p.stderr.strip()[-500:]}")


def run_pipeline(chains: list[ChainSpec], pool: Path, sites: Path, work: Path) -> None:
    """run-chains, filter-rows and view on `chains` in `work` (raw/, rows/, view/)."""
    write_jsonl(work / "chains.jsonl", chains)
    _plandvc("run-chains", "--chains", work / "chains.jsonl", "--pool", pool, "--sites", sites,
             "--out", work / "raw", "--cache", work / "cache", "--workers", "1", "--no-progress")  # fmt: skip
    _plandvc("filter-rows", "--raw", work / "raw", "--out", work / "rows", "--metrics", work / "metrics")
    _plandvc("view", "--dataset", work / "rows", "--raw", work / "raw", "--out", work / "view")


def _user_text(row: dict[str, object]) -> str:
    out = []
    for m in row["messages"]:  # type: ignore[attr-defined]
        c = m["content"]
        out += [c] if isinstance(c, str) else [p.get("text", "") for p in c]
    return "\n".join(out)


def example_of(chain: ChainSpec, raw: Path, kept: set[str]) -> Example:
    """The chain's example from its episode, rows and result in `raw`."""
    key = chain["key"]
    episode = read_json(raw / key / "episode.json")
    rows = read_jsonl(raw / key / "rows.jsonl")
    result = next(r for r in read_jsonl(raw / "results.jsonl") if r["key"] == key)
    redo = next(t for t, x in enumerate(episode["turns"]) if x.get("role") == "after_failure")
    reports = _REPORT.findall(_user_text(rows[redo]))
    if not reports:
        raise InputError(f"{raw / key / 'rows.jsonl'}: row {redo} shows no report of the failed attempt")
    delegate = orjson.loads(rows[redo]["target"])["action"][0]["delegate"]
    failure = episode["failure"]
    return Example(
        kind=failure["kind"],
        key=key,
        macro=episode["macros"][failure["part"]],
        part=failure["part"],
        parts=len(episode["parts"]),
        cut=failure.get("cut"),
        request=episode["instruction"],
        report=reports[-1],
        failed_gate=str(result.get("failed_gate") or ""),
        family=delegate["family"],
        target=delegate["instruction"],
        kept=key in kept,
    )


async def _shoot(url: str, out: Path) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path(), headless=True)
        try:
            ctx = await browser.new_context(viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]})
            pg = await ctx.new_page()
            await pg.goto(url)
            await pg.wait_for_selector("body[data-ready]", state="attached")
            write_bytes(out, await pg.screenshot(type="jpeg", quality=80, full_page=True))
            await ctx.close()
        finally:
            await browser.close()


def _quote(text: str) -> str:
    return '"' + " / ".join(line.strip() for line in text.strip().splitlines()) + '"'


def examples_md(examples: list[Example], picture: str, seed: int) -> str:
    """The generated part of the doc: each kind's request, failed report, failed gate and recovery target."""
    lines = [
        BEGIN,
        f"Examples, generated by `python -m plandvc.view.shoot` from a real run of the sample pool (seed {seed}; "
        "each text as the run wrote it):",
        "",
    ]
    for e in examples:
        where = f"part {e.part + 1} of {e.parts}, `{e.macro}`" + (
            f", stopped after {e.cut} step{'s' * (e.cut != 1)}" if e.cut is not None else ""
        )
        lines += [
            f"- **`{e.kind}`** (`{e.key}`, {where}; {'kept' if e.kept else 'not kept'})",
            f"  - request: {_quote(e.request)}",
            f"  - the failed attempt's report: {_quote(e.report)}",
            f"  - its own gate, right after it: `{e.failed_gate}`",
            f"  - the recovery turn's target: delegate {e.family} {_quote(e.target)}",
        ]
    shown = next(e for e in examples if e.kind == SHOWN)
    lines += [
        "",
        f"The viewer's page of the `{shown.kind}` chain at its recovery turn (the failed step is marked ✗, the "
        "re-delegation ↻):",
        "",
        f"![the viewer's page of a recovery chain]({picture})",
        END,
    ]
    return "\n".join(lines)


def write_doc(doc: Path, body: str, begin: str = BEGIN, end: str = END) -> None:
    """`doc` with its part between `begin` and `end` (markers included) replaced by `body`."""
    text = doc.read_text(encoding="utf-8")
    if begin not in text or end not in text:
        raise InputError(f"{doc}: no {begin} ... {end} part to fill")
    head, rest = text.split(begin, 1)
    write_bytes(doc, (head + body + rest.split(end, 1)[1]).encode("utf-8"))


@contextlib.contextmanager
def ran(chains: list[ChainSpec], pool: Path, sites: Path, prefix: str) -> Iterator[tuple[Path, set[str]]]:
    """The chains run through the pipeline in a temporary folder: (that folder, the keys of the kept chains)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        work = Path(tmp)
        run_pipeline(chains, pool, sites, work)
        yield work, {c["key"] for c in read_json(work / "rows" / "manifest.json")["chains"]}


def shoot_step(work: Path, key: str, step: int, picture: Path) -> None:
    """The viewer's page of chain `key` at its step `step` (1-based), as a JPEG at `picture`."""
    page = work / "view" / "chains" / f"{key}.html"
    picture.parent.mkdir(parents=True, exist_ok=True)
    asyncio.run(_shoot(page.resolve().as_uri() + f"#step-{step}", picture))


def relative(picture: Path, doc: Path) -> str:
    """`picture`'s path as `doc` links it."""
    return picture.resolve().relative_to(doc.resolve().parent).as_posix()


def examples_parser(
    prog: str, what: str, out: str, seed: int, pool: str, sites: str
) -> argparse.ArgumentParser:
    """The options of a docs-examples script: the pool and its sites, the picture's folder, the seed, the doc."""
    ap = argparse.ArgumentParser(
        prog=f"python -m {prog}", description=f"Run and picture {what} for the docs."
    )
    ap.add_argument("--pool", type=Path, default=Path(pool), help="the executor pool")
    ap.add_argument("--sites", type=Path, default=Path(sites), help="the sites the pool was recorded on")
    ap.add_argument("--out", type=Path, default=Path(out), help="where the picture goes")
    ap.add_argument("--seed", type=int, default=seed, help="the chains' seed")
    ap.add_argument("--doc", type=Path, default=None, help=f"a markdown file whose {what} part to fill")
    return ap


def shoot(pool: Path, sites: Path, out: Path, seed: int, doc: Path | None) -> list[Example]:
    """Run one recovery chain of each kind, shoot the viewer's page of the `SHOWN` one into `out`, and fill
    `doc`'s generated part; returns the examples."""
    chains = pick_chains(pool, sites, seed)
    picture = out / f"{SHOWN}.jpg"
    with ran(chains, pool, sites, "plandvc-recovery-shoot-") as (work, kept):
        examples = [example_of(c, work / "raw", kept) for c in chains]
        shown = next(e for e in examples if e.kind == SHOWN)
        episode = read_json(work / "raw" / shown.key / "episode.json")
        redo = next(t for t, x in enumerate(episode["turns"]) if x.get("role") == "after_failure")
        shoot_step(work, shown.key, redo + 1, picture)  # 1-based
    if doc is not None:
        write_doc(doc, examples_md(examples, relative(picture, doc), seed))
    return examples


def main(argv: list[str] | None = None) -> int:
    ap = examples_parser("plandvc.view.shoot", "recovery", "docs/recovery", 5, "data/pool", "data/sites")
    args = ap.parse_args(argv)

    def body() -> int:
        examples = shoot(args.pool, args.sites, args.out, args.seed, args.doc)
        print(f"ran {len(examples)} recovery chains: {', '.join(f'{e.kind} {e.key}' for e in examples)}")
        return 0

    return script_main("plandvc.view.shoot", body)


if __name__ == "__main__":
    sys.exit(main())
