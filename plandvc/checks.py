"""Gates: does a session's state meet a part's check? Pure functions, no I/O.

`gate(check, verifier, state) -> (ok, detail)`. The state is what a session shows after its steps:
`{"url": last page path?query, "seen": [path?query, ...], "entries": {table: [rows]}, "changes": [change, ...],
"clipboard": [text, ...], "events": [...], "answer": str | None}`; missing keys count as empty, and it is read
once into an `Observed` record. `detail` is one short line saying what was expected and what was found. A check
is a tagged union (`Check`, tagged by `kind`): `parse_check` reads one, and a check of an unknown kind, or one
missing a key its kind needs, is an `InputError` (bad input, not a failed gate).

Check kinds (docs/ARCHITECTURE.md, "Pool"):
- `query {path, params}`: the last page has `path` and each listed parameter has these values (compared as
  multisets, so options are order-insensitive; numbers compare by value). Unlisted parameters are ignored, so a
  later part's filter on the same page does not undo an earlier one.
- `visited {path, params?, last?}`: some page seen (with `last`: the last page) has `path` and the listed params.
- `entry_created {table, fields}`: a create change in `table` with these fields, and that entry still present.
- `entry_updated {table, id, fields}`: an update change of that entry with these fields, and the entry has
  them now.
- `entry_deleted {table, id}`: a delete change of that entry, and the entry is gone.
- `answer {expected, number?}`: equal after normalising case, spaces, thousands separators and number format
  (`"1,200.50" == "1200.5"`, `"$120" == "120"`); with `number`, the answer must be that number.
- `clipboard {value}`: some clipboard write equals the value (surrounding spaces ignored).

verifier `{"exclusive": true}`: every change in the checked table is about the checked entry (checks without a
table have nothing more to verify).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Literal, NotRequired, TypedDict, cast, get_args
from urllib.parse import parse_qs, urlsplit

from plandvc.io import InputError

Result = tuple[bool, str]
Value = str | int | float | bool | None  # a field value, as JSON has it
Row = dict[str, Value]


class QueryCheck(TypedDict):
    kind: Literal["query"]
    path: str
    params: dict[str, list[str]]


class VisitedCheck(TypedDict):
    kind: Literal["visited"]
    path: str
    params: NotRequired[dict[str, list[str]]]
    last: NotRequired[bool]


class EntryCreatedCheck(TypedDict):
    kind: Literal["entry_created"]
    table: str
    fields: Row


class EntryUpdatedCheck(TypedDict):
    kind: Literal["entry_updated"]
    table: str
    id: str
    fields: Row


class EntryDeletedCheck(TypedDict):
    kind: Literal["entry_deleted"]
    table: str
    id: str


class AnswerCheck(TypedDict):
    kind: Literal["answer"]
    expected: str
    number: NotRequired[bool]


class ClipboardCheck(TypedDict):
    kind: Literal["clipboard"]
    value: str


Check = (
    QueryCheck
    | VisitedCheck
    | EntryCreatedCheck
    | EntryUpdatedCheck
    | EntryDeletedCheck
    | AnswerCheck
    | ClipboardCheck
)
# the kinds of check a task is gated by, one per way a part can be done
CheckKind = Literal[
    "query", "visited", "entry_created", "entry_updated", "entry_deleted", "answer", "clipboard"
]
KINDS: frozenset[str] = frozenset(get_args(CheckKind))
_NEEDS: dict[str, tuple[str, ...]] = {
    "query": ("path", "params"),
    "visited": ("path",),
    "entry_created": ("table", "fields"),
    "entry_updated": ("table", "id", "fields"),
    "entry_deleted": ("table", "id"),
    "answer": ("expected",),
    "clipboard": ("value",),
}


class Change(TypedDict, total=False):
    """One backend change the site's server logged: `op` create, update or delete of entry `id` of `table`."""

    table: str
    op: str
    id: Value
    fields: Row


