"""The `template` reference planner: the project's own inverse of the composer's *training* phrasings, the
floor a planner that "parses the templates" reaches.

Its parsers are derived from the phrasing registry (`plandvc.chains.phrasing.PHRASINGS`), never written by
hand: every training form of a clause kind becomes a regex whose value slots (`{v}`, `{l}`, `{np}`, ...) are
groups (`form_regex`), so a phrasing added to the registry is parsed at once and a held-out one is not. It
reads the request (the lead, hedge, aside and closing forms stripped; a domain's voice sentences too), splits
the body at the training link forms into clauses, each clause into a list's constraints or an entry part, and
delegates them in order, with a trip home between runs (the composer's rule) and the entry parts in the
composer's own delegation words (`ENTRY_WORDS`, `GOAL_DELEGATION`, `HOME_STEP`). From the page it reads only
the site's name (the title), a control's label as the page writes it, and the label of a bare option; from
the history only the last answer, which its `done` repeats. A request it cannot parse gets `done` at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import cast

from plandvc.chains.compose import ENTRY_WORDS, GOAL_DELEGATION, article, lower_label
from plandvc.chains.phrasing import PHRASINGS, SETS, PhrasingSplit
from plandvc.eval.wire import Messages, first_user_text, reply, request_and_turn
from plandvc.macros import FAMILY_OF
from plandvc.macros.home import HOME_STEP
from plandvc.memory.text import DONE_TEXT
from plandvc.records import Ask, GoalStep

_SLOT = re.compile(r"\{(\w+)\}")
# the slots that hold a listing or quotes of their own; any other slot holds no comma, semicolon or quote
_WIDE = frozenset({"np", "f", "vor", "vand", "said", "qv", "x", "X"})
# the slots that hold a list's or an entry's noun: three words at most ("my submissions", "the courses")
_NOUNS = frozenset({"p", "the_p", "s", "tab"})
_NOUN = r'[^\s,;".]+(?: [^\s,;".]+){0,2}?'
# the clause kinds by what they say: a list's constraint, a list run's opening, an entry part
CONSTRAINT_KINDS = ("one", "one.bare", "many", "max", "range", "search", *(
    f"sort.{t}.{d}" for t in ("number", "date", "text") for d in ("asc", "desc")))  # fmt: skip
ENTRY_KINDS = ("open_entry", "edit_entry", "delete_entry", "copy_value", "navigate_to_page", "switch_tab",
               "create_entry")  # fmt: skip
QUESTION_KINDS = ("report_information", "count_entries")
# a constraint kind's macro (one value: a dropdown or options; the planner cannot tell which, both Filter)
CONSTRAINT_MACRO = {"one": "filter_by_dropdown", "one.bare": "filter_by_dropdown", "many": "filter_by_options",
                    "max": "filter_by_slider", "range": "filter_by_date_range", "search": "search_by_text"}  # fmt: skip
SORT, NAVIGATE = "sort_by_form", "navigate_to_page"  # the sort every list part may end on; the hop to a list
DIRECTION = {("number", "asc"): "lowest first", ("number", "desc"): "highest first",
             ("date", "asc"): "oldest first", ("date", "desc"): "newest first",
             ("text", "asc"): "A to Z", ("text", "desc"): "Z to A"}  # fmt: skip


def form_regex(form: str) -> re.Pattern[str]:
    """A phrasing as a regex matching a whole clause: its words literal (case aside), each slot a lazy group
    (inside quotes: no quote), a slot met again a back-reference; a trailing end mark optional."""
    out, seen, at = [], set(), 0
    body = form.rstrip(".?!") if not form.endswith("}") else form
    for m in _SLOT.finditer(body):
        out.append(re.escape(body[at : m.start()]))
        name = m.group(1)
        quoted = body[m.start() - 1 : m.start()] == '"' and body[m.end() : m.end() + 1] == '"'
        slot = '[^"]+?' if quoted else ".+?" if name in _WIDE else _NOUN if name in _NOUNS else '[^,;"]+?'
        out.append(f"(?P={name})" if name in seen else f"(?P<{name}>{slot})")
        seen.add(name)
        at = m.end()
    out.append(re.escape(body[at:]))
    return re.compile("".join(out) + r"[.?!]?", re.I | re.S)


# the registry as dataset v4 was made with it: held-out chains in v3's words (no phrasing recorded) are read by
# it, so v3's params give v3's template replies while the registry grows (issue 46's language review)
FROZEN = Path(__file__).with_name("template_forms_v4.json")
_FROZEN: ContextVar[bool] = ContextVar("template_frozen", default=False)


@cache
def frozen_forms() -> dict[str, tuple[str, ...]]:
    """The registry dataset v4 was made with (`FROZEN`), kind by kind."""
    import json

    return {k: tuple(v) for k, v in json.loads(FROZEN.read_text(encoding="utf-8")).items()}


@contextmanager
def frozen(on: bool) -> Iterator[None]:
    """Read requests by the frozen registry (`on`) or today's within the block."""
    token = _FROZEN.set(on)
    try:
        yield
    finally:
        _FROZEN.reset(token)


