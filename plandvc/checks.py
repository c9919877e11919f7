"""Gates: does a session's state meet a part's check? Pure functions, no I/O.

`gate(check, verifier, state) -> (ok, detail)`. The state is what a session shows after its steps:
`{"url": last page path?query, "seen": [path?query, ...], "entries": {table: [rows]}, "changes": [change, ...],
"clipboard": [text, ...], "events": [...], "answer": str | None}`; missing keys count as empty. `detail` is one
short line saying what was expected and what was found. A check of an unknown kind, or one missing a key its
kind needs, is an `InputError` (bad input, not a failed gate).

Check kinds (docs/ARCHITECTURE.md, "Pool"):
- `query {path, params}`: the last page has `path` and each listed parameter has these values (compared as
  multisets, so options are order-insensitive; numbers compare by value). Unlisted parameters are ignored, so a
  later part's filter on the same page does not undo an earlier one.
- `visited {path, params?, last?}`: some page seen (with `last`: the last page) has `path` and the listed params.
- `entry_created {table, fields}`: a create change in `table` with these fields, and that entry still present.
- `entry_updated {table, id, fields}`: an update change of that entry with these fields, and the entry has
  them now.
- `answer {expected, number?}`: equal after normalising case, spaces, thousands separators and number format
  (`"1,200.50" == "1200.5"`, `"$120" == "120"`); with `number`, the answer must be that number.
- `clipboard {value}`: some clipboard write equals the value (surrounding spaces ignored).

verifier `{"exclusive": true}`: every change in the checked table is about the checked entry (checks without a
table have nothing more to verify).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from plandvc.io import InputError

State = dict[str, Any]
# the kinds of check a task is gated by, one per way a part can be done
CheckKind = Literal["query", "visited", "entry_created", "entry_updated", "answer", "clipboard"]
Result = tuple[bool, str]

_NEEDS: dict[str, tuple[str, ...]] = {
    "query": ("path", "params"),
    "visited": ("path",),
    "entry_created": ("table", "fields"),
    "entry_updated": ("table", "id", "fields"),
    "answer": ("expected",),
    "clipboard": ("value",),
}
KINDS = frozenset(_NEEDS)

# a number as people write it: optional currency sign, thousands separators, decimals
_NUMBER = re.compile(r"(?<![\w.,-])[$€£]?\s?(-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?![\w-]|[.,]\d)")
_EDGE_PUNCT = " \t\n.,;:!?\"'`"


def gate(check: dict[str, Any], verifier: dict[str, Any] | None, state: State) -> Result:
    """(ok, detail) of one part's check and verifier on a session's state."""
    kind = _validate(check)
    ok, detail = _KIND[kind](check, state)
    if ok and (verifier or {}).get("exclusive") and kind in ("entry_created", "entry_updated"):
        ok, detail = _exclusive(check, state, detail)
    return ok, _line(detail)


def _validate(check: Any) -> str:
    if not isinstance(check, dict):
        raise InputError(f"check: expected an object, got {type(check).__name__}")
    kind = check.get("kind")
    if kind not in _NEEDS:
        raise InputError(f"check: unknown kind {kind!r} (known: {', '.join(sorted(_NEEDS))})")
    for key in _NEEDS[kind]:
        if key not in check:
            raise InputError(f"check {kind}: missing key {key!r}")
    for key in ("params", "fields"):
        if key in check and not isinstance(check[key], dict):
            raise InputError(f"check {kind}: {key!r} must be an object")
    return kind


# ── values ────────────────────────────────────────────────────────────────────


def _number(text: str) -> Decimal | None:
    """The number a whole string writes ("1,200.50", "$120"), or None."""
    m = _NUMBER.fullmatch(text.strip())
    if not m:
        return None
    try:
        return Decimal(m.group(1).replace(",", ""))
    except InvalidOperation:
        return None


def _plain_number(d: Decimal) -> str:
    s = format(d.normalize(), "f")
    return "0" if s in ("-0", "") else s


def normalise_answer(text: Any) -> str:
    """Lower case, single spaces, no edge punctuation, numbers in one format (no separators, no trailing zeros)."""
    s = " ".join(str(text).casefold().split()).strip(_EDGE_PUNCT)

    def fix(m: re.Match[str]) -> str:
        try:
            return _plain_number(Decimal(m.group(1).replace(",", "")))
        except InvalidOperation:
            return m.group(0)

    return _NUMBER.sub(fix, s)


def _canon(value: Any) -> str:
    """One field or query value, for comparison: trimmed text, or the number it writes."""
    s = str(value).strip()
    d = _number(s)
    return _plain_number(d) if d is not None else s


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


def _split(url: str) -> tuple[str, dict[str, list[str]]]:
    parts = urlsplit(url or "")
    path = parts.path.rstrip("/") or "/"
    return path, parse_qs(parts.query)


def _params_differ(want: dict[str, Any], got: dict[str, list[str]]) -> list[str]:
    """The listed params whose values differ, as 'name=expected (found ...)' strings."""
    bad = []
    for name, value in sorted(want.items()):
        expected = sorted(_canon(v) for v in _as_list(value))
        found = sorted(_canon(v) for v in got.get(name, []))
        if expected != found:
            bad.append(f"{name}={expected} (found {found})")
    return bad


def _fields_differ(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    return [
        f"{k}={v!r} (found {got.get(k)!r})"
        for k, v in sorted(want.items())
        if k not in got or _canon(got[k]) != _canon(v)
    ]


def _fmt_params(params: dict[str, Any]) -> str:
    return "&".join(f"{k}={v}" for k, v in sorted(params.items()))


# ── kinds ─────────────────────────────────────────────────────────────────────


def _query(check: dict[str, Any], state: State) -> Result:
    url = state.get("url")
    want = f"{check['path']}?{_fmt_params(check['params'])}"
    if not url:
        return False, f"query: expected {want}, found no page"
    path, got = _split(url)
    if path != _split(check["path"])[0]:
        return False, f"query: expected page {check['path']}, found {url}"
    bad = _params_differ(check["params"], got)
    if bad:
        return False, f"query: on {path} expected {'; '.join(bad)}"
    return True, f"query: {want} ok"


def _visited(check: dict[str, Any], state: State) -> Result:
    params = check.get("params") or {}
    if not isinstance(params, dict):
        raise InputError("check visited: 'params' must be an object")
    path = _split(check["path"])[0]
    want = check["path"] + (f"?{_fmt_params(params)}" if params else "")
    if check.get("last"):
        url = state.get("url") or (state.get("seen") or [None])[-1]
        pages = [url] if url else []
    else:
        pages = list(state.get("seen") or [])
    for page in pages:
        p, got = _split(page)
        if p == path and not _params_differ(params, got):
            return True, f"visited: {want}{' (last)' if check.get('last') else ''} ok"
    found = pages[-1] if pages else "no page"
    where = "last page" if check.get("last") else f"{len(pages)} pages seen, last"
    return False, f"visited: expected {want}, {where} {found}"


def _rows(state: State, table: str) -> list[dict[str, Any]]:
    return list((state.get("entries") or {}).get(table) or [])


def _row_id(row: dict[str, Any]) -> Any:
    """An entry's id: its `id` column, else its first column (the key comes first in a spec)."""
    return row["id"] if "id" in row else next(iter(row.values()), None)


