"""The one reader of a pool (the layout: docs/POOL.md, "Layout"): `Pool.open(dir)` reads the kept index once,
and `.part(id)` reads a kept part's three files once, each against its JSON Schema and against each other.

Every other module reads a pool through a `Pool`: pool-items (`plandvc.chains.items`), check-pool
(`plandvc.contract.pool`), run-chains (`plandvc.run.inputs`) and the closed-loop evaluation. So a part
check-pool calls bad is the part pool-items skips and run-chains refuses, with the same reason.

Two ways to read, one set of checks:
- strict (`Pool.open`, `.part`): the first problem is an `InputError`, one line naming the file and key;
- every problem (`Pool.scan`, `.check`): `Problem`s, for check-pool, which names them all, and for pool-items,
  which counts a bad part and goes on.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import orjson

from plandvc.io import InputError
from plandvc.pool.schema import SITE_KINDS, Problem, read, validate
from plandvc.records import ElementDescriptor, KeptLine, Part, Task, Trajectory

INDEX = "kept.jsonl"
IDS = "pool_ids.txt"
MANIFEST = "pool.json"  # an app pool's {"site_kind": "app", "site": <app>}; a generated world's pool has none
PART_FILES = ("task.json", "trajectory.json", "elements.json")
SCHEMA_OF = dict(zip(PART_FILES, ("task", "trajectory", "elements"), strict=True))


def read_ids(path: str | Path) -> list[str]:
    """Trajectory ids, whitespace-separated (one a line in `pool_ids.txt`), in file order: the one reader of an
    id list."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8").split()
    except FileNotFoundError:
        raise InputError(f"{p}: file not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{p}: cannot read ({e})") from None


def hash_files(paths: list[Path]) -> str:
    """One sha256 over the files' names and contents, in order (a chain's parts in its fingerprint)."""
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


@dataclass(frozen=True)
class PartCheck:
    """One kept part's files as read (None where a file is missing or not JSON), with every problem found in
    them; `part` is the typed part when there is none."""

    id: str
    run: str
    dir: str  # relative to the pool
    task: object
    traj: object
    elements: object
    problems: tuple[Problem, ...]

    @property
    def part(self) -> Part | None:
        if self.problems:
            return None
        return Part(
            id=self.id,
            run=self.run,
            dir=self.dir,
            task=cast(Task, self.task),
            traj=cast(Trajectory, self.traj),
            elements=cast(list[ElementDescriptor], self.elements),
        )


def _cross_file(
    kept: tuple[int, KeptLine],
    rel: str,
    task: Task | None,
    traj: Trajectory | None,
    elements: list[ElementDescriptor] | None,
) -> list[Problem]:
    """What no single schema sees, between the kept line (its number and value) and the part's files that fit
    their schemas (None: a file that does not): the ids are the folder's, the kept line, task and trajectory
    agree on site and macro, and every step's element is an index of elements.json."""
    out: list[Problem] = []
    n, line = kept
    task_id = line["id"]
    tf, jf = f"{rel}/task.json", f"{rel}/trajectory.json"
    if task is not None:
        if task["task_id"] != task_id:
            out.append(Problem(tf, "task_id", f"{task['task_id']!r} is not its folder's id {task_id!r}"))
        for key, have, want in (
            ("site", line.get("site"), task["site"]),
            ("macro", line.get("macro"), task["macro"]),
        ):
            if have is not None and have != want:
                out.append(Problem(f"{INDEX}:{n}", key, f"{have!r} differs from task.json's {want!r}"))
    if traj is None:
        return out
    if traj["task_id"] != task_id:
        out.append(Problem(jf, "task_id", f"{traj['task_id']!r} is not its folder's id {task_id!r}"))
    if task is not None:
        for key, have, want in (
            ("site", traj["site"], task["site"]),
            ("macro", traj["macro"], task["macro"]),
        ):
            if have != want:
                out.append(Problem(jf, key, f"{have!r} differs from task.json's {want!r}"))
    if elements is not None:
        for n, st in enumerate(traj["steps"]):
            el = st.get("element")
            if el is not None and el >= len(elements):
                why = f"{el} is not an index of elements.json ({len(elements)})"
                out.append(Problem(jf, f"steps[{n}].element", why))
    return out


