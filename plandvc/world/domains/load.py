"""Read a domain file (`<key>.toml` in this folder) into a `Domain`, checking every key on the way.

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
(plandvc/world/vocab.py), in place; any other word is itself (`"@mail.example"`).
A number keeps its TOML type (`[50, 900]`, not `[50.0, 900.0]`, for a column of whole numbers).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from plandvc.errors import InputError
from plandvc.world import vocab
from plandvc.world.fields import Code, Domain, Field, Maker, Person, Sentence, TableDef, Words
from plandvc.world.kit import date, enum, num, text

T = TypeVar("T")
Toml = Mapping[str, object]

DOMAIN_KEYS = ("key", "title", "names", "tagline", "hero", "tables")
TABLE_KEYS = (
    "name", "title", "singular", "id_prefix", "label", "dropdown", "options", "slider", "date", "sort", "search",
    "text", "create", "edit", "copy", "slider_label", "date_label", "fields",
)  # fmt: skip
# the key that says how a column is drawn, and the options each allows
COLUMN_KINDS: dict[str, tuple[str, ...]] = {
    "words": ("sep",),
    "sentences": ("parts",),
    "person": (),
    "code": ("digits", "suffix"),
    "enum": ("weights", "badge"),
    "number": ("decimals", "prefix", "suffix", "nice", "stars"),
    "days": (),
}


class Reader:
    """Takes typed values out of one TOML table, naming the file and the key path of anything wrong."""

    def __init__(self, path: Path, where: str, data: Toml, allowed: tuple[str, ...]) -> None:
        self.path, self.where, self.data = path, where, data
        extra = sorted(set(data) - set(allowed))
        if extra:
            raise self.error(f"unknown key {extra[0]!r} (allowed: {', '.join(allowed)})")

    def error(self, message: str, key: str | None = None) -> InputError:
        at = f"{self.where}.{key}" if key and self.where else key or self.where
        return InputError(f"{self.path}: {at + ': ' if at else ''}{message}")

    def get(self, key: str, kind: type[T], default: T | None = None) -> T:
        if key not in self.data:
            if default is None:
                raise self.error("missing", key)
            return default
        value = self.data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.error(f"is {type(value).__name__}, not {kind.__name__}", key)
        return value

    def optional(self, key: str) -> str | None:
        return self.get(key, str) if key in self.data else None

    def strings(self, key: str, default: tuple[str, ...] | None = None) -> tuple[str, ...]:
        values = self.get(key, list, None if default is None else [])
        if key not in self.data and default is not None:
            return default
        if not all(isinstance(v, str) for v in values):
            raise self.error("is not a list of strings", key)
        return tuple(values)

    def words(self, key: str) -> tuple[tuple[str, ...], ...]:
        """A list of word lists; `@NAME` stands for a shared vocabulary."""
        parts = self.get(key, list)
        if not parts or not all(
            isinstance(p, list) and p and all(isinstance(w, str) for w in p) for p in parts
        ):
            raise self.error("is not a list of non-empty lists of strings", key)
        return tuple(tuple(w for word in part for w in self.expand(word, key)) for part in parts)

    def expand(self, word: str, key: str) -> tuple[str, ...]:
        if not re.fullmatch(r"@[A-Z_]+", word):
            return (word,)
        shared = getattr(vocab, word[1:], None)
        if not isinstance(shared, tuple):
            raise self.error(f"no shared vocabulary {word!r}", key)
        return shared

    def tables(self, key: str) -> list[Toml]:
        value = self.get(key, list)
        if not all(isinstance(v, dict) for v in value):
            raise self.error("is not a list of tables", key)
        return value


def column(path: Path, where: str, data: Toml) -> Field:
    """One column: its name, label and the one key that says how its values are drawn."""
    kinds = [k for k in COLUMN_KINDS if k in data]
    if len(kinds) != 1:
        has = ", ".join(kinds) or "none"
        raise InputError(f"{path}: {where}: needs exactly one of {', '.join(COLUMN_KINDS)} (has {has})")
    kind = kinds[0]
    r = Reader(path, where, data, ("name", "label", kind, *COLUMN_KINDS[kind]))
    name, label = r.get("name", str), r.get("label", str)
    if kind == "enum":
        weights = tuple(float(w) for w in r.get("weights", list, []))
        return enum(name, label, r.strings("enum"), badge=r.get("badge", bool, False), weights=weights)
    if kind in ("number", "days"):
        bounds = r.get(kind, list)
        if len(bounds) != 2 or not all(
            isinstance(b, int | float) and not isinstance(b, bool) for b in bounds
        ):
            raise r.error("is not [lo, hi]", kind)
        if kind == "days":
            return date(name, label, int(bounds[0]), int(bounds[1]))
        return num(
            name, label, bounds[0], bounds[1], decimals=r.get("decimals", int, 0), prefix=r.get("prefix", str, ""),
            suffix=r.get("suffix", str, ""), nice=r.get("nice", bool, False), stars=r.get("stars", bool, False),
        )  # fmt: skip
    return text(name, label, MAKERS[kind](r))


MAKERS: dict[str, Callable[[Reader], Maker]] = {
    "words": lambda r: Words(r.words("words"), r.get("sep", str, " ")),
    "sentences": lambda r: Sentence(r.strings("sentences"), r.words("parts")),
    "person": lambda r: Person(),
    "code": lambda r: Code(r.get("code", str), r.get("digits", int, 5), r.get("suffix", str, "")),
}


def table(r: Reader) -> TableDef:
    """A table of a domain: its page, its columns and which of them the controls, forms and copy button use."""
    fields = tuple(column(r.path, f"{r.where}.fields[{i}]", d) for i, d in enumerate(r.tables("fields")))
    names = {f.column.name for f in fields}
    if len(names) != len(fields):
        raise r.error("two columns share a name", "fields")
    s = r.get
    t = TableDef(
        s("name", str), s("title", str), s("singular", str), s("id_prefix", str), fields, s("label", str),
        s("dropdown", str), s("options", str), s("slider", str), s("date", str), r.strings("sort"),
        r.strings("search"), text=r.optional("text"), create=r.strings("create", ()), edit=r.strings("edit", ()),
        copy=r.optional("copy"), slider_label=s("slider_label", str, ""), date_label=s("date_label", str, ""),
    )  # fmt: skip
    used = [t.label, t.dropdown, t.options, t.slider, t.date, *t.sort, *t.search, *t.create, *t.edit]
    for k in (t.text, t.copy, *used):
        if k is not None and k not in names:
            raise r.error(f"names the column {k!r}, which the table does not have")
    return t


def load_domain(path: Path) -> Domain:
    """The domain in one TOML file; a wrong or missing key is an `InputError` naming the file and the key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise InputError(f"{path}: {e}") from e
    r = Reader(path, "", data, DOMAIN_KEYS)
    tables = [table(Reader(path, f"tables[{i}]", d, TABLE_KEYS)) for i, d in enumerate(r.tables("tables"))]
    if len(tables) != 2:
        raise r.error(f"has {len(tables)} tables, not 2 (the first is the site's main list)", "tables")
    key = r.get("key", str)
    if key != path.stem:
        raise r.error(f"is {key!r}, not the file's name {path.stem!r}", "key")
    return Domain(key, r.get("title", str), r.strings("names"), r.get("tagline", str), r.get("hero", str),
                  (tables[0], tables[1]))  # fmt: skip
