"""What the viewer's pages show, computed once in Python: the index entries, one `ChainView` per chain, the
system prompts, and the stats. Pure functions of the chain sources; the pages embed them as JSON.

A chain page shows the planner rows step by step. The rows carry everything: the system prompt (shown once
per version with its hash), the user message's `<user_request>`, `<agent_history>`, `<browser_state>` and
`<step_info>` sections and screenshot, and the target. A delegation's report is what the next turn's
`<agent_history>` says about it (`<step_{t+1}>`), so the last delegation of a failed chain has none.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import quote

from plandvc.io import JSONObject
from plandvc.macros import FAMILY_OF
from plandvc.rows.manifest import SplitInfo
from plandvc.rows.version import DatasetVersion
from plandvc.view.read import FAILED, STATUSES, ChainHead, ChainSource
from plandvc.view.text import rel_url, report_of, sections, sha256, split_target, word_diff

HOME_MACRO = "navigate_home"


@dataclass(frozen=True)
class IndexEntry:
    """One line of the index (kept short: the index of 10,000 chains embeds 10,000 of them), flat: its fields
    are the keys of the index's JSON, in this order (`index_entry` makes it from the chain's `ChainHead`)."""

    key: str
    site: str
    parts: int
    macros: list[str]
    families: list[str]
    via: list[str]
    turns: int | None
    answer: str | None
    split: str | None
    status: str
    reason: str | None
    reason_kind: str | None
    failed_part: str | None
    request: str
    href: str


@dataclass(frozen=True)
class PartView:
    id: str
    via: str
    macro: str | None
    family: str | None
    instruction: str | None
    failed: bool


@dataclass(frozen=True)
class StepView:
    """One planner turn: its screenshot, what the planner saw and answered, and the report that came back."""

    t: int
    op: str
    macro: str | None
    delegated: str | None
    part: int | None  # the chain part this turn plays (None: a trip home or the final done)
    image: str | None  # the screenshot, relative to the chain page (None: not in the folder)
    target: list[str]  # the target text cut as [before, action, after], so the action can be highlighted
    action: str  # the action in one line
    memory: str
    memory_diff: list[list[str]]  # [op, text] with op "=" kept, "+" added, "-" removed since the last step
    sections: dict[str, str]
    prompt: str | None  # the system prompt's sha256
    chars: int  # the prompt's length in characters (system prompt and user text, images not counted)
    report: str | None


@dataclass(frozen=True)
class ChainView:
    """A chain's page: its head (the source's), request, parts and steps, and the chains before and after it."""

    head: ChainHead
    request: str
    request_by: str | None
    answer: str | None
    start_url: str | None
    version: str | None
    parts: list[PartView]
    steps: list[StepView]
    prompts: list[str]
    problem: str | None
    prev: str | None
    next: str | None
    # a recovery chain's failed step and its redo (not in a page's JSON unless set)
    recovery: Recovery | None = None
    # how the screenshots were taken when they carry the dialect's set-of-marks (episode `marks`); None: plain,
    # and the page is as before
    marks: str | None = None


@dataclass(frozen=True)
class Recovery:
    """A recovery chain's failure: its kind, the failed attempt's turn and the re-delegation's turn."""

    kind: str
    failed: int
    redo: int


def recovery_of(episode: JSONObject) -> Recovery | None:
    """The failure of a recovery chain's episode (the turn that `fails` and the next), or None."""
    turns = episode.get("turns")
    failure = episode.get("failure")
    at = [
        t
        for t, x in enumerate(turns if isinstance(turns, list) else [])
        if isinstance(x, dict) and "fails" in x
    ]
    if not isinstance(failure, dict) or len(at) != 1:
        return None
    return Recovery(str(failure.get("kind")), at[0], at[0] + 1)


@dataclass(frozen=True)
class Prompt:
    """A distinct system prompt: its hash, text, the planner versions that used it and its row count."""

    sha256: str
    text: str
    versions: list[str]
    rows: int


