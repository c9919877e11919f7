"""check-pool: a pool and its sites against the contract, every problem named.

The sites first: `site_split.json` and each `site.json` against their schemas, then through the spec loader
(which checks what a schema cannot). Then the pool: each kept.jsonl line, pool_ids.txt, and each kept part's
files (through `plandvc.pool.store.Pool`, the one reader of a pool). A part whose files are sound is then checked against its site: its site exists and
is in the split, its control id is one the site has (a control of the spec, `home`, `nav-<page>`,
`<page>-create|edit|detail|copy`, `<page>-row-<id>`), the tables and pages it names exist, its prep and its
start URL work, and every step's element is on the page the step is on (`pages.Walker`, no browser), ending
on the recorded end page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

from plandvc.contract.doc import Doc
from plandvc.contract.pages import StepError, Walker
from plandvc.io import InputError
from plandvc.pool.schema import Problem, read, validate
from plandvc.pool.store import MANIFEST, Pool
from plandvc.records import Part, Task
from plandvc.sites.server import App
from plandvc.sites.spec import Spec, parse_spec

# a task's control role -> the spec control kind it names (the other roles name page-level controls)
ROLE_KIND = {k: k for k in ("dropdown", "options", "slider", "date_range", "sort", "search")}


@dataclass
class PoolReport:
    """What check-pool found: every problem, and counts for the summary."""

    problems: list[Problem] = field(default_factory=list)
    sites: int = 0
    app: str | None = None  # an app pool's app (pool.json), whose parts are not walked
    kept: int = 0
    parts_ok: int = 0
    steps: int = 0

    @property
    def bad_files(self) -> int:
        return len({p.file.split(":")[0] for p in self.problems})

    def summary(self) -> str:
        """The counts, and the problems by the kind of file they are in."""
        kinds = Counter(Path(p.file.split(":")[0]).name for p in self.problems)
        where = f"app {self.app}" if self.app else f"{self.sites} sites"
        head = (
            f"check-pool: {where}, {self.kept} kept parts ({self.parts_ok} sound, {self.steps} steps "
            f"walked): {len(self.problems)} problems in {self.bad_files} files"
        )
        by_file = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
        return head + (f"\n  by file: {by_file}" if by_file else "")


def _input_error(file: str, e: InputError) -> Problem:
    """An InputError `<path>: key: reason` as a Problem of `file`."""
    text = str(e)
    _, _, rest = text.partition(": ")
    key, _, reason = rest.partition(": ")
    return Problem(file, key, reason) if reason else Problem(file, "", rest or text)


def check_sites(sites: Path, report: PoolReport) -> tuple[dict[str, Spec], set[str]]:
    """The usable specs by site, and the sites of the split; problems go to the report."""
    split_file = f"{sites}/site_split.json"
    split, bad = read(sites / "site_split.json", split_file)
    bad = bad or validate("site_split", split, split_file)
    report.problems += bad
    lists = cast(dict[str, list[str]], split)  # valid: {"train": [...], "test": [...]}
    in_split = set() if bad else set(lists["train"]) | set(lists["test"])
    specs: dict[str, Spec] = {}
    for path in sorted(sites.glob("*/site.json")):
        file = f"{sites}/{path.parent.name}/site.json"
        raw, bad = read(path, file)
        bad = bad or validate("site", raw, file)
        name = cast(dict[str, object], raw).get("site") if not bad else None
        if not bad and name != path.parent.name:
            bad = [Problem(file, "site", f"{name!r} is not its folder's name {path.parent.name!r}")]
        if not bad:
            try:
                specs[path.parent.name] = parse_spec(raw, path)
            except InputError as e:
                bad = [_input_error(file, e)]
        report.problems += bad
    for name in sorted(in_split - {p.parent.name for p in sites.glob("*/site.json")}):
        report.problems.append(Problem(split_file, "", f"site {name!r} has no {name}/site.json"))
    report.sites = len(specs)
    return specs, in_split


def control_ids(spec: Spec) -> dict[str, str | None]:
    """Every control id a task may name on this site -> the spec control's kind (None for page-level ids)."""
    out: dict[str, str | None] = {"home": None}
    for p in spec.pages:
        table = spec.table_of(p)
        for suffix in ("create", "edit", "detail", "copy", "pager"):
            out[f"{p.page}-{suffix}"] = None
        if spec.theme.tabs:
            out[f"{p.page}-tabs"] = None
        if table.delete:
            out[f"{p.page}-delete"] = None
        out[f"nav-{p.page}"] = None
        for row in table.rows:
            out[f"{p.page}-row-{row[table.key]}"] = None
        for c in p.controls:
            out[c.control_id] = c.kind
    return out


def _page_of(spec: Spec, path: str) -> str | None:
    """Why `path` is not a page of the site, or None."""
    parts = [p for p in urlsplit(path).path.split("/") if p]
    if parts[:2] != ["sites", spec.site]:
        return f"{path!r} is not under /sites/{spec.site}"
    if len(parts) >= 3 and spec.page(parts[2]) is None:
        return f"{spec.name} has no page {parts[2]!r}"
    return None


