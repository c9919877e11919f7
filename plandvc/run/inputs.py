"""run-chains' inputs, checked whole before any browser starts: the chain list, the parts it names, the sites.

Every line of the chains file must be `{key, site, parts: [{id, via}, ...]}` where
- `key` is a safe folder name (letters, digits, `.`, `_`, `-`; not starting with `.` or `_`, at most 200
  characters): it becomes `OUT/<key>/`, so a key can never lead outside OUT; keys are unique;
- `site` is a site of `--sites`;
- `parts` is a non-empty list; the first part's `via` is null and every later one is `"page"` or
  `"home"` (the chain walk's vocabulary); every `id` is a kept trajectory of the pool whose files load,
  and whose task and trajectory are of the chain's `site`;
- a recovery chain's `failure` is `{part, kind, sibling?}` (`plandvc.run.recovery`): a part index, a failure
  kind, and for `wrong_value` a kept trajectory of the part's macro on its control and start page.
Every problem found is reported, one line each (`file:line: key 'k': ...`), and nothing is written.
An empty chain list is an error unless the caller allows it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from plandvc import io
from plandvc.pool.store import Pool
from plandvc.records import ChainFailure, ChainSpec, Part
from plandvc.run.chain import SiteInfo
from plandvc.run.recovery import cut_problems, failure_problems, sibling_problems

VIAS_AFTER_FIRST = ("page", "home")


def _cut_problems(label: str, spec: ChainSpec, parts: list[Part]) -> list[str]:
    """What is wrong with the `stopped_short` cut a chain line names (none when it names none)."""
    failure = spec.get("failure")
    cut = failure.get("cut") if failure else None
    if failure is None or not isinstance(cut, int):
        return []
    return cut_problems(label, parts[failure["part"]], cut)


KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")


@dataclass
class ChainJob:
    """One validated chain and what it runs on: its parts ({id, task, traj, elements}) and their files."""

    chain: ChainSpec  # the checked line as read (the Ray engine's dispatch reads it so)
    parts: list[Part]
    files: list[Path]
    site: SiteInfo
    sibling: Part | None = None  # a wrong_value failure's sibling trajectory (its files are in `files`)

    @property
    def key(self) -> str:
        return self.chain["key"]

    @property
    def spec(self) -> ChainSpec:
        """The chain line, checked by `chain_problems` when the job was made."""
        return self.chain


def safe_key(key: object) -> bool:
    """Whether `key` can name a chain's folder inside OUT (never `..`, a path, or a hidden/reserved name)."""
    return isinstance(key, str) and bool(KEY_RE.match(key)) and key not in (".", "..")


def chain_problems(where: str, chain: object) -> list[str]:
    """The shape problems of one chain line (key, site, parts, via); [] when it is well formed."""
    if not isinstance(chain, dict):
        return [f"{where}: expected an object {{key, site, parts}}"]
    missing = [k for k in ("key", "site", "parts") if k not in chain]
    if missing:
        return [f"{where}: chain without {', '.join(map(repr, missing))}"]
    key = chain["key"]
    out = []
    if not safe_key(key):
        out.append(
            f"{where}: key {key!r} is not a safe folder name (letters, digits, '.', '_', '-'; "
            "not starting with '.' or '_')"
        )
    label = f"{where}: key {key!r}"
    if not isinstance(chain["site"], str):
        out.append(f"{label}: site {chain['site']!r} is not a string")
    parts = chain["parts"]
    if not isinstance(parts, list) or not parts:
        return [*out, f"{label}: parts {parts!r} is not a non-empty list"]
    for i, p in enumerate(parts):
        if not isinstance(p, dict) or not isinstance(p.get("id"), str) or "via" not in p:
            out.append(f"{label}: parts[{i}] {p!r} is not {{id, via}}")
            continue
        want = (None,) if i == 0 else VIAS_AFTER_FIRST
        if p["via"] not in want:
            expected = "null" if i == 0 else "'page' or 'home'"
            out.append(f"{label}: parts[{i}].via {p['via']!r} is not {expected}")
    if "failure" in chain:
        out += failure_problems(label, chain["failure"], len(parts))
    return out


