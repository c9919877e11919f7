"""The planner's output format: the `response_format` JSON schema, a validator, and canonical key order.

The schema is the contract between the planner agent (which asks a model for it), the scripted run (whose
targets follow it key by key) and filter-rows (which rejects a target that breaks it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeAlias, TypedDict, cast

from plandvc.browser.actions import ACTIONS, DONE_PARAMS
from plandvc.macros import FAMILIES

# a JSON schema as a value (the project's own, or an episode's that its reader validated as one); read through
# `_read`, which names the keys this module uses
JSONSchema: TypeAlias = dict[str, object]
JSONType = Literal["object", "array", "string", "integer", "number", "boolean", "null"]


class _Schema(TypedDict, total=False):
    """The subset of JSON Schema this module reads (what the planner's and the specialist's schemas use)."""

    type: JSONType | list[JSONType]
    anyOf: list[Mapping[str, object]]
    enum: list[str]
    minLength: int
    minItems: int
    maxItems: int
    items: Mapping[str, object]
    properties: dict[str, Mapping[str, object]]
    required: list[str]
    additionalProperties: bool


class _SchemaFormat(TypedDict):
    name: str
    strict: bool
    schema: JSONSchema


class _ResponseFormat(TypedDict):
    """An OpenAI-style `response_format` of type json_schema."""

    type: Literal["json_schema"]
    json_schema: _SchemaFormat


def _read(schema: Mapping[str, object]) -> _Schema:
    """`schema` as the keys read here: every schema given is the project's own or one validated as a schema."""
    return cast(_Schema, schema)


def closed_object(properties: dict[str, JSONSchema]) -> JSONSchema:
    """An object schema with exactly `properties`, every one required (in their order, the order a reply's keys
    follow)."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties),
        "properties": properties,
    }


def reply_schema(actions: list[JSONSchema]) -> JSONSchema:
    """A model's reply: its memory and exactly one action, one of `actions`."""
    one = {"type": "array", "minItems": 1, "maxItems": 1, "items": {"anyOf": actions}}
    return closed_object({"memory": {"type": "string"}, "action": one})


def json_schema_format(name: str, schema: JSONSchema) -> dict[str, object]:
    """The OpenAI-style `response_format` that constrains a reply to `schema`."""
    return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}


_DELEGATE = closed_object(
    {
        "delegate": closed_object(
            {
                "family": {"type": "string", "enum": list(FAMILIES)},
                "instruction": {"type": "string", "minLength": 1},
            }
        )
    }
)
_DONE = closed_object(
    {"done": closed_object({"text": {"type": "string", "minLength": 1}, "success": {"type": "boolean"}})}
)
SCHEMA: JSONSchema = reply_schema([_DELEGATE, _DONE])
RESPONSE_FORMAT = json_schema_format("planner_output", SCHEMA)

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(obj: object, want: str) -> bool:
    """Whether `obj` is of JSON type `want` (a bool is not a number here, as in JSON)."""
    if want in ("integer", "number"):
        if isinstance(obj, bool):
            return False
        return isinstance(obj, int) if want == "integer" else isinstance(obj, int | float)
    return isinstance(obj, _TYPES[want])


def schema_of(response_format: Mapping[str, object]) -> JSONSchema:
    """The JSON schema inside an OpenAI-style `response_format` (the project's own, or one its reader
    validated as json_schema)."""
    return cast(_ResponseFormat, response_format)["json_schema"]["schema"]