def check_task_on_site(task: Task, spec: Spec, tf: str) -> list[Problem]:
    """The control id, tables and pages a task names, on its site's spec."""
    out: list[Problem] = []
    ctrl = task["control"]
    ids = control_ids(spec)
    cid, role = ctrl["control_id"], ctrl["role"]
    if cid not in ids:
        out.append(Problem(tf, "control.control_id", f"{spec.name} has no control {cid!r}"))
    elif role in ROLE_KIND and ids[cid] != ROLE_KIND[role]:
        out.append(
            Problem(tf, "control.role", f"{role!r}, but {cid!r} is a {ids[cid] or 'page-level'} control")
        )
    tables = set(spec.tables)
    check: Mapping[str, object] = task["check"]
    if isinstance(table := check.get("table"), str) and table not in tables:
        out.append(Problem(tf, "check.table", f"{spec.name} has no table {table!r}"))
    if isinstance(path := check.get("path"), str) and (why := _page_of(spec, path)):
        out.append(Problem(tf, "check.path", why))
    create = (ctrl.get("prep") or {}).get("create")
    if create:
        if create["table"] not in tables:
            out.append(
                Problem(tf, "control.prep.create.table", f"{spec.name} has no table {create['table']!r}")
            )
        page = spec.page(create["page"])
        if page is None:
            out.append(Problem(tf, "control.prep.create.page", f"{spec.name} has no page {create['page']!r}"))
        elif page.table != create["table"]:
            out.append(Problem(tf, "control.prep.create.page", f"page {page.page!r} lists {page.table!r}"))
    for n, token in enumerate(task["scope"]):
        kind, _, rest = token.partition(":")
        name = rest.split("/")[0] if kind == "entry" else rest
        if kind in ("entry", "table") and name not in tables:
            out.append(Problem(tf, f"scope[{n}]", f"{spec.name} has no table {name!r}"))
    if why := _page_of(spec, task["start"]["url"]):
        out.append(Problem(tf, "start.url", why))
    return out


def walk_part(
    app: App, docs: dict[tuple[str, bytes], Doc], part: Part, tf: str, jf: str
) -> tuple[list[Problem], int]:
    """The task's prep and start, then every step on its page; (problems, steps walked)."""
    task, traj, elements = part["task"], part["traj"], part["elements"]
    walker = Walker(app, f"check-{task['task_id']}", docs)
    create = (task["control"].get("prep") or {}).get("create")
    if create:
        try:
            why = walker.prep_create(task["site"], create)
        except StepError as e:
            why = e.reason
        if why:
            return [Problem(tf, "control.prep.create", why)], 0
    url = task["start"]["url"]
    status = walker.get(url)
    if status != 200:
        return [Problem(tf, "start.url", f"{url} answers {status}")], 0
    walked = 0
    for n, st in enumerate(traj["steps"]):
        el = st.get("element")
        try:
            walker.step(n, st, elements[el] if el is not None else None)
        except StepError as e:
            return [Problem(jf, e.key, e.reason)], walked
        walked += 1
    end = traj.get("end")
    if end is not None and walker.page is not None:
        have, want = urlsplit(walker.page.url).path.rstrip("/"), urlsplit(end).path.rstrip("/")
        if have != want:
            return [Problem(jf, "end", f"the steps end on {walker.page.url}, not on {end}")], walked
    return [], walked


@dataclass
class Sites:
    """What a sound part is checked against: the usable sites, the split's sites, the server's code that
    renders their pages, and the walkers' shared cache of parsed pages."""

    folder: Path
    specs: dict[str, Spec]
    in_split: set[str]
    app: App
    docs: dict[tuple[str, bytes], Doc]

    def check(self, part: Part, part_dir: str, found: list[Problem]) -> int:
        """A sound part against its site: its problems go to `found`; the steps walked (0 when not walked)."""
        task = part["task"]
        tf, jf = f"{part_dir}/task.json", f"{part_dir}/trajectory.json"
        spec = self.specs.get(task["site"])
        if spec is None:
            found.append(Problem(tf, "site", f"no usable site {task['site']!r} in {self.folder}"))
            return 0
        if task["site"] not in self.in_split:
            found.append(Problem(tf, "site", f"{task['site']!r} is in neither list of site_split.json"))
        found += check_task_on_site(task, spec, tf)
        if found:
            return 0
        walk_problems, walked = walk_part(self.app, self.docs, part, tf, jf)
        found += walk_problems
        return walked


def check_pool(pool: Path, sites: Path | None) -> PoolReport:
    """Every problem of the pool and its sites (sorted by file and key), and the counts. An app's pool
    (`pool.json`: site_kind app) has no sites folder: its index and parts are checked by the contract's app
    branch, and no part is walked (its pages are the application's)."""
    report = PoolReport()
    store = Pool.scan(pool)
    on_site: Sites | None = None
    report.app = store.site
    if store.site_kind != "app":
        if sites is None:
            if not any(p.file == MANIFEST for p in store.problems):  # else: named below, nothing walked
                raise InputError(f"{pool}: a generated world's pool is checked against its sites (--sites)")
        else:
            specs, in_split = check_sites(sites, report)
            on_site = Sites(sites, specs, in_split, App(specs), {})
    report.problems += [Problem(f"{pool}/{p.file}", p.key, p.reason) for p in store.problems]
    report.kept = len(store.kept)
    if store.ids_file.is_file():
        report.problems += [
            Problem(f"{pool}/{store.ids_file.name}:{n}", "", f"{tid!r} is not in kept.jsonl")
            for n, tid in store.unknown_ids()
        ]
    else:
        report.problems.append(Problem(f"{pool}/{store.ids_file.name}", "", "file not found"))
    for row in store.kept:
        checked = store.check(row["id"])
        found = [Problem(f"{pool}/{p.file}", p.key, p.reason) for p in checked.problems]
        part = checked.part
        if part is not None and on_site is not None:
            report.steps += on_site.check(part, f"{pool}/{checked.dir}", found)
        report.problems += found
        report.parts_ok += not found
    report.problems.sort()
    return report
