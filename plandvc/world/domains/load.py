"""Read a domain file (`<key>.toml` in this folder) into a `Domain`: checked once against its JSON Schema
(`domain.schema.json`, which says each key's type), then read as typed records.

A domain is data, so it is written as data: its site names and words, then its two tables, each a list of
columns. A column names how its values are drawn by exactly one of these keys (the rest are its options):

| key | the column | options |
|---|---|---|
| `words = [[...], ...]` | text: a word from each list, joined by `sep` (default a space) | `sep` |
| `sentences = [...]` | text: one template, `{0}`, `{1}`, … filled from `parts` | `parts` (required) |
| `person = true` | text: a full name from the shared name lists | |
| `code = "<prefix>"` | text: the prefix and a number of `digits` (default 5), then `suffix` | `digits`, `suffix` |
| `enum = [...]` | one of the values (`weights` make some common, `badge` shows a status badge) | `weights`, `badge` |
| `number = [lo, hi]` | a number in [lo, hi] with `decimals` places; `nice` prices, `stars` a rating | `decimals`, `prefix`, `suffix`, `nice`, `stars` |
| `days = [lo, hi]` | an ISO date lo..hi days from the site's today | |

In a word list, `"@CITIES"` (an `@` and a name in capitals) stands for the shared vocabulary of that name
(plandvc/world/vocab.py), in place; any other word is itself (`"@mail.example"`). A number keeps its TOML type
(`[50, 900]`, not `[50.0, 900.0]`, for a column of whole numbers).

`read_toml` (a TOML file checked against a JSON Schema) also reads the world's look options, `../looks.toml`.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import NotRequired, TypedDict, cast

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from plandvc.errors import InputError
from plandvc.io import error_key
from plandvc.world import vocab
from plandvc.world.fields import Code, Domain, Field, Maker, Person, Sentence, TableDef, Words
from plandvc.world.kit import date, enum, num, text

SCHEMA = Path(__file__).with_name("domain.schema.json")
KINDS = ("words", "sentences", "person", "code", "enum", "number", "days")  # how a column is drawn: one each


class ColumnFile(TypedDict, total=False):
    """A column as the file holds it (the schema has checked every type)."""

    name: str
    label: str
    words: list[list[str]]
    sep: str
    sentences: list[str]
    parts: list[list[str]]
    person: bool
    code: str
    digits: int
    suffix: str
    enum: list[str]
    weights: list[float]
    badge: bool
    number: list[float]
    decimals: int
    prefix: str
    nice: bool
    stars: bool
    days: list[int]
    distinct: bool
    v4: ColumnFile  # the keys world data v4 draws the column with, in place of its own


class TableFile(TypedDict):
    name: str
    title: str
    singular: str
    id_prefix: str
    label: str
    dropdown: str
    options: str
    slider: str
    date: str
    sort: list[str]
    search: list[str]
    text: NotRequired[str]
    create: NotRequired[list[str]]
    edit: NotRequired[list[str]]
    copy: NotRequired[str]
    slider_label: NotRequired[str]
    date_label: NotRequired[str]
    fields: list[ColumnFile]


class DomainFile(TypedDict):
    key: str
    title: str
    names: list[str]
    tagline: str
    hero: str
    tables: list[TableFile]


@cache
def _validator(schema: Path) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema.read_text(encoding="utf-8")))


def _schema_error(path: Path, e: ValidationError) -> InputError:
    where = error_key(e)
    if e.validator == "required":
        reason = "missing"
    elif e.validator in ("additionalProperties", "unevaluatedProperties"):
        extra = re.findall(r"'([^']+)'", e.message)
        reason = f"unknown key {extra[0]!r}" if extra else e.message
    else:
        reason = e.message
    return InputError(f"{path}: {where + ': ' if where else ''}{reason}")


def _words(parts: list[list[str]], path: Path, where: str) -> tuple[tuple[str, ...], ...]:
    """Word lists with each `@NAME` replaced by the shared vocabulary of that name."""
    out = []
    for part in parts:
        words: list[str] = []
        for w in part:
            if not re.fullmatch(r"@[A-Z_]+", w):
                words.append(w)
            elif (shared := vars(vocab).get(w[1:])) is not None:
                words.extend(shared)
            else:
                raise InputError(f"{path}: {where}: no shared vocabulary {w!r}")
        out.append(tuple(words))
    return tuple(out)


def _maker(c: ColumnFile, path: Path, where: str) -> Maker:
    """How a text column's values are drawn."""
    if "words" in c:
        return Words(_words(c["words"], path, f"{where}.words"), c.get("sep", " "), c.get("distinct", False))
    if "sentences" in c:
        return Sentence(tuple(c["sentences"]), _words(c["parts"], path, f"{where}.parts"))
    if "code" in c:
        return Code(c["code"], c.get("digits", 5), c.get("suffix", ""))
    return Person()