def registry(frozen_: bool) -> Mapping[str, Sequence[str]]:
    return frozen_forms() if frozen_ else PHRASINGS


def training_texts(kind: str, seed: int) -> list[str]:
    """`kind`'s training phrasings under the split of `seed`, of the registry in use."""
    forms = registry(_FROZEN.get()).get(kind, ())
    return [forms[i] for i in PhrasingSplit(seed).usable(kind, SETS[0], forms)] if forms else []


@cache
def training_forms(kind: str, seed: int = 0, frozen_: bool = False) -> tuple[re.Pattern[str], ...]:
    """The regexes of `kind`'s training phrasings under the split of `seed` (of the frozen registry with
    `frozen_`)."""
    forms = registry(frozen_).get(kind, ())
    return (
        tuple(form_regex(forms[i]) for i in PhrasingSplit(seed).usable(kind, SETS[0], forms)) if forms else ()
    )


@cache
def voices() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Every domain's lead sentences and purposes (a voice is the domain's, not a phrasing of the split)."""
    from plandvc.chains.phrasing import voice_of
    from plandvc.world.domains import HERE

    leads: set[str] = set()
    purposes: set[str] = set()
    for path in sorted(HERE.glob("*.toml")):
        v = voice_of(path.stem)
        leads.update(v.leads)
        purposes.update(v.purposes)
    return tuple(sorted(leads, key=len, reverse=True)), tuple(sorted(purposes, key=len, reverse=True))


@dataclass
class Part:
    """One step the template planner delegates: its macro and the slots its clause filled."""

    macro: str
    slots: dict[str, str] = field(default_factory=dict)
    kind: str = ""  # the clause kind that matched


@dataclass
class Live:
    """A goal with live steps read back (`plandvc.chains.goal_words`' forms): its kind (detail, lookup,
    compare, copy, delete), the fields asked, the entries the request names, the entry's noun, whether a sort
    finds it, and how a compare's winner is said ("higher" or "later")."""

    kind: str
    fields: list[str] = field(default_factory=list)
    entries: list[str] = field(default_factory=list)
    s: str = ""
    sorted: bool = False
    hi: str = "higher"


@dataclass
class Plan:
    """The request read back: runs of parts (a list's constraints, or one entry part), the question's part,
    and a goal's kind (and a goal with live steps, `live`)."""

    runs: list[list[Part]] = field(default_factory=list)
    goal: str | None = None
    noun: str = ""
    live: Live | None = None


def _match(kinds: Sequence[str], text: str, seed: int) -> tuple[str, re.Match[str]] | None:
    """The (kind, match) of the training form that matches all of `text` with the most words of its own (so
    "with {l} not exceeding {v}" wins over "with {l} {v}"), or None."""
    best: tuple[int, str, re.Match[str]] | None = None
    for kind in kinds:
        for rx in training_forms(kind, seed, _FROZEN.get()):
            m = rx.fullmatch(text)
            if m is not None:
                own = len(text) - sum(len(g) for g in m.groups() if g)
                if best is None or own > best[0]:
                    best = (own, kind, m)
    return (best[1], best[2]) if best is not None else None


def _splits(text: str, seps: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) of every occurrence of a separator in `text`, case aside."""
    low = text.casefold()
    out = []
    for sep in seps:
        s = sep.casefold()
        i = low.find(s)
        while i >= 0:
            out.append((i, i + len(s)))
            i = low.find(s, i + 1)
    return sorted(set(out))


def constraints(text: str, seed: int) -> list[Part] | None:
    """A list's constraints said as a listing ("a, b and c"), each in a training form; None: not parsed."""
    for a, b in _splits(text, (", ", " and ")):
        head = _match(CONSTRAINT_KINDS, text[:a], seed)
        if head is None:
            continue
        rest = constraints(text[b:], seed)
        if rest is not None:
            return [_constraint(*head), *rest]
    m = _match(CONSTRAINT_KINDS, text, seed)
    return [_constraint(*m)] if m is not None else None


