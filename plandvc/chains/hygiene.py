"""Request hygiene: what no user writes, found in a composed chain's words and facts (issue 45, item 4).

Each check is one function over a chain's words and facts (`ChainText`) and returns its problems, one line
each (empty: none):
- `float_noise`: a number printed with more decimals than the site shows ("at most 2.4000000000000004");
- `fractional_count`: a non-integer bound on a column of whole numbers ("recipes up to 42.5");
- `self_contradiction`: an entry that contradicts itself ("Kingsbridge vs Kingsbridge");
- `garbled_title`: a title whose words do not go together ("Best the Roman empire");
- `false_link`: a linking word ("among them", "there", "it") whose referent is not what the next part acts
  on ("Find collections about "Jensen", and then among them, open "Zesty Pancakes"", the entry opened from
  elsewhere than that list);
- `undone_step`: a step that undoes an earlier one ("Show me players matching Duarte, and then take me to the
  players": the trip to the list drops its constraints);
- `idle_hop`: a hop that serves nothing ("Take me to the letters. How many stories ...": the next part does
  not start where the hop leads);
- `leaked_value`: the request already holds a value a goal's later step is to carry from a report (the entry a
  `find` reveals, the value a `carry` goal's read reveals and its narrowing sets): then nothing is carried.
- the language review's (issue 46), read in the request and the final message, quoted values left out:
  `doubled_preposition` ("the level of among courses", "the address of from stays"), `count_agreement`
  ("There are 1 sign-ups"), `article_sound` ("with an unit of m"), `counted_owner` ("There are 2 my
  bookings", "How many my trips"), `verb_as_noun` (a field named by a verb: "note the opened of the issue",
  "its published is 2024-05-07", "its by"), `number_before_label` (a bound's number before a label that does
  not count, "that don't exceed 14 read time", or said as keeping, "with comments kept to 30").

The linking, undoing and idle checks are decided by construction (the parts' macros, pages, start pages and
vias, and the entries the constraints leave by the site's own query semantics), never by reading the words
alone; the text checks read the words the user, the planner and the final message see. `chain_problems` runs
them all; chain-specs refuses the chains that have any under `chains.hygiene` (`plandvc.chains.make`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NotRequired, TypedDict, cast

from plandvc.chains.compose import counts, lower_label
from plandvc.macros import LIST_MACROS
from plandvc.records import Ask, ChainGoal, ChainSpec, ItemRecord, Via
from plandvc.sites.model import Spec
from plandvc.sites.query import BadValue, select_rows

SHOWN_DECIMALS = 2  # without the site's spec: the most decimals a generated site's column shows
_NUMBER = re.compile(r"(?<![\w.\-])\d+\.(\d+)(?![\w.\-])")  # not a version in a name ("GPL-3.0")
_QUOTED = re.compile(r'"([^"]+)"')
_VERSUS = re.compile(r"^(.+?)\s+(?:vs\.?|v\.?|versus|against)\s+(.+)$", re.I)
# a word that takes a bare noun, followed by an article or a determiner: "Best the Roman empire", "How to the
# Roman empire", "Top a ..."
_GARBLED = re.compile(r"\b(?:Best|Top|Worst|Greatest|How to)\s+(?:the|a|an|this|that|these|those)\b")
# a word that points back at what an earlier part left ("among them", "of them", "in it", "there")
_LINK = re.compile(r"\b(?:among them|of them|from them|in it|on it|open it|there)\b", re.I)
_NOT_LINK = re.compile(
    r"\b(?:are there|is there|there (?:are|is)|(?:hey|hi|hello) there)\b", re.I
)  # greetings too
NAVIGATE = "navigate_to_page"
OPEN = "open_entry"
SLIDER = "filter_by_slider"


@dataclass(frozen=True)
class ChainText:
    """A composed chain's words (the request, each part's delegation, the goal step's, the final message) and
    the facts they come from (each part's `Ask`, start page and via; the site's spec when known)."""

    key: str
    request: str
    says: tuple[str, ...]
    final: str
    asks: tuple[Ask, ...]
    starts: tuple[str, ...]
    vias: tuple[Via, ...]
    site: str
    spec: Spec | None = None
    goal_says: tuple[str, ...] = ()
    carried: tuple[str, ...] = ()  # the values the goal's later steps carry from a report (`carried_values`)

    def texts(self) -> list[tuple[str, str]]:
        """(where, text) of every text a user, the planner or a specialist reads."""
        out = [("request", self.request)]
        out += [(f"delegation {i}", s) for i, s in enumerate(self.says)]
        out += [(f"goal delegation {i}", s) for i, s in enumerate(self.goal_says)]
        return [*out, ("final", self.final)]

    def list_path(self, ask: Ask) -> str:
        """The path of the list page an ask is about."""
        return f"/sites/{self.site}/{ask['page']}"


class GoalStepWords(TypedDict):
    """What the checks and the structure table read of a goal's live step (`records.GoalStep` where the kinds
    that use what is found exist): what it does (find, open, read, copy, delete), the entry's name it finds or
    carries, and its delegation."""

    do: str
    name: str
    say: NotRequired[str]
    value: NotRequired[str]  # a narrow's value, the one a read before it revealed


def goal_steps(goal: ChainGoal) -> list[GoalStepWords]:
    """A goal's live steps, in order (none for v3's count and top)."""
    return cast(list[GoalStepWords], cast(Mapping[str, object], goal).get("steps", []))


def chain_text(chain: ChainSpec, items: Mapping[str, ItemRecord], specs: Mapping[str, Spec]) -> ChainText:
    """A composed chain read with its items' facts (a KeyError names an unknown id or an item with no ask)."""
    parts = [items[p["id"]] for p in chain["parts"]]
    goal = chain.get("goal")
    return ChainText(
        key=chain["key"],
        request=chain.get("request", ""),
        says=tuple(p.get("say", "") for p in chain["parts"]),
        final=chain.get("final", ""),
        asks=tuple(r["ask"] for r in parts),
        starts=tuple(r["start"] for r in parts),
        vias=tuple(p["via"] for p in chain["parts"]),
        site=chain["site"],
        spec=specs.get(chain["site"]),
        goal_says=tuple(_goal_says(goal)) if goal is not None else (),
        carried=tuple(carried_values(goal)) if goal is not None else (),
    )