def column(c: ColumnFile, path: Path, where: str) -> Field:
    """One column: its name, label and the one key that says how its values are drawn."""
    kinds = [k for k in KINDS if k in c]
    if len(kinds) != 1:
        raise InputError(
            f"{path}: {where}: needs exactly one of {', '.join(KINDS)} (has {', '.join(kinds) or 'none'})"
        )
    name, label = c["name"], c["label"]
    if "v4" in c and kinds[0] not in ("words", "sentences"):
        raise InputError(f"{path}: {where}.v4: only a words or sentences column has a v4 way of drawing")
    if "enum" in c:
        weights = tuple(float(w) for w in c.get("weights", []))
        return enum(name, label, tuple(c["enum"]), badge=c.get("badge", False), weights=weights)
    if "days" in c:
        return date(name, label, c["days"][0], c["days"][1])
    if "number" in c:
        lo, hi = c["number"]
        return num(
            name, label, lo, hi, decimals=c.get("decimals", 0), prefix=c.get("prefix", ""),
            suffix=c.get("suffix", ""), nice=c.get("nice", False), stars=c.get("stars", False),
        )  # fmt: skip
    made = text(name, label, _maker(c, path, where))
    if "v4" not in c:
        return made
    v4 = c["v4"]
    own = {k: v for k, v in c.items() if k not in ("words", "sep", "sentences", "parts", "v4")}
    drawn = cast(ColumnFile, {**own, **v4} if {"words", "sentences"} & set(v4) else {**c, **v4})
    return replace(made, v4=_maker(drawn, path, f"{where}.v4"))


def table(t: TableFile, path: Path, where: str) -> TableDef:
    """A table of a domain: its page, its columns and which of them the controls, forms and copy button use."""
    fields = tuple(column(c, path, f"{where}.fields[{i}]") for i, c in enumerate(t["fields"]))
    names = {f.column.name for f in fields}
    if len(names) != len(fields):
        raise InputError(f"{path}: {where}.fields: two columns share a name")
    d = TableDef(
        t["name"], t["title"], t["singular"], t["id_prefix"], fields, t["label"], t["dropdown"], t["options"],
        t["slider"], t["date"], tuple(t["sort"]), tuple(t["search"]), text=t.get("text"),
        create=tuple(t.get("create", ())), edit=tuple(t.get("edit", ())), copy=t.get("copy"),
        slider_label=t.get("slider_label", ""), date_label=t.get("date_label", ""),
    )  # fmt: skip
    used = [d.label, d.dropdown, d.options, d.slider, d.date, *d.sort, *d.search, *d.create, *d.edit]
    for k in (d.text, d.copy, *used):
        if k is not None and k not in names:
            raise InputError(f"{path}: {where}: names the column {k!r}, which the table does not have")
    return d


def read_toml(path: Path, schema: Path) -> dict[str, object]:
    """A TOML file checked against a JSON Schema; a bad file or key is one `InputError` naming both."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise InputError(f"{path}: {e}") from e
    errors = list(_validator(schema).iter_errors(data))
    # a value of the wrong type also leaves its key unevaluated: name the type, not the key
    named = [e for e in errors if e.validator != "unevaluatedProperties"] or errors
    if (error := best_match(named)) is not None:
        raise _schema_error(path, error)
    return data


def load_domain(path: Path) -> Domain:
    """The domain in one TOML file; a wrong or missing key is an `InputError` naming the file and the key."""
    d = cast(DomainFile, read_toml(path, SCHEMA))
    if d["key"] != path.stem:
        raise InputError(f"{path}: key: is {d['key']!r}, not the file's name {path.stem!r}")
    if len(d["tables"]) != 2:
        raise InputError(
            f"{path}: tables: has {len(d['tables'])} tables, not 2 (the first is the site's main list)"
        )
    first, second = (table(t, path, f"tables[{i}]") for i, t in enumerate(d["tables"]))
    return Domain(d["key"], d["title"], tuple(d["names"]), d["tagline"], d["hero"], (first, second))