def _part(kind: str, m: re.Match[str]) -> Part:
    """The part a clause of `kind` says, with the slots its form filled."""
    slots = {k: v for k, v in m.groupdict().items() if v is not None}
    if kind.startswith("sort."):
        return Part(SORT, slots, kind)
    return Part(CONSTRAINT_MACRO.get(kind, kind), slots, kind)


def _constraint(kind: str, m: re.Match[str]) -> Part:
    return _part(kind, m)


_LINKING = re.compile(r"(?<!\w)(?:that|with|whose|where|which|in|by|of|from|for)(?!\w)", re.I)


def noun_phrase(np: str, seed: int) -> tuple[str, list[Part]] | None:
    """(the list's noun, its constraints) of a noun phrase; a domain's purpose at its end left out."""
    for purpose in voices()[1]:
        if np.endswith(" " + purpose):
            np = np[: -len(purpose) - 1]
            break
    spaces = [i for i, c in enumerate(np) if c == " "][:3]  # a noun of three words at most
    for i in spaces:
        if _LINKING.search(np[:i]):  # "courses that weigh ...": the noun ended before its first linking word
            break
        said = constraints(np[i + 1 :], seed)
        if said is not None:
            return np[:i], said
    return (np, []) if np and len(np.split()) <= 3 else None


def _clause(text: str, first: bool, after_list: bool, seed: int) -> list[Part] | None:
    """One clause of the body as a run: a list (an opening or a later "again" form) or an entry part."""
    kinds = (("open",) if first else ("again",)) + ENTRY_KINDS + (("open_among",) if after_list else ())
    m = _match(kinds, text, seed)
    if m is None:
        return None
    kind, match = m
    slots = {k: v for k, v in match.groupdict().items() if v is not None}
    if kind in ("open", "again"):
        np = noun_phrase(slots["np"], seed)
        if np is None:
            return None
        noun, said = np
        return [Part(p.macro, {**p.slots, "p": noun}, p.kind) for p in said] or [
            Part(NAVIGATE, {"p": noun}, kind)
        ]
    return [Part("open_entry" if kind == "open_among" else kind, slots, kind)]


def body_runs(text: str, seed: int, first: bool = True, after_list: bool = False) -> list[list[Part]] | None:
    """The body's runs: clauses joined by the training link forms, each a whole clause."""
    text = text.strip()
    links = training_texts("link", seed)
    for a, b in _splits(text, links):
        head = _clause(text[:a], first, after_list, seed)
        if head is None:
            continue
        rest = body_runs(text[b:], seed, False, head[0].macro in _LIST)
        if rest is not None:
            return [head, *rest]
    whole = _clause(text, first, after_list, seed)
    return [whole] if whole is not None else None


_LIST = frozenset({*CONSTRAINT_MACRO.values(), SORT})


def _said_forms(kind: str, seed: int) -> list[str]:
    """A slotless kind's training phrasings (a greeting, a closing), longest first."""
    return sorted(training_texts(kind, seed), key=len, reverse=True)


def _strip(text: str, seed: int) -> str:
    """The request without its lead (a greeting, a domain's sentence), hedge, aside and closing."""
    text = text.strip()
    for lead in [*_said_forms("greeting", seed), *voices()[0]]:
        if text.startswith(lead + " "):
            text = text[len(lead) + 1 :]
    for kind in ("closing", "aside"):
        end = next((f for f in _said_forms(kind, seed) if text.endswith(" " + f)), "")
        text = text[: len(text) - len(end)].rstrip() if end else text
    hedge = next((f for f in _said_forms("hedge", seed) if text.casefold().startswith(f.casefold())), "")
    return text[len(hedge) :]


def read_request(request: str, seed: int = 0) -> Plan | None:
    """The request read back into runs, or None when no training phrasing covers it."""
    text = _strip(request, seed)
    live = read_live(text, seed)
    if live is not None:
        return live
    goal = _match(("goal.count", "goal.top"), text, seed)
    if goal is not None:
        kind, m = goal
        np = noun_phrase(m.group("np"), seed)
        if np is None:
            return None
        noun, said = np
        return Plan([[Part(p.macro, {**p.slots, "p": noun}, p.kind) for p in said]], kind.split(".")[1], noun)
    question: list[Part] = []
    for q in [*re.finditer(r"(?<=[.?!]) (?=\S)", text), None]:  # a question last, or the whole request
        asked = _match(QUESTION_KINDS, text[q.end() :] if q is not None else text, seed)
        if asked is not None:
            question = [_part(*asked)]
            text = text[: q.start()] if q is not None else ""
            break
    runs = body_runs(text.rstrip(".?!"), seed) if text else []
    if runs is None:
        return None
    return Plan(runs + ([question] if question else []))