def _changes(state: State, table: str, op: str | None = None) -> list[dict[str, Any]]:
    return [
        c for c in state.get("changes") or [] if c.get("table") == table and (op is None or c.get("op") == op)
    ]


def _entry_created(check: dict[str, Any], state: State) -> Result:
    table, fields = check["table"], check["fields"]
    creates = _changes(state, table, "create")
    matching = [c for c in creates if not _fields_differ(fields, c.get("fields") or {})]
    if not matching:
        if not creates:
            return (
                False,
                f"entry_created: expected a new {table} entry with {_fmt_params(fields)}, found none",
            )
        near = _fields_differ(fields, creates[-1].get("fields") or {})
        return False, f"entry_created: {table} #{creates[-1].get('id')} differs: {'; '.join(near)}"
    ids = {str(_row_id(r)) for r in _rows(state, table)}
    for c in reversed(matching):
        if str(c.get("id")) in ids:
            return True, f"entry_created: {table} #{c.get('id')} with {_fmt_params(fields)} ok"
    return False, f"entry_created: {table} #{matching[-1].get('id')} was created but is not in the entries"


def _entry_updated(check: dict[str, Any], state: State) -> Result:
    table, eid, fields = check["table"], str(check["id"]), check["fields"]
    updates = [c for c in _changes(state, table, "update") if str(c.get("id")) == eid]
    row = next((r for r in _rows(state, table) if str(_row_id(r)) == eid), None)
    if row is None:
        return False, f"entry_updated: expected {table} #{eid}, found no such entry"
    if not updates:
        return False, f"entry_updated: expected an update of {table} #{eid}, found none"
    merged: dict[str, Any] = {}
    for c in updates:
        merged.update(c.get("fields") or {})
    bad = _fields_differ(fields, merged) or _fields_differ(fields, row)
    if bad:
        return False, f"entry_updated: {table} #{eid} differs: {'; '.join(bad)}"
    return True, f"entry_updated: {table} #{eid} with {_fmt_params(fields)} ok"


def _answer(check: dict[str, Any], state: State) -> Result:
    got, expected = state.get("answer"), check["expected"]
    if got is None:
        return False, f"answer: expected {expected!r}, found no answer"
    if check.get("number"):
        a, b = _number(str(got)), _number(str(expected))
        if b is None:
            raise InputError(f"check answer: expected {expected!r} is not a number")
        ok = a is not None and a == b
    else:
        ok = normalise_answer(got) == normalise_answer(expected)
    return ok, f"answer: expected {expected!r}, found {got!r}" + (" ok" if ok else "")


def _clipboard(check: dict[str, Any], state: State) -> Result:
    value = str(check["value"]).strip()
    clip = [str(x) for x in state.get("clipboard") or []]
    if any(x.strip() == value for x in clip):
        return True, f"clipboard: {value!r} ok"
    return False, f"clipboard: expected {value!r}, found {clip[-3:] if clip else 'nothing copied'}"


def _exclusive(check: dict[str, Any], state: State, detail: str) -> Result:
    """No change in the checked table about another entry than the checked one."""
    table = check["table"]
    if check["kind"] == "entry_updated":
        eid = str(check["id"])
    else:
        matching = [
            c
            for c in _changes(state, table, "create")
            if not _fields_differ(check["fields"], c.get("fields") or {})
        ]
        eid = str(matching[-1].get("id"))
    others = [c for c in _changes(state, table) if str(c.get("id")) != eid]
    if others:
        o = others[0]
        return (
            False,
            f"exclusive: {len(others)} other change(s) in {table}, e.g. {o.get('op')} #{o.get('id')}",
        )
    return True, detail + " (exclusive)"


def _line(detail: str, limit: int = 240) -> str:
    s = " ".join(detail.split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


_KIND: dict[str, Callable[[dict[str, Any], State], Result]] = {
    "query": _query,
    "visited": _visited,
    "entry_created": _entry_created,
    "entry_updated": _entry_updated,
    "answer": _answer,
    "clipboard": _clipboard,
}