def errors(obj: object, schema: Mapping[str, object], path: str = "$") -> list[str]:
    """What breaks `schema` in `obj` (the subset of JSON Schema used here); empty when it conforms."""
    schema = _read(schema)
    if "anyOf" in schema:
        found = [errors(obj, s, path) for s in schema["anyOf"]]
        return (
            [] if any(not e for e in found) else [f"{path}: matches none of anyOf ({min(found, key=len)[0]})"]
        )
    want = schema.get("type")
    if isinstance(want, list):  # a union such as ["string", "null"]
        fit = [w for w in want if _is(obj, w)]
        if not fit:
            return [f"{path}: expected {' or '.join(want)}, got {type(obj).__name__}"]
        want = fit[0]
    if want and not _is(obj, want):
        return [f"{path}: expected {want}, got {type(obj).__name__}"]
    out: list[str] = []
    if want == "string" and isinstance(obj, str):
        if "enum" in schema and obj not in schema["enum"]:
            out.append(f"{path}: {obj!r} not one of {schema['enum']}")
        if len(obj) < schema.get("minLength", 0):
            out.append(f"{path}: empty string")
    elif want == "array" and isinstance(obj, list):
        if not schema.get("minItems", 0) <= len(obj) <= schema.get("maxItems", len(obj)):
            out.append(f"{path}: {len(obj)} items")
        for i, x in enumerate(obj):
            out += errors(x, schema.get("items", {}), f"{path}[{i}]")
    elif want == "object" and isinstance(obj, dict):
        props = schema.get("properties", {})
        out += [f"{path}: missing {k!r}" for k in schema.get("required", []) if k not in obj]
        if schema.get("additionalProperties") is False:
            out += [f"{path}: unexpected {k!r}" for k in obj if k not in props]
        for k, v in obj.items():
            if k in props:
                out += errors(v, props[k], f"{path}.{k}")
    return out


def key_order_errors(obj: object, schema: Mapping[str, object], path: str = "$") -> list[str]:
    """Where `obj`'s keys are not in the schema's property order (targets follow the schema key by key)."""
    schema = _read(schema)
    if "anyOf" in schema:
        fits = [s for s in schema["anyOf"] if not errors(obj, s)]
        return key_order_errors(obj, fits[0], path) if fits else []
    out: list[str] = []
    if isinstance(obj, dict):
        props = list(schema.get("properties", {}))
        keys = [k for k in obj if k in props]
        if keys != sorted(keys, key=props.index):
            out.append(f"{path}: keys {keys} not in schema order {props}")
        for k, v in obj.items():
            if k in schema.get("properties", {}):
                out += key_order_errors(v, schema["properties"][k], f"{path}.{k}")
    elif isinstance(obj, list):
        out += [
            e for i, x in enumerate(obj) for e in key_order_errors(x, schema.get("items", {}), f"{path}[{i}]")
        ]
    return out


def canonical(obj: object, schema: Mapping[str, object]) -> object:
    """`obj` with every object's keys in the schema's property order."""
    schema = _read(schema)
    if "anyOf" in schema:
        fits = [s for s in schema["anyOf"] if not errors(obj, s)]
        return canonical(obj, fits[0]) if fits else obj
    if isinstance(obj, dict):
        props = schema.get("properties", {})
        order = [k for k in props if k in obj] + [k for k in obj if k not in props]
        return {k: canonical(obj[k], props.get(k, {})) for k in order}
    if isinstance(obj, list):
        return [canonical(x, schema.get("items", {})) for x in obj]
    return obj


# ── the specialist's actions (docs/STAGES.md, "Actions, the trip home and replay") ───────────────────────────────────────────────

# the browser actions' parameters from their one table, then done's
SPECIALIST_ACTIONS: dict[str, dict[str, JSONSchema]] = {n: dict(a.params) for n, a in ACTIONS.items()} | {
    "done": DONE_PARAMS
}


def _action_schema(name: str, params: dict[str, JSONSchema]) -> JSONSchema:
    return closed_object({name: closed_object(params)})


SPECIALIST_SCHEMA: JSONSchema = reply_schema([_action_schema(n, p) for n, p in SPECIALIST_ACTIONS.items()])
SPECIALIST_RESPONSE_FORMAT = json_schema_format("specialist_output", SPECIALIST_SCHEMA)