# ── the goal kinds with live steps (issue 45): find, open, read, copy or delete one entry ──────────────────

LIVE_KINDS = ("goal.detail", "goal.lookup", "goal.compare", "goal.act.copy", "goal.act.delete")
_SUP_KINDS = tuple(f"sup.{t}.{d}" for t in ("number", "date") for d in ("asc", "desc"))


def _fields_said(text: str) -> list[str]:
    """The fields a goal asks ("rows (thousands) and published"), one label each."""
    return [f for f in re.split(r", | and ", text) if f]


def _sort_said(sup: str, seed: int) -> Part | None:
    """A superlative ("oldest released date", "title from A to Z") as the sort that finds the entry."""
    for kind, d in (("from A to Z", "asc"), ("from Z to A", "desc")):
        if sup.endswith(" " + kind):
            return Part(SORT, {"l": sup[: -len(kind) - 1]}, f"sort.text.{d}")
    said = _match(_SUP_KINDS, sup, seed)
    if said is None:
        return None
    kind, m = said
    label = m.group("l")
    if kind.startswith("sup.date.") and label.endswith("ed date"):  # "released date" -> "released"
        label = label.removesuffix(" date")
    return Part(SORT, {"l": label}, "sort." + kind.removeprefix("sup."))


def _found(x: str, seed: int) -> tuple[str, list[Part], str, bool] | None:
    """(the list's noun, its constraints with the sort last, the entry's noun, sorted) of the entry found."""
    said = _match(("find.sorted", "find.only"), x, seed)
    if said is None:
        return None
    kind, m = said
    slots = {k: v for k, v in m.groupdict().items() if v is not None}
    np = noun_phrase(slots["np"], seed)
    if np is None:
        return None
    noun, parts = np
    sort = _sort_said(slots.get("sup", ""), seed) if kind == "find.sorted" else None
    if kind == "find.sorted" and sort is None:
        return None
    run = [Part(p.macro, {**p.slots, "p": noun}, p.kind) for p in parts]
    if sort is not None:
        run.append(Part(sort.macro, {**sort.slots, "p": noun}, sort.kind))
    return noun, run, slots.get("s", noun), sort is not None


def read_live(text: str, seed: int) -> Plan | None:
    """A goal with live steps in a training form of its kind, read back: the constraints' run (detail, act) and
    the `Live` facts the later steps need; None when no such form covers `text`."""
    said = _match(LIVE_KINDS, text, seed)
    if said is None:
        return None
    kind, m = said
    slots = {k: v for k, v in m.groupdict().items() if v is not None}
    short = kind.removeprefix("goal.").removeprefix("act.")
    fields = _fields_said(slots.get("f", ""))
    if short in ("lookup", "compare"):
        entries = [slots[k] for k in ("e", "a", "b") if k in slots]
        s = slots.get("s", slots.get("p", ""))
        return Plan([], live=Live(short, fields, entries, s, hi=slots.get("hi", "higher")))
    found = _found(slots.get("x", slots.get("X", "")), seed)
    if found is None and "f" in slots and "x" in slots:  # "which {f} {x} has": where the fields end, tried
        both = f"{slots['f']} {slots['x']}"
        for i in (i for i, c in enumerate(both) if c == " "):
            found = _found(both[i + 1 :], seed)
            if found is not None:
                fields = _fields_said(both[:i])
                break
    if found is None:
        return None
    noun, run, s, sort = found
    return Plan([run], noun=noun, live=Live(short, fields, [], s, sort))


def _list_link(s: str, page: str) -> str:
    """The list page's link text on the page for entries `s` ("Datasets" for "dataset"), or `s`'s plural."""
    wanted = {s.casefold() + "s", s.casefold() + "es", s.casefold()[:-1] + "ies", s.casefold()}
    for m in re.finditer(r"<a [^>]*>([^<\n]+?) />", page):
        if m.group(1).strip().casefold() in wanted:
            return m.group(1).strip()
    return (s[:1].upper() + s[1:] + "s") if s else ""


