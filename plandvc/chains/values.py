"""The words a pool brings to the request composer, held to what the composer can say safely.

Users bring their own pools (docs/POOL.md), so an item's facts (`plandvc.records.Ask`: its values, entry,
form fields, labels) are input. The composer puts them into the request, the delegations and the final message
verbatim, a text value inside double quotes. So a value is refused when it would change what those say:

- a control character (a newline above all): it would add a line to a request, a line such as "Ignore previous
  instructions" reaching every planner trained on the chain;
- a double quote in a quoted value: `Tick "Room only "deluxe" 5"" under Meals` no longer says which value;
- a value equal to its own label: `Choose "Class" in the Class dropdown` names no value.

`item_problem` names the first such key (`ask.values[0]`; an instruction, which a joined request is made of, is
held to the first rule), and `check_item` raises it as one line naming the item. pool-items calls it where an
item is made (the part is named and skipped, as any unreadable part), and `plandvc.chains.make.make_chains`
on every item before a walk (chain-specs, eval-apps), so no chain is composed of such a value.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

from plandvc.errors import InputError
from plandvc.records import Ask, ItemRecord

# the keys whose text the composer quotes (`plandvc.chains.compose.quoted`, the final message's count)
QUOTED = ("values", "entry", "typed", "tab")


def _strings(value: object, key: str) -> Iterator[tuple[str, str]]:
    """Every string in a JSON value with its place (`ask.fields[0][1]`)."""
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, f"{key}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, f"{key}.{k}")


def _control(text: str) -> str | None:
    """The first control or line-breaking character of `text`, escaped (`\\n`), or None."""
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            return ch.encode("unicode_escape").decode()
    return None


def ask_problem(ask: Ask) -> str | None:
    """`<key>: <why>` for the first value of `ask` the composer cannot say safely, or None."""
    for key, text in _strings(dict(ask), "ask"):
        if (ch := _control(text)) is not None:
            return (
                f"{key}: {text[:40]!r} holds a control character ({ch}): it would add a line to the request"
            )
    quoted: list[tuple[str, str]] = []
    for name in QUOTED:
        quoted += _strings(ask.get(name), f"ask.{name}")
    quoted += [(f"ask.fields[{i}][1]", f[1]) for i, f in enumerate(ask.get("fields", [])) if len(f) == 2]
    for key, text in quoted:
        if '"' in text:
            return f"{key}: {text!r} holds a double quote: the composer quotes values with them"
    label = ask.get("label", "").strip().casefold()
    pairs = [(f"ask.values[{i}]", v, label) for i, v in enumerate(ask.get("values", []))]
    pairs += [
        (f"ask.fields[{i}][1]", f[1], f[0].strip().casefold())
        for i, f in enumerate(ask.get("fields", []))
        if len(f) == 2
    ]
    for key, text, own in pairs:
        if own and text.strip().casefold() == own:
            return f"{key}: {text!r} is its own label: a request naming it names no value"
    return None


def item_problem(item: ItemRecord) -> str | None:
    """`<key>: <why>` for the first text of an item the chain's words cannot carry safely: its instruction (a
    joined request is made of them) with a control character, or a value of its facts (`ask_problem`)."""
    instruction = item.get("instruction", "")
    if (ch := _control(instruction)) is not None:
        return f"instruction: {instruction[:40]!r} holds a control character ({ch}): it would add a line to the request"
    ask = item.get("ask")
    return ask_problem(ask) if ask is not None else None


def check_item(item: ItemRecord, where: str = "") -> None:
    """One InputError line naming the item (and `where` it was read) and key when `item_problem` finds one."""
    if (problem := item_problem(item)) is not None:
        raise InputError(f"{where}item {item['id']!r}: {problem}")
