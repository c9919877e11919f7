"""A pool's files against the contract's JSON Schemas, and against each other.

Every problem is a `Problem(file, key, reason)`: `file` relative to the pool (or the sites folder), `key` the
JSON path inside it (`steps[2].element`, `start.url`; empty for the whole file), `reason` one line. All the
problems of a file are reported, not just the first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import orjson
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from plandvc.macros import REGISTRY

SCHEMAS = ("task", "trajectory", "elements", "kept", "site", "site_split")
MACRO_ENUM_SCHEMAS = ("task", "trajectory")  # their `macro` is one of the registry's
PART_FILES = ("task.json", "trajectory.json", "elements.json")


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong: the file (relative), the key in it (JSON path, may be empty) and why."""

    file: str
    key: str
    reason: str

    def line(self) -> str:
        return f"{self.file}: {self.key}: {self.reason}" if self.key else f"{self.file}: {self.reason}"


@dataclass
class Part:
    """One kept part's files as read, with the problems found in them (empty when the part is usable)."""

    id: str
    run: str
    dir: str
    task: Any = None
    traj: Any = None
    elements: Any = None
    problems: tuple[Problem, ...] = ()


def schema(name: str) -> dict[str, Any]:
    """The contract's JSON Schema `name` (one of SCHEMAS). A `macro` property's enum is the registered macros
    (`plandvc.macros.REGISTRY`), filled in here: the schema files leave the names out, so a macro is declared in
    one place."""
    text = resources.files("plandvc.contract").joinpath("schemas", f"{name}.schema.json").read_text("utf-8")
    out: dict[str, Any] = json.loads(text)
    macro = out.get("properties", {}).get("macro")
    if macro is not None and name in MACRO_ENUM_SCHEMAS:
        macro["enum"] = sorted(REGISTRY)
    return out


def _validator(name: str) -> Draft202012Validator:
    return _validator_for(name, tuple(sorted(REGISTRY)))


@cache
def _validator_for(name: str, macros: tuple[str, ...]) -> Draft202012Validator:
    """The validator of `name` with this registry's macros (a temporary registry gets its own)."""
    return Draft202012Validator(schema(name))


def json_path(parts: Any) -> str:
    """deque(['steps', 2, 'element']) -> 'steps[2].element'."""
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _problem(file: str, e: ValidationError) -> Problem:
    key = json_path(e.absolute_path)
    if e.validator == "required":
        missing = e.message.split("'")[1] if "'" in e.message else e.message
        return Problem(file, f"{key}.{missing}" if key else missing, "missing")
    if e.validator == "additionalProperties":
        return Problem(file, key, e.message.replace("Additional properties are not allowed", "unknown key"))
    if e.validator == "enum" and "propertyNames" in e.schema_path:
        return Problem(file, key, f"unknown key {e.instance!r}")
    if e.validator == "enum" and len(str(e.validator_value)) > 120:
        return Problem(file, key, f"{e.instance!r} is not a known value")
    return Problem(file, key, e.message)


def validate(name: str, obj: Any, file: str) -> list[Problem]:
    """Every way `obj` breaks the schema `name`, sorted by key."""
    errors = _validator(name).iter_errors(obj)
    return sorted({_problem(file, e) for e in errors})


def read(path: Path, file: str) -> tuple[Any, list[Problem]]:
    """A JSON file's value, or the problem that it is missing or not JSON."""
    try:
        return orjson.loads(path.read_bytes()), []
    except FileNotFoundError:
        return None, [Problem(file, "", "file not found")]
    except orjson.JSONDecodeError as e:
        return None, [Problem(file, "", f"not valid JSON ({e})")]
    except OSError as e:
        return None, [Problem(file, "", f"cannot read ({e.strerror})")]


def read_part(pool: Path, run: str, task_id: str) -> Part:
    """A kept part's three files, each against its schema, and against each other: the ids are the folder's,
    site and macro agree, and every step's element is an index of elements.json."""
    rel = f"runs/{run}/accepted/{task_id}"
    part = Part(task_id, run, rel)
    problems: list[Problem] = []
    values = {}
    for name, fname in zip(("task", "trajectory", "elements"), PART_FILES, strict=True):
        file = f"{rel}/{fname}"
        value, bad = read(pool / rel / fname, file)
        problems += bad or validate(name, value, file)
        values[name] = value
    part.task, part.traj, part.elements = values["task"], values["trajectory"], values["elements"]
    task, traj, elements = (v if isinstance(v, dict | list) else None for v in values.values())
    tf, jf = f"{rel}/task.json", f"{rel}/trajectory.json"
    if isinstance(task, dict) and isinstance(task.get("task_id"), str) and task["task_id"] != task_id:
        problems.append(Problem(tf, "task_id", f"{task['task_id']!r} is not its folder's id {task_id!r}"))
    if isinstance(traj, dict):
        if isinstance(traj.get("task_id"), str) and traj["task_id"] != task_id:
            problems.append(Problem(jf, "task_id", f"{traj['task_id']!r} is not its folder's id {task_id!r}"))
        for key in ("site", "macro"):
            if isinstance(task, dict) and key in task and key in traj and task[key] != traj[key]:
                problems.append(Problem(jf, key, f"{traj[key]!r} differs from task.json's {task[key]!r}"))
        steps = traj.get("steps")
        if isinstance(steps, list) and isinstance(elements, list):
            for n, st in enumerate(steps):
                el = st.get("element") if isinstance(st, dict) else None
                if isinstance(el, int) and not isinstance(el, bool) and el >= len(elements):
                    problems.append(
                        Problem(
                            jf,
                            f"steps[{n}].element",
                            f"{el} is not an index of elements.json ({len(elements)})",
                        )
                    )
    part.problems = tuple(sorted(set(problems)))
    return part


def read_kept(pool: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[Problem]]:
    """The good lines of kept.jsonl as (line number, row), and a problem for each bad or repeated line."""
    file = "kept.jsonl"
    try:
        lines = (pool / file).read_bytes().splitlines()
    except FileNotFoundError:
        return [], [Problem(file, "", "file not found")]
    rows: list[tuple[int, dict[str, Any]]] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            problems.append(Problem(f"{file}:{n}", "", f"not valid JSON ({e})"))
            continue
        bad = validate("kept", row, f"{file}:{n}")
        if not bad and row["id"] in seen:
            bad = [Problem(f"{file}:{n}", "id", f"{row['id']!r} is already on line {seen[row['id']]}")]
        problems += bad
        if not bad:
            seen[row["id"]] = n
            rows.append((n, row))
    return rows, problems