@dataclass(frozen=True)
class Bar:
    label: str
    counts: dict[str, int]  # by status (or a single "n")
    total: int


@dataclass(frozen=True)
class Histogram:
    lo: list[int]  # bin lower bounds (chars)
    width: int
    counts: list[int]
    n: int
    min: int
    median: int
    max: int


@dataclass(frozen=True)
class Stats:
    version: str
    chains: int
    by_status: dict[str, int]
    kept_rate: float
    rows: int
    images: int
    by_site: list[Bar]
    by_macro: list[Bar]
    by_family: list[Bar]
    by_parts: list[Bar]
    by_via: list[Bar]
    reasons: list[Bar]
    prompt_chars: Histogram | None
    split: SplitInfo
    split_counts: dict[str, int]
    raw_given: bool


@dataclass
class Site:
    """Everything the writer needs, built from the sources."""

    version: DatasetVersion
    index: list[IndexEntry]
    chains: list[ChainView]
    prompts: list[Prompt]
    stats: Stats
    raw_given: bool = False
    facets: dict[str, list[str]] = field(default_factory=dict)


def macro_of_part(part_id: str, site: str) -> str | None:
    """A part id's macro (`<site>-<macro>-<n>`), for chains whose episode was not written."""
    middle = part_id.removeprefix(f"{site}-").rsplit("-", 1)[0]
    return middle if middle in FAMILY_OF else None


def part_of_turns(via: list[str | None], n_turns: int, redo: int | None = None) -> list[int | None]:
    """The part each turn plays: a trip home comes before each part reached `via: home`; the done is None.
    `redo`: a recovery chain's re-delegation turn, which plays the part its failed attempt (the turn before) did."""
    out: list[int | None] = []
    for i, v in enumerate(via):
        if v == "home":
            out.append(None)
        out.append(i)
        if redo is not None and len(out) == redo:
            out.append(i)
    out = out[:n_turns]
    return out + [None] * (n_turns - len(out))


def _part_views(src: ChainSource, ep: JSONObject, plays: list[int | None]) -> list[PartView]:
    """The chain's parts: macro (from the episode, else the part id), family, the instruction of its turn."""
    found_turns, found_macros = ep.get("turns"), ep.get("macros")
    turns = found_turns if isinstance(found_turns, list) else []
    macros = found_macros if isinstance(found_macros, list) else None
    instructions: dict[int, str] = {}
    for turn, plays_part in zip(turns, plays, strict=False):
        # a redo's corrective text is not the part's: the first turn that plays a part names it
        if plays_part is not None and isinstance(turn, dict) and plays_part not in instructions:
            instructions[plays_part] = str(turn.get("instruction"))
    parts = []
    for i, pid in enumerate(src.parts):
        macro = str(macros[i]) if macros and i < len(macros) else macro_of_part(pid, src.head.site)
        parts.append(
            PartView(
                id=pid,
                via=str(src.via[i]) if i < len(src.via) and src.via[i] else "start",
                macro=macro,
                family=FAMILY_OF.get(macro or ""),
                instruction=instructions.get(i),
                failed=src.failed_part == i,
            )
        )
    return parts


def _prompt(system: str | None, version: str | None, prompts: dict[str, Prompt]) -> str | None:
    """The system prompt's sha256, counted in `prompts` (with the planner version that used it)."""
    if system is None:
        return None
    digest = sha256(system)
    p = prompts.setdefault(digest, Prompt(digest, system, [], 0))
    versions = sorted({*p.versions, version} - {None}) if version else p.versions
    prompts[digest] = Prompt(digest, system, versions, p.rows + 1)
    return digest