def carried_values(goal: ChainGoal) -> list[str]:
    """The values a goal's later steps carry from a report: a find's entry, a narrow's value (the one read)."""
    steps = goal_steps(goal)
    return [s["name"] for s in steps if s["do"] == "find"] + [
        s.get("value", "") for s in steps if s["do"] == "narrow"
    ]


def _goal_says(goal: ChainGoal) -> list[str]:
    """The goal's delegations: its one reading's, or each live step's."""
    says = [goal["say"]] if "say" in goal else []
    return says + [s["say"] for s in goal_steps(goal) if "say" in s]


# ── the checks over words ───────────────────────────────────────────────────


def shown_decimals(spec: Spec | None) -> int:
    """The most decimals the site prints: its number columns' and its sliders' steps (2 without a spec)."""
    if spec is None:
        return SHOWN_DECIMALS
    most = 0
    for table in spec.tables.values():
        most = max([most] + [c.decimals for c in table.columns if c.type == "number"])
    for page in spec.pages:
        for c in page.controls:
            for x in (c.min, c.max, c.step):
                if x is not None:
                    most = max(most, _decimals(str(x)))
    return most


def _decimals(text: str) -> int:
    whole, _, frac = text.partition(".")
    return len(frac.rstrip("0")) if whole.lstrip("-").isdigit() else 0


def float_noise(c: ChainText) -> list[str]:
    """A number printed with more decimals than the site shows ("2.4000000000000004")."""
    most = shown_decimals(c.spec)
    return [
        f"float noise: {m.group(0)} in the {where} ({most} decimals shown)"
        for where, text in c.texts()
        for m in _NUMBER.finditer(text)
        if len(m.group(1)) > most
    ]


def fractional_count(c: ChainText) -> list[str]:
    """A non-integer bound on a number column whose every value is whole (a count: "recipes up to 42.5")."""
    if c.spec is None:
        return []
    out = []
    for ask in c.asks:
        page = c.spec.page(ask["page"])
        if page is None or ask["macro"] != SLIDER:
            continue
        table = c.spec.table_of(page)
        control = next((x for x in page.controls if x.kind == "slider" and x.label == ask.get("label")), None)
        if control is None or control.column is None:
            continue
        column = table.column(control.column)
        whole = column.decimals == 0 and all(float(r[column.name]).is_integer() for r in table.rows)
        out += [
            f"non-integer count: {ask.get('label', '')} {v} on a column of whole numbers ({column.label})"
            for v in ask.get("values", [])
            if whole and not float(v).is_integer()
        ]
    return out