def live_steps(live: Live, answers: Sequence[str], page: str) -> list[tuple[str, str]]:
    """(family, instruction) of a live goal's steps after its constraints, in the composer's delegation words
    (`goal_words`' own): find, open the entry found (its name: the find's reported answer), read, copy or
    delete; a lookup or a compare opens the list page first, then each named entry."""
    from plandvc.chains.goal_words import _say

    s = live.s
    group = cast(list[Ask], [{"macro": SORT if live.sorted else ""}])
    out: list[tuple[str, str]] = []

    def said(do: str, name: str, label: str = "") -> None:
        step = cast(GoalStep, {"do": do, "name": name, "label": label})
        out.append((_LIVE_FAMILY[do], _say(step, s, group)[0]))

    if live.kind in ("lookup", "compare"):
        out.append(("Navigation", ENTRY_WORDS[NAVIGATE].delegates.format(P=_list_link(s, page))))
        for e in live.entries[: 1 if live.kind == "lookup" else 2]:
            said("open", e)
            for f in live.fields:
                said("read", e, page_label(f, page, True))
        return out
    said("find", "")
    e = answers[0] if answers else ""
    said("open", e)
    if live.kind == "detail":
        for f in live.fields:
            said("read", e, page_label(f, page, True))
    elif live.kind == "copy":
        f = live.fields[0] if live.fields else "name"
        said("copy", e, page_label(s if f == "name" else f, page, True))
    else:
        said("delete", e)
    return out


_LIVE_FAMILY = {"find": "Information", "open": "Navigation", "read": "Information", "copy": "Information",
                "delete": "Form"}  # fmt: skip


def live_answer(live: Live, answers: Sequence[str]) -> str:
    """What a live goal's done says: the values read (joined as the chain's answer joins them), a compare's
    winner by the two values read, the entry acted on."""
    if live.kind == "compare" and len(answers) >= 2:
        a, b = answers[-2], answers[-1]
        try:  # a number compared by value, a date (or anything else) as written
            first = float(a.replace(",", "")) >= float(b.replace(",", "")) if live.hi == "higher" else a >= b
        except ValueError:
            first = a >= b
        return live.entries[0 if first else 1] if len(live.entries) == 2 else ""
    if live.kind in ("detail", "lookup"):
        return " and ".join(answers[1:] if live.kind == "detail" else answers)
    return answers[-1] if answers else ""


# ── the delegations ──────────────────────────────────────────────────────────

_LABEL = re.compile(r"\blabel=(\"[^\"]*\"|\S+?)(?=[ />])")
_NAME = re.compile(r"\bname=(\S+?)(?=[ />])")
_TITLE = re.compile(r"^Title: .*· (.+)$", re.M)
_ANSWER = re.compile(r"^Answer: (.+)$", re.M)


def page_label(label: str, page: str, lines: bool = False) -> str:
    """The label as the page writes it (a control's `label=`; with `lines`, also a heading on a line of its
    own, "Max likes": the live goals' reading, so the older goals' replies keep their words), else with a
    capital first letter."""
    wanted = (label.casefold(), f"max {label}".casefold())
    for m in _LABEL.finditer(page):
        said = m.group(1).strip('"')
        if said.casefold() in wanted:
            return said
    for line in page.splitlines() if lines else ():  # a control's heading as a line of its own
        if line.strip().casefold() in wanted:
            return line.strip()
    return label[:1].upper() + label[1:]


def option_label(value: str, page: str) -> str:
    """The label of the control that offers `value` on the page (a bare option: "tagged Year 10"), or ""."""
    for line in page.splitlines():
        if f'"{value}"' in line or f"={value} " in line or f"| {value}" in line or f">{value} |" in line:
            label = _LABEL.search(line)
            said = label.group(1).strip('"') if label else ""
            if said and said != value:
                return said
            name = _NAME.search(line)
            if name:
                return name.group(1).replace("_", " ").capitalize()
    return ""