def _index(root: Path) -> tuple[list[tuple[int, KeptLine]], list[Problem]]:
    """The good lines of kept.jsonl as (line number, line), and a problem for each bad or repeated line."""
    try:
        lines = (root / INDEX).read_bytes().splitlines()
    except FileNotFoundError:
        return [], [Problem(INDEX, "", "file not found")]
    except OSError as e:
        return [], [Problem(INDEX, "", f"cannot read ({e.strerror})")]
    rows: list[tuple[int, KeptLine]] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            problems.append(Problem(f"{INDEX}:{n}", "", f"not valid JSON ({e})"))
            continue
        bad = validate("kept", row, f"{INDEX}:{n}")
        if not bad and row["id"] in seen:
            bad = [Problem(f"{INDEX}:{n}", "id", f"{row['id']!r} is already on line {seen[row['id']]}")]
        problems += bad
        if not bad:
            seen[row["id"]] = n
            rows.append((n, cast(KeptLine, row)))
    return rows, problems


def _manifest(root: Path) -> tuple[str, str | None, list[Problem]]:
    """The pool's site kind and app (`pool.json`; none: a generated world's pool), and its problems."""
    if not (root / MANIFEST).exists():
        return "generated", None, []
    value, bad = read(root / MANIFEST, MANIFEST)
    if bad:
        return "generated", None, bad
    if not isinstance(value, dict) or set(value) != {"site_kind", "site"}:
        return "generated", None, [Problem(MANIFEST, "", 'not {"site_kind": ..., "site": ...}')]
    kind, site = value["site_kind"], value["site"]
    if kind not in SITE_KINDS:
        return (
            "generated",
            None,
            [Problem(MANIFEST, "site_kind", f"{kind!r} is not one of {', '.join(SITE_KINDS)}")],
        )
    if not isinstance(site, str) or not site:
        return "generated", None, [Problem(MANIFEST, "site", f"{site!r} is not a site name")]
    return kind, site, []