def _steps(
    src: ChainSource, out: Path, plays: list[int | None], version: str | None, prompts: dict[str, Prompt]
) -> tuple[list[StepView], list[str]]:
    """The chain's steps, and the distinct system prompts they used in order of first use."""
    rows = src.rows or []
    steps, memory_before, used = [], "", []
    for t, row in enumerate(rows):
        secs, image, system, chars = sections(row)
        digest = _prompt(system, version, prompts)
        if digest is not None and digest not in used:
            used.append(digest)
        cut, line, memory, _ = split_target(str(row.get("target") or ""))
        report = None
        if row.get("op") == "delegate" and t + 1 < len(rows):
            report = report_of(sections(rows[t + 1])[0]["agent_history"], t + 1)
        img = None
        if image and src.dir is not None and "/" not in image and (src.dir / image).is_file():
            img = rel_url(src.dir / image, out / "chains")
        steps.append(
            StepView(
                t=t,
                op=str(row.get("op")),
                macro=row.get("macro"),
                delegated=row.get("delegated"),
                part=plays[t] if t < len(plays) else None,
                image=img,
                target=cut,
                action=line,
                memory=memory,
                memory_diff=word_diff(memory_before, memory),
                sections=secs,
                prompt=digest,
                chars=chars,
                report=report,
            )
        )
        memory_before = memory
    return steps, used


def chain_view(src: ChainSource, out: Path, prompts: dict[str, Prompt]) -> ChainView:
    """The chain page's data (see the module doc); `prompts` collects the distinct system prompts."""
    ep = src.episode or {}
    turns = ep.get("turns")
    recovery = recovery_of(ep)
    n_turns = len(turns) if isinstance(turns, list) else 0
    plays = part_of_turns(src.via, max(n_turns, len(src.rows or [])), recovery.redo if recovery else None)
    version = str(ep.get("version")) if ep.get("version") else None
    steps, used = _steps(src, out, plays, version, prompts)
    request = str(ep.get("instruction") or "")
    if not request and steps:
        request = steps[0].sections["user_request"]
    return ChainView(
        head=src.head,
        request=request,
        request_by=str(ep["instruction_by"]) if ep.get("instruction_by") else None,
        answer=None if ep.get("answer") is None else str(ep.get("answer")),
        start_url=str(ep["start_url"]) if ep.get("start_url") else None,
        version=version,
        parts=_part_views(src, ep, plays),
        steps=steps,
        prompts=used,
        problem=src.problem,
        prev=None,
        next=None,
        recovery=recovery,
        marks=f"{ep.get('dialect')}'s set-of-marks drawn, as its agent sends it" if ep.get("marks") else None,
    )


def index_entry(view: ChainView, src: ChainSource) -> IndexEntry:
    families = sorted(
        {f for p in view.parts if (f := p.family)} | {s.delegated for s in view.steps if s.delegated}
    )
    failed = src.parts[src.failed_part] if src.failed_part is not None else None
    head = view.head
    return IndexEntry(
        key=head.key,
        site=head.site,
        parts=len(view.parts),
        macros=[p.macro or "?" for p in view.parts],
        families=families,
        via=[p.via for p in view.parts],
        turns=len(view.steps) or None,
        answer=view.answer,
        split=head.split,
        status=head.status,
        reason=head.reason,
        reason_kind=src.reason_kind,
        failed_part=failed,
        request=view.request,
        href=f"chains/{quote(head.key)}.html",
    )


def _bars(counts: dict[str, Counter[str]], order: list[str] | None = None) -> list[Bar]:
    labels = order if order is not None else sorted(counts)
    return [
        Bar(k, {s: counts[k][s] for s in STATUSES}, sum(counts[k].values())) for k in labels if k in counts
    ]