def say(part: Part, page: str, site: str, lines: bool = False) -> str:
    """The part's instruction: the composer's own words for an entry part, plain ones naming the value, label,
    direction or bound for a list's constraint (no widget named: the planner does not know it)."""
    s = part.slots
    p = s.get("p", s.get("the_p", "")).removeprefix("the ")
    the_p = p if p.split(" ", 1)[0].lower() in ("my", "your", "our") else f"the {p}"
    label = s.get("l") or s.get("lead", "").removeprefix("with ")
    big = page_label(label, page, lines) if label else ""
    v = s.get("v", "")
    if part.kind == "one.bare":
        big = option_label(v, page)
    if part.macro == SORT:
        _, t, d = part.kind.split(".")
        return f'Sort {the_p} by "{big}", {DIRECTION[(t, d)]}.'
    if part.macro == CONSTRAINT_MACRO["max"]:
        return f"Set {big} on {the_p} to at most {v}."
    if part.macro == "filter_by_date_range":
        return f'Set {big} between "{s.get("a", "")}" and "{s.get("b", "")}" on {the_p}.'
    if part.macro == "search_by_text":
        return f'Search {the_p} for "{v}".'
    if part.macro in ("filter_by_dropdown", "filter_by_options"):
        vals = re.split(r", | or | and ", s.get("vor", s.get("vand", v)))
        under = f" under {big}" if big else ""
        said = " and ".join(quote(x) for x in vals)
        return f"Filter {the_p} to {said}{under}."
    if part.macro == "create_entry":
        fields = []
        for a, b in _field_items(s.get("f", "")):
            fields.append(f'{page_label(a, page)} "{b}"')
        single = s.get("s", "")
        return f"Add {article(single)} {single} with {', '.join(fields)} and save it."
    qv = s.get("qv", "").strip('"')
    filled = {"v": v or qv, "qv": s.get("qv", ""), "L": big, "l": label, "e": s.get("e", ""), "s": s.get("s", ""),
              "p": p, "the_p": the_p, "P": p[:1].upper() + p[1:], "tab": s.get("tab", ""),
              "Tab": s.get("tab", "").replace("-", " ").title(), "what": s.get("what", ""), "site": site}  # fmt: skip
    if part.macro == "copy_value":
        what = s.get("what", "")
        filled["L"] = page_label(s.get("s", "") if what == "name" else what, page)
    return ENTRY_WORDS[part.macro].delegates.format_map(_Blank(filled))


def _field_items(text: str) -> list[tuple[str, str]]:
    """A create clause's fields ("student "Ada", 2026-03-28 for enrolled"), each in a training `field` form."""
    out: list[tuple[str, str]] = []
    for item in re.split(r", | and (?=[^\"]*(?:\"[^\"]*\"[^\"]*)*$)", text):
        m = _match(("field",), item, 0)
        if m is None:
            return out
        out.append((lower_label(m[1].group("l")), m[1].group("qv").strip('"')))
    return out


def quote(value: str) -> str:
    """A value in double quotes, as the delegations name options."""
    return '"' + value + '"'


class _Blank(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return ""


def steps(plan: Plan, page: str, site: str, answers: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(family, instruction) of every step: the runs in order, a trip home between runs (none before an entry
    opened from the list just shown), a goal's reading last (a live goal's steps, with the answers reported so
    far)."""
    out: list[tuple[str, str]] = []
    for i, run in enumerate(plan.runs):
        if i > 0 and run[0].kind != "open_among":
            out.append(("Navigation", HOME_STEP.format(site=site)))
        out += [(FAMILY_OF[p.macro], say(p, page, site, plan.live is not None)) for p in run]
    if plan.goal is not None:
        out.append(("Information", GOAL_DELEGATION[plan.goal].format(p=plan.noun, s=plan.noun)))
    if plan.live is not None:
        out += live_steps(plan.live, answers, page)
    return out


class TemplatePlanner:
    """`template`: the request read back by the training phrasings, its steps delegated one a turn, then done
    (with the last reported answer when there is one)."""

    def __init__(self, seed: int = 0, frozen_: bool = False) -> None:
        self.seed, self.frozen = seed, frozen_

    def __call__(self, messages: Messages) -> str:
        with frozen(self.frozen):
            return self._reply(messages)

    def _reply(self, messages: Messages) -> str:
        request, turn = request_and_turn(messages)
        text = first_user_text(messages)
        page = text.split("<browser_state>", 1)[-1]
        title = _TITLE.search(page)
        site = title.group(1).strip() if title else ""
        plan = read_request(request, self.seed)
        answers = [a.strip() for a in _ANSWER.findall(text.split("<browser_state>", 1)[0])]
        todo = steps(plan, page, site, answers) if plan is not None else []
        if turn < len(todo):
            family, instruction = todo[turn]
            return reply("", {"delegate": {"family": family, "instruction": instruction}})
        said = live_answer(plan.live, answers) if plan is not None and plan.live is not None else ""
        said = said or (answers[-1] if answers else "")
        done = f"The answer is {said}." if said else DONE_TEXT
        return reply("", {"done": {"text": done, "success": True}})
