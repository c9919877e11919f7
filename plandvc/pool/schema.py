"""The contract's JSON Schemas (`plandvc/contract/schemas/`, draft 2020-12) and the problems a file has
against one.

Every problem is a `Problem(file, key, reason)`: `file` relative to the pool (or the sites folder), `key` the
JSON path inside it (`steps[2].element`, `start.url`; empty for the whole file), `reason` one line. All the
problems of a file are reported, not just the first. The pool's reader (`plandvc.pool.store`) and check-pool
(`plandvc.contract`) both validate through here; the schemas stay beside check-pool, which publishes them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import orjson
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from plandvc.io import error_key
from plandvc.macros import REGISTRY

SCHEMAS = ("task", "trajectory", "elements", "kept", "site", "site_split")
# the schemas whose `macro` property takes the registered macros
MACRO_ENUM_SCHEMAS = ("task", "trajectory")


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong: the file (relative), the key in it (JSON path, may be empty) and why."""

    file: str
    key: str
    reason: str

    def line(self) -> str:
        return f"{self.file}: {self.key}: {self.reason}" if self.key else f"{self.file}: {self.reason}"


def schema(name: str) -> dict[str, object]:
    """The contract's JSON Schema `name` (one of SCHEMAS). A `macro` property's enum is the registered macros
    (`plandvc.macros.REGISTRY`), filled in here: the schema files leave the names out, so a macro is declared in
    one place."""
    text = resources.files("plandvc.contract").joinpath("schemas", f"{name}.schema.json").read_text("utf-8")
    out: dict[str, object] = json.loads(text)
    properties = out.get("properties")
    if (
        name in MACRO_ENUM_SCHEMAS
        and isinstance(properties, dict)
        and isinstance(properties.get("macro"), dict)
    ):
        properties["macro"]["enum"] = sorted(REGISTRY)
    return out


SITE_KINDS = ("generated", "app")
SITE_PATH = "^/sites/[a-z][a-z0-9-]*"  # a generated site's paths start here; an app's are its own


def app_schema(value: object) -> object:
    """A schema as an app pool's parts meet it (`pool.json`'s `site_kind: app`, docs/POOL.md, "App pools"):
    its paths are the application's own, with no /sites/<site> prefix, and a task names no spec control (the
    app has no spec). Every other rule is the generated sites' own."""
    if isinstance(value, dict):
        out = {k: app_schema(v) for k, v in value.items()}
        pattern, required = out.get("pattern"), out.get("required")
        if isinstance(pattern, str) and pattern.startswith(SITE_PATH):
            out["pattern"] = "^" + pattern[len(SITE_PATH) :]
        if isinstance(required, list) and "control" in required:
            out["required"] = [k for k in required if k != "control"]
        return out
    if isinstance(value, list):
        return [app_schema(v) for v in value]
    return value


def _validator(name: str, site_kind: str) -> Draft202012Validator:
    return _validator_for(name, tuple(sorted(REGISTRY)), site_kind)


@cache
def _validator_for(name: str, macros: tuple[str, ...], site_kind: str) -> Draft202012Validator:
    """One validator per schema, registry (a temporary registry gets its own) and site kind."""
    s = schema(name)
    return Draft202012Validator(app_schema(s) if site_kind == "app" else s)


def _problem(file: str, e: ValidationError) -> Problem:
    key = error_key(e)
    if e.validator == "required":
        return Problem(file, key, "missing")
    if e.validator == "additionalProperties":
        return Problem(file, key, e.message.replace("Additional properties are not allowed", "unknown key"))
    if e.validator == "enum" and "propertyNames" in e.schema_path:
        return Problem(file, key, f"unknown key {e.instance!r}")
    if e.validator == "enum" and len(str(e.validator_value)) > 120:
        return Problem(file, key, f"{e.instance!r} is not a known value")
    return Problem(file, key, e.message)


def validate(name: str, obj: object, file: str, site_kind: str = "generated") -> list[Problem]:
    """Every way `obj` breaks the schema `name` (as `site_kind`'s pools meet it), sorted by key."""
    errors = _validator(name, site_kind).iter_errors(obj)
    return sorted({_problem(file, e) for e in errors})


def read(path: Path, file: str) -> tuple[object, list[Problem]]:
    """A JSON file's value, or the problem that it is missing or not JSON."""
    try:
        return orjson.loads(path.read_bytes()), []
    except FileNotFoundError:
        return None, [Problem(file, "", "file not found")]
    except orjson.JSONDecodeError as e:
        return None, [Problem(file, "", f"not valid JSON ({e})")]
    except OSError as e:
        return None, [Problem(file, "", f"cannot read ({e.strerror})")]
