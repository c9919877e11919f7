"""JSON read from a file, checked against a JSON Schema once, with a one-line error that names the entry.

A schema marks the places an error is reported from with `x-error` (a message; `{value}` is the offending
value) and, for a leaf such as a key, `x-parent` (report it at the record holding it). The error of a
value is the message of the deepest marked schema on its path, said at that schema's place in the value:
`manifest.json: chains[3]: key '../x' is not a chain folder name`. After the check the value has the
schema's shape, so the readers build typed records from it without re-checking types.
"""

from __future__ import annotations

from collections.abc import Mapping

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from plandvc.io import InputError, json_path

Schema = Mapping[str, object]
_ONE_DEEPER = ("items", "additionalProperties")
_NAMED = ("properties", "patternProperties")
_BRANCH = ("anyOf", "oneOf", "allOf")


def _marked(root: Schema, error: ValidationError) -> tuple[str | None, int]:
    """(the deepest `x-error` on the error's schema path, how many steps into the value it applies)."""
    schema: object = root
    found: tuple[str | None, int] = (None, 0)
    depth, steps = 0, list(error.absolute_schema_path)
    while steps and isinstance(schema, Mapping):
        word = steps.pop(0)
        if word in _NAMED or word in _BRANCH:
            schema, depth = schema[word][steps.pop(0)], depth + (word in _NAMED)
        elif word in _ONE_DEEPER or word == "propertyNames":
            schema, depth = schema[word], depth + (word in _ONE_DEEPER)
        else:
            break
        if isinstance(schema, Mapping) and "x-error" in schema:
            found = (str(schema["x-error"]), depth - bool(schema.get("x-parent")))
    return found


def shape_error(root: Schema, validator: Draft202012Validator, value: object) -> str | None:
    """Why `value` does not have the schema's shape, in one line (None when it has)."""
    error = next(validator.iter_errors(value), None)
    if error is None:
        return None
    message, depth = _marked(root, error)
    if message is None:
        message, depth = error.message[:200], len(error.absolute_path)
    place = json_path(list(error.absolute_path)[:depth])
    return (f"{place}: " if place else "") + message.replace("{value}", repr(error.instance)[:80])


def check_shape(
    root: Schema,
    validator: Draft202012Validator,
    value: object,
    where: str,
    error: type[InputError] = InputError,
) -> None:
    """An `error` `<where>: <the problem>` unless `value` has the schema's shape."""
    problem = shape_error(root, validator, value)
    if problem is not None:
        raise error(f"{where}: {problem}")