def self_contradiction(c: ChainText) -> list[str]:
    """An entry set against itself ("Kingsbridge vs Kingsbridge")."""
    out = []
    for where, text in c.texts():
        for q in _QUOTED.findall(text):
            m = _VERSUS.match(q)
            if m is not None and m.group(1).strip().lower() == m.group(2).strip().lower():
                out.append(f'self-contradiction: "{q}" in the {where}')
    return out


def garbled_title(c: ChainText) -> list[str]:
    """A quoted title whose words do not go together ("Best the Roman empire")."""
    return [
        f'garbled title: "{q}" in the {where}'
        for where, text in c.texts()
        for q in _QUOTED.findall(text)
        if _GARBLED.search(q)
    ]


# ── the checks by construction ──────────────────────────────────────────────


def _list_run_before(c: ChainText, i: int) -> list[Ask]:
    """The run of list parts on one page that ends just before part i (empty: part i-1 is no list part)."""
    run: list[Ask] = []
    j = i - 1
    while j >= 0 and c.asks[j]["macro"] in LIST_MACROS:
        if run and c.asks[j]["page"] != run[0]["page"]:
            break
        run.insert(0, c.asks[j])
        if c.vias[j] != "page":
            break
        j -= 1
    return run


def _left_entries(c: ChainText, run: Sequence[Ask]) -> set[str] | None:
    """The names of the entries a run of constraints leaves on its list (None: no spec or no query)."""
    if c.spec is None or not run:
        return None
    page = c.spec.page(run[0]["page"])
    if page is None:
        return None
    table = c.spec.table_of(page)
    pairs = [(str(k), str(v)) for a in run for k, v in a.get("query", [])]
    try:
        rows = select_rows(page, table, list(table.rows), pairs)
    except BadValue:
        return None
    return {str(r[table.label]) for r in rows}


def _linked(c: ChainText, i: int) -> str | None:
    """Why part i is no entry of the list before it (None: it is one, opened from that list)."""
    run = _list_run_before(c, i)
    ask = c.asks[i]
    if not run:
        return "no list comes before it"
    if c.vias[i] != "page":
        return f"it starts after a trip {c.vias[i]}, not on the list"
    if c.starts[i].split("?")[0] != c.list_path(run[0]):
        return f"it starts on {c.starts[i]}, not on the list {c.list_path(run[0])}"
    left = _left_entries(c, run)
    if left is not None and ask.get("entry") not in left:
        return "the list's constraints do not leave it"
    return None


def false_link(c: ChainText) -> list[str]:
    """A linking word in the request whose referent is not what the next part acts on: every entry part after
    a list must be opened from that list, among the entries its constraints leave."""
    words = [m.group(0) for m in _LINK.finditer(_NOT_LINK.sub("", c.request))]
    if not words:
        return []
    entry_parts = [i for i, a in enumerate(c.asks) if i > 0 and "entry" in a]
    why = [(i, _linked(c, i)) for i in entry_parts]
    if not entry_parts:
        return [f'false link: "{words[0]}" but no later part acts on an entry of what came before']
    return [
        f'false link: "{words[0]}" but part {i} ("{c.asks[i].get("entry", "")}"): {reason}'
        for i, reason in why
        if reason is not None
    ]


def undone_step(c: ChainText) -> list[str]:
    """A trip to a list page an earlier part narrowed: the trip drops the constraints the user asked for."""
    out = []
    for i, ask in enumerate(c.asks):
        if ask["macro"] != NAVIGATE:
            continue
        narrowed = [
            j for j in range(i) if c.asks[j]["macro"] in LIST_MACROS and c.asks[j]["page"] == ask["page"]
        ]
        if narrowed:
            out.append(
                f"undone step: part {i} goes to {ask['plural']}, dropping part {narrowed[-1]}'s constraint"
            )
    return out


def idle_hop(c: ChainText) -> list[str]:
    """A trip to a page that the next part does not start on (it goes home, or starts elsewhere)."""
    out = []
    for i, ask in enumerate(c.asks[:-1]):
        if ask["macro"] != NAVIGATE:
            continue
        nxt = i + 1
        start = c.starts[nxt].split("?")[0]
        if c.vias[nxt] != "page" or start != c.list_path(ask):
            out.append(
                f"idle hop: part {i} goes to {ask['plural']}, but part {nxt} starts on {start} "
                f"(via {c.vias[nxt]})"
            )
    return out