def _load_one(store: Pool, loaded: dict[str, Part | str], pid: str) -> tuple[Part | None, str]:
    """A kept part (loaded once into `loaded`), or (None, why it cannot be loaded, to follow its id)."""
    if pid not in store:
        return None, f" is not a kept trajectory of {store.index}"
    if pid not in loaded:
        try:
            loaded[pid] = store.part(pid)
        except io.InputError as e:
            loaded[pid] = str(e)
    got = loaded[pid]
    return (None, f": {got}") if isinstance(got, str) else (got, "")


def _load_parts(
    store: Pool, loaded: dict[str, Part | str], label: str, chain: ChainSpec
) -> tuple[list[Part], list[Path], list[str]]:
    """A chain's parts and their files, or the problems that keep them from loading (a missing part, a part of
    another site)."""
    site = chain["site"]
    parts: list[Part] = []
    files: list[Path] = []
    problems: list[str] = []
    for i, p in enumerate(chain["parts"]):
        pid = p["id"]
        part, why = _load_one(store, loaded, pid)
        if part is None:
            problems.append(f"{label}: parts[{i}].id {pid!r}{why}")
            continue
        psites = {part["task"]["site"], part["traj"]["site"]}
        if psites != {site}:
            problems.append(
                f"{label}: parts[{i}].id {pid!r} is of site {sorted(psites - {site})[0]!r}, not the chain's {site!r}"
            )
            continue
        parts.append(part)
        files += store.part_files(pid)
    return parts, files, problems


def _load_sibling(
    store: Pool, loaded: dict[str, Part | str], label: str, failure: ChainFailure, parts: list[Part]
) -> tuple[Part | None, list[str]]:
    """A wrong_value failure's sibling trajectory (None when the failure has none), or the problems with it."""
    sib = failure.get("sibling")
    if sib is None:
        return None, []
    sibling, problem = _load_one(store, loaded, sib)
    if sibling is None:
        return None, [f"{label}: failure.sibling {sib!r}{problem}"]
    return sibling, sibling_problems(label, parts[failure["part"]], sibling)


def load_jobs(
    chains_path: Path, chains: list[object], pool: Path, sites: dict[str, SiteInfo], allow_empty: bool = False
) -> list[ChainJob]:
    """Check every chain (numbered as lines of `chains_path`) against the pool and sites; the jobs, or one
    InputError naming every problem."""
    if not chains and not allow_empty:
        raise io.InputError(f"{chains_path}: no chains (pass --allow-empty to publish an empty output)")
    problems: list[str] = []
    store = Pool.open(pool)
    loaded: dict[str, Part | str] = {}  # part id -> part, or the problem loading it
    seen: dict[str, int] = {}
    jobs = []
    for n, chain in enumerate(chains, 1):
        where = f"{chains_path}:{n}"
        if shape := chain_problems(where, chain):
            problems += shape
            continue
        spec = cast(ChainSpec, chain)
        key, site = spec["key"], spec["site"]
        label = f"{where}: key {key!r}"
        if key in seen:
            problems.append(f"{label}: duplicate key (first on line {seen[key]})")
            continue
        seen[key] = n
        if site not in sites:
            problems.append(f"{label}: site {site!r} is not a site of the sites folder")
            continue
        parts, files, bad = _load_parts(store, loaded, label, spec)
        problems += bad
        if bad:
            continue
        sibling, near = (
            _load_sibling(store, loaded, label, spec["failure"], parts) if "failure" in spec else (None, [])
        )
        problems += near
        if near:
            continue
        if sibling is not None:
            files += store.part_files(sibling["id"])
        near = _cut_problems(label, spec, parts)
        problems += near
        if near:
            continue
        jobs.append(ChainJob(spec, parts, files, sites[site], sibling))
    io.raise_problems(problems)
    return jobs