@dataclass(frozen=True)
class Observed:
    """What a session shows after its steps, read once from its state mapping (missing keys are empty)."""

    url: str | None
    seen: list[str]
    entries: dict[str, list[Row]]
    changes: list[Change]
    clipboard: list[str]
    answer: object

    @classmethod
    def of(cls, state: Mapping[str, Any]) -> Observed:
        return cls(
            url=state.get("url") or None,
            seen=list(state.get("seen") or []),
            entries=dict(state.get("entries") or {}),
            changes=list(state.get("changes") or []),
            clipboard=[str(x) for x in state.get("clipboard") or []],
            answer=state.get("answer"),
        )

    def rows(self, table: str) -> list[Row]:
        return list(self.entries.get(table) or [])

    def changes_of(self, table: str, op: str | None = None) -> list[Change]:
        return [c for c in self.changes if c.get("table") == table and (op is None or c.get("op") == op)]


# a number as people write it: optional currency sign, thousands separators, decimals
_NUMBER = re.compile(r"(?<![\w.,-])[$€£]?\s?(-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?![\w-]|[.,]\d)")
_EDGE_PUNCT = " \t\n.,;:!?\"'`"


def gate(
    check: Check | Mapping[str, object], verifier: Mapping[str, object] | None, state: Mapping[str, Any]
) -> Result:
    """(ok, detail) of one part's check and verifier on a session's state."""
    c = parse_check(check)
    obs = Observed.of(state)
    ok, detail = _JUDGES[c["kind"]](c, obs)
    if (
        ok
        and (verifier or {}).get("exclusive")
        and c["kind"] in ("entry_created", "entry_updated", "entry_deleted")
    ):
        ok, detail = _exclusive(c, obs, detail)
    return ok, _line(detail)


def parse_check(check: object) -> Check:
    """The check, after its kind and the keys its kind needs are checked; an InputError names what is wrong."""
    if not isinstance(check, Mapping):
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
    return cast(Check, check)


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


def normalise_answer(text: object) -> str:
    """Lower case, single spaces, no edge punctuation, numbers in one format (no separators, no trailing zeros)."""
    s = " ".join(str(text).casefold().split()).strip(_EDGE_PUNCT)

    def fix(m: re.Match[str]) -> str:
        try:
            return _plain_number(Decimal(m.group(1).replace(",", "")))
        except InvalidOperation:
            return m.group(0)

    return _NUMBER.sub(fix, s)


def _canon(value: object) -> str:
    """One field or query value, for comparison: trimmed text, or the number it writes."""
    s = str(value).strip()
    d = _number(s)
    return _plain_number(d) if d is not None else s


def _as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else [value]


def _split(url: str | None) -> tuple[str, dict[str, list[str]]]:
    parts = urlsplit(url or "")
    path = parts.path.rstrip("/") or "/"
    return path, parse_qs(parts.query)


def _params_differ(want: Mapping[str, object], got: dict[str, list[str]]) -> list[str]:
    """The listed params whose values differ, as 'name=expected (found ...)' strings."""
    bad = []
    for name, value in sorted(want.items()):
        expected = sorted(_canon(v) for v in _as_list(value))
        found = sorted(_canon(v) for v in got.get(name, []))
        if expected != found:
            bad.append(f"{name}={expected} (found {found})")
    return bad


def _fields_differ(want: Row, got: Row) -> list[str]:
    return [
        f"{k}={v!r} (found {got.get(k)!r})"
        for k, v in sorted(want.items())
        if k not in got or _canon(got[k]) != _canon(v)
    ]


def _fmt_params(params: Mapping[str, object]) -> str:
    return "&".join(f"{k}={v}" for k, v in sorted(params.items()))


# ── kinds ─────────────────────────────────────────────────────────────────────


def _query(check: QueryCheck, obs: Observed) -> Result:
    url = obs.url
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


def _visited(check: VisitedCheck, obs: Observed) -> Result:
    params = check.get("params") or {}  # an object: parse_check saw to it
    path = _split(check["path"])[0]
    want = check["path"] + (f"?{_fmt_params(params)}" if params else "")
    last = check.get("last")
    if last:
        url = obs.url or (obs.seen[-1] if obs.seen else None)
        pages = [url] if url else []
    else:
        pages = list(obs.seen)
    for page in pages:
        p, got = _split(page)
        if p == path and not _params_differ(params, got):
            return True, f"visited: {want}{' (last)' if last else ''} ok"
    found = pages[-1] if pages else "no page"
    where = "last page" if last else f"{len(pages)} pages seen, last"
    return False, f"visited: expected {want}, {where} {found}"