def leaked_value(c: ChainText) -> list[str]:
    """A value the goal carries from a report (a find's entry, a narrow's value) that the request already says."""
    return [
        f'leaked value: the request says "{v}", which a report is to reveal'
        for v in c.carried
        if v and re.search(rf"(?<!\w){re.escape(v)}(?!\w)", c.request, re.I)
    ]


Check = Callable[[ChainText], list[str]]
# ── the language review (issue 46): forms no user writes, in the words a user reads ──

_PREPOSITIONS = re.compile(r"\b(?:of|for|to|at|about|from)\s+(?:among|from|of|out of)\b", re.I)
_ONE_ARE = re.compile(r"\b(?:are|were) 1\b(?![.,]\d)", re.I)
_SOUND = re.compile(r"\ban (?=(?:uni|use|usu|uti|eu|one\b|once\b))|\ba (?!eu|one\b|once\b)(?=[aeio])", re.I)
_COUNTED_OWNER = re.compile(r"(?:(?<![\w,])\d[\d,]*|\bhow many|\bthe|\ba|\ban) (?:my|your|our)\b", re.I)
# "the opened of", "its published is", "its by": a verb where a field's noun goes ("speed", "need": nouns)
_VERB_NOUN = re.compile(
    r"\b(?:the|its) (?:\w{3,}(?<!e)ed|by|starts|departs)(?= (?:of|is|are|and)\b| ?[.,]|$)", re.I
)


def _read_words(c: ChainText) -> list[tuple[str, str]]:
    """(where, words) of the request and the final message, quoted values blanked (a value is no wording)."""
    return [(w, _QUOTED.sub('""', t)) for w, t in (("request", c.request), ("final", c.final))]


def _wording(pattern: re.Pattern[str], what: str) -> Check:
    """A check that finds `pattern` in the request or the final message, one line per place."""

    def check(c: ChainText) -> list[str]:
        return [
            f"{what} in the {where}: {words[max(0, m.start() - 25) : m.end() + 25]!r}"
            for where, words in _read_words(c)
            for m in pattern.finditer(words)
        ]

    return check


def number_before_label(c: ChainText) -> list[str]:
    """A bound's number before a label that does not count ("no more than 14 read time", "2200 price"), or a
    bound said as keeping ("comments kept to 30"), in the request."""
    out = [f"a bound said as keeping: {m.group(0)!r}" for m in _KEPT.finditer(_QUOTED.sub('""', c.request))]
    for a in c.asks:
        label = lower_label(a.get("label", "")).removeprefix("max ")
        for v in a.get("values", [])[:1] if a["macro"] == SLIDER and not counts(label) else []:
            if re.search(rf"(?<![\w.]){re.escape(str(v))} {re.escape(label)}\b", c.request):
                out.append(f"a number before a label that does not count: {v} {label}")
    return out


_KEPT = re.compile(r"\b(?:kept|held) to\b", re.I)
doubled_preposition = _wording(_PREPOSITIONS, "two prepositions in a row")
count_agreement = _wording(_ONE_ARE, "a plural verb on a count of 1")
article_sound = _wording(_SOUND, "an article that does not fit the sound")
counted_owner = _wording(_COUNTED_OWNER, "a count or article before my/your/our")
verb_as_noun = _wording(_VERB_NOUN, "a field named by a verb")


CHECKS: dict[str, Check] = {
    "float_noise": float_noise,
    "fractional_count": fractional_count,
    "self_contradiction": self_contradiction,
    "garbled_title": garbled_title,
    "false_link": false_link,
    "undone_step": undone_step,
    "idle_hop": idle_hop,
    "leaked_value": leaked_value,
    "doubled_preposition": doubled_preposition,
    "count_agreement": count_agreement,
    "article_sound": article_sound,
    "counted_owner": counted_owner,
    "verb_as_noun": verb_as_noun,
    "number_before_label": number_before_label,
}


def problems_of(c: ChainText) -> dict[str, list[str]]:
    """Every check's problems for one chain, by the check's name (only the checks that found any)."""
    found = {name: check(c) for name, check in CHECKS.items()}
    return {name: p for name, p in found.items() if p}


def chain_problems(chain: ChainSpec, items: Mapping[str, ItemRecord], specs: Mapping[str, Spec]) -> list[str]:
    """One line per problem of a composed chain, each naming the chain's key and the check."""
    return [
        f"{chain['key']}: {line}"
        for lines in problems_of(chain_text(chain, items, specs)).values()
        for line in lines
    ]