class Pool:
    """A pool folder, its kept index read and checked: `kept` (the good lines, in file order), `problems` (the
    index's bad lines, files relative to the pool) and each part's files on demand, each read once.
    `site_kind` is "app" for an application's pool (`pool.json`, docs/POOL.md, "App pools"): its parts meet
    the app variant of the schemas, and every kept line names the manifest's `site`."""

    def __init__(
        self,
        root: Path,
        lines: list[tuple[int, KeptLine]],
        problems: list[Problem],
        site_kind: str = "generated",
        site: str | None = None,
    ) -> None:
        self.root = root
        self.site_kind = site_kind
        self.site = site
        if site is not None:
            problems = problems + [
                Problem(
                    f"{INDEX}:{n}", "site", f"{row['site']!r} is not the pool's site {site!r} ({MANIFEST})"
                )
                for n, row in lines
                if row.get("site", site) != site
            ]
        self.kept: tuple[KeptLine, ...] = tuple(row for _, row in lines)
        self._line = {
            row["id"]: (n, row) for n, row in lines
        }  # id -> (its line number in kept.jsonl, the line)
        self.problems: tuple[Problem, ...] = tuple(problems)
        self._run = {row["id"]: row["run"] for row in self.kept}
        self._checked: dict[str, PartCheck] = {}

    @classmethod
    def scan(cls, root: str | Path) -> Pool:
        """The pool with every problem of its index kept in `problems` (check-pool, pool-items)."""
        root = Path(root)
        kind, site, bad = _manifest(root)
        lines, problems = _index(root)
        return cls(root, lines, bad + problems, kind, site)

    @classmethod
    def open(cls, root: str | Path) -> Pool:
        """The pool, or an InputError naming the first problem of its index (`<dir>/kept.jsonl:3: id: missing`)."""
        pool = cls.scan(root)
        if pool.problems:
            raise InputError(pool.error(pool.problems))
        return pool

    def error(self, problems: tuple[Problem, ...]) -> str:
        """One line: the first problem, its file under the pool, and how many more there are."""
        first = Problem(f"{self.root}/{problems[0].file}", problems[0].key, problems[0].reason).line()
        more = len(problems) - 1
        return f"{first} (and {more} more; check-pool names every one)" if more else first

    @property
    def index(self) -> Path:
        return self.root / INDEX

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._run

    def run_of(self, task_id: str) -> str:
        """The run a kept part was recorded in; an InputError when the id is not kept."""
        if task_id not in self._run:
            raise InputError(f"{self.index}: {task_id!r} is not a kept trajectory")
        return self._run[task_id]

    @property
    def ids_file(self) -> Path:
        """The pool ids' file (`pool_ids.txt`)."""
        return self.root / IDS

    def ids(self) -> list[str]:
        """The pool ids (`pool_ids.txt`): the kept trajectories the chains are made of."""
        return read_ids(self.ids_file)

    def unknown_ids(self, ids_file: Path | None = None) -> list[tuple[int, str]]:
        """(line number, id) of each id in `ids_file` (the pool's own `pool_ids.txt` by default) that is not a
        kept trajectory of this pool, in file order; an InputError when the file cannot be read."""
        path = self.ids_file if ids_file is None else ids_file
        read_ids(path)  # a missing or unreadable file: one line
        lines = path.read_text(encoding="utf-8").splitlines()
        return [(n, tid) for n, line in enumerate(lines, 1) for tid in line.split() if tid not in self]

    def dir_of(self, task_id: str) -> str:
        """A kept part's folder, relative to the pool."""
        return f"runs/{self.run_of(task_id)}/accepted/{task_id}"

    def part_files(self, task_id: str) -> list[Path]:
        """A kept part's task.json, trajectory.json and elements.json."""
        d = self.root / self.dir_of(task_id)
        return [d / name for name in PART_FILES]

    def files_hash(self, ids: list[str]) -> str:
        """The hash of the parts' files, in the order of `ids` (a chain's parts in its fingerprint)."""
        return hash_files([f for tid in ids for f in self.part_files(tid)])

    def check(self, task_id: str) -> PartCheck:
        """A kept part's three files, each against its schema and against each other, with every problem."""
        if task_id in self._checked:
            return self._checked[task_id]
        rel = self.dir_of(task_id)
        problems: list[Problem] = []
        values: dict[str, object] = {}
        fits: dict[str, object] = {}  # the values that fit their schema
        for name, kind in SCHEMA_OF.items():
            file = f"{rel}/{name}"
            value, bad = read(self.root / file, file)
            bad = bad or validate(kind, value, file, self.site_kind)
            problems += bad
            values[name] = value
            if not bad:
                fits[name] = value
        task, traj, elements = (values[name] for name in PART_FILES)
        problems += _cross_file(
            self._line[task_id],
            rel,
            cast(Task | None, fits.get("task.json")),
            cast(Trajectory | None, fits.get("trajectory.json")),
            cast(list[ElementDescriptor] | None, fits.get("elements.json")),
        )
        checked = PartCheck(
            task_id, self._run[task_id], rel, task, traj, elements, tuple(sorted(set(problems)))
        )
        self._checked[task_id] = checked
        return checked

    def part(self, task_id: str) -> Part:
        """A kept part, typed; an InputError naming the first problem of its files."""
        checked = self.check(task_id)
        part = checked.part
        if part is None:
            raise InputError(self.error(checked.problems))
        return part