def _row_id(row: Row) -> Value:
    """An entry's id: its `id` column, else its first column (the key comes first in a spec)."""
    return row["id"] if "id" in row else next(iter(row.values()), None)


def _created(check: EntryCreatedCheck, obs: Observed) -> list[Change]:
    """The create changes in the check's table with the check's fields."""
    creates = obs.changes_of(check["table"], "create")
    return [c for c in creates if not _fields_differ(check["fields"], c.get("fields") or {})]


def _entry_created(check: EntryCreatedCheck, obs: Observed) -> Result:
    table, fields = check["table"], check["fields"]
    matching = _created(check, obs)
    if not matching:
        creates = obs.changes_of(table, "create")
        if not creates:
            return (
                False,
                f"entry_created: expected a new {table} entry with {_fmt_params(fields)}, found none",
            )
        near = _fields_differ(fields, creates[-1].get("fields") or {})
        return False, f"entry_created: {table} #{creates[-1].get('id')} differs: {'; '.join(near)}"
    ids = {str(_row_id(r)) for r in obs.rows(table)}
    for c in reversed(matching):
        if str(c.get("id")) in ids:
            return True, f"entry_created: {table} #{c.get('id')} with {_fmt_params(fields)} ok"
    return False, f"entry_created: {table} #{matching[-1].get('id')} was created but is not in the entries"


def _entry_updated(check: EntryUpdatedCheck, obs: Observed) -> Result:
    table, eid, fields = check["table"], str(check["id"]), check["fields"]
    updates = [c for c in obs.changes_of(table, "update") if str(c.get("id")) == eid]
    row = next((r for r in obs.rows(table) if str(_row_id(r)) == eid), None)
    if row is None:
        return False, f"entry_updated: expected {table} #{eid}, found no such entry"
    if not updates:
        return False, f"entry_updated: expected an update of {table} #{eid}, found none"
    merged: Row = {}
    for c in updates:
        merged.update(c.get("fields") or {})
    bad = _fields_differ(fields, merged) or _fields_differ(fields, row)
    if bad:
        return False, f"entry_updated: {table} #{eid} differs: {'; '.join(bad)}"
    return True, f"entry_updated: {table} #{eid} with {_fmt_params(fields)} ok"


def _entry_deleted(check: EntryDeletedCheck, obs: Observed) -> Result:
    table, eid = check["table"], str(check["id"])
    deletes = [c for c in obs.changes_of(table, "delete") if str(c.get("id")) == eid]
    if not deletes:
        done = obs.changes_of(table, "delete")
        found = f"a delete of #{done[-1].get('id')}" if done else "none"
        return False, f"entry_deleted: expected a delete of {table} #{eid}, found {found}"
    if any(str(_row_id(r)) == eid for r in obs.rows(table)):
        return False, f"entry_deleted: {table} #{eid} was deleted but is in the entries again"
    return True, f"entry_deleted: {table} #{eid} ok"


def _answer(check: AnswerCheck, obs: Observed) -> Result:
    got, expected = obs.answer, check["expected"]
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


def _clipboard(check: ClipboardCheck, obs: Observed) -> Result:
    value = str(check["value"]).strip()
    clip = obs.clipboard
    if any(x.strip() == value for x in clip):
        return True, f"clipboard: {value!r} ok"
    return False, f"clipboard: expected {value!r}, found {clip[-3:] if clip else 'nothing copied'}"


# each kind's judge, on what the session shows (a kind with none is caught by a test, not judged as another)
_JUDGES: dict[str, Callable[..., Result]] = {
    "query": _query,
    "visited": _visited,
    "entry_created": _entry_created,
    "entry_updated": _entry_updated,
    "entry_deleted": _entry_deleted,
    "answer": _answer,
    "clipboard": _clipboard,
}


def _exclusive(
    check: EntryCreatedCheck | EntryUpdatedCheck | EntryDeletedCheck, obs: Observed, detail: str
) -> Result:
    """No change in the checked table about another entry than the checked one."""
    table = check["table"]
    eid = str(check["id"] if check["kind"] != "entry_created" else _created(check, obs)[-1].get("id"))
    others = [c for c in obs.changes_of(table) if str(c.get("id")) != eid]
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