def histogram(values: list[int], bins: int = 16) -> Histogram | None:
    """Counts of `values` in `bins` equal bins of a round width (a multiple of 100 characters)."""
    if not values:
        return None
    lo, hi = min(values), max(values)
    width = max(100, -(-(hi - lo + 1) // bins // 100) * 100)
    start = lo // width * width
    n = (hi - start) // width + 1
    counts = [0] * n
    for v in values:
        counts[(v - start) // width] += 1
    ordered = sorted(values)
    return Histogram(
        [start + i * width for i in range(n)], width, counts, len(values), lo, ordered[len(values) // 2], hi
    )


def stats(version: DatasetVersion, views: list[ChainView], index: list[IndexEntry], raw_given: bool) -> Stats:
    """Counts by site, macro, family, parts and via (by status), failure reasons, prompt lengths, the split."""
    by: dict[str, dict[str, Counter[str]]] = {
        k: {} for k in ("site", "macro", "family", "parts", "via", "reason")
    }

    def count(dim: str, label: str, status: str) -> None:
        by[dim].setdefault(label, Counter())[status] += 1

    chars: list[int] = []
    for e, v in zip(index, views, strict=True):
        count("site", e.site or "?", e.status)
        count("parts", str(e.parts), e.status)
        for m in sorted(set(e.macros)):
            count("macro", m, e.status)
        for f in e.families:
            count("family", f, e.status)
        for w in e.via:
            count("via", w, e.status)
        if e.reason_kind:
            count("reason", f"{e.status}: {e.reason_kind}", e.status)
        if e.status == "kept":
            for s in v.steps:
                chars.append(s.chars)
    statuses = Counter(e.status for e in index)
    counts = version.manifest.counts
    return Stats(
        version=version.name,
        chains=len(index),
        by_status={s: statuses[s] for s in STATUSES},
        kept_rate=round(statuses["kept"] / len(index), 4) if index else 0.0,
        rows=int(counts.get("rows") or sum(len(v.steps) for v in views if v.head.status == "kept")),
        images=int(counts.get("images") or 0),
        by_site=_bars(by["site"]),
        by_macro=_bars(by["macro"]),
        by_family=_bars(by["family"]),
        by_parts=_bars(by["parts"], sorted(by["parts"], key=int)),
        by_via=_bars(
            by["via"],
            [w for w in ("start", "page", "home") if w in by["via"]]
            + sorted(set(by["via"]) - {"start", "page", "home"}),
        ),
        reasons=sorted(_bars(by["reason"]), key=lambda b: (-b.total, b.label)),
        prompt_chars=histogram(chars),
        split=version.manifest.split,
        split_counts=dict(sorted(Counter(e.split or "none" for e in index if e.status == "kept").items())),
        raw_given=raw_given,
    )


def build(version: DatasetVersion, sources: list[ChainSource], out: Path, raw_given: bool) -> Site:
    """Every page's data, in key order (see the module doc)."""
    prompts: dict[str, Prompt] = {}
    views = [chain_view(s, out, prompts) for s in sources]
    linked = []
    for i, v in enumerate(views):
        prev = views[i - 1].head.key if i > 0 else None
        nxt = views[i + 1].head.key if i + 1 < len(views) else None
        linked.append(replace(v, prev=prev, next=nxt))
    index = [index_entry(v, s) for v, s in zip(linked, sources, strict=True)]
    facets = {
        "site": sorted({e.site for e in index}),
        "macro": sorted({m for e in index for m in e.macros}),
        "family": sorted({f for e in index for f in e.families}),
        "parts": [str(n) for n in sorted({e.parts for e in index})],
        "status": [s for s in STATUSES if any(e.status == s for e in index)],
        "split": sorted({e.split or "none" for e in index}),
    }
    kinds = {v.recovery.kind for v in linked if v.recovery is not None}
    if kinds:  # only a version with recovery chains has the filter
        facets["failure"] = sorted({*kinds, "none"})
    return Site(
        version=version,
        index=index,
        chains=linked,
        prompts=sorted(prompts.values(), key=lambda p: p.sha256),
        stats=stats(version, linked, index, raw_given),
        raw_given=raw_given,
        facets=facets,
    )


__all__ = ["FAILED", "Bar", "ChainView", "IndexEntry", "Site", "Stats", "build"]
