"""The request composer: a chain's request as a user states the goal, the planner's delegations as a planner
says them about this page, and the final message a user reads, all from the parts' `Ask` facts.

- **The request** states what the user wants and its constraints, not the steps. Constraints on one list (the
  filters, a search and a sort that follow each other on its page) merge into one noun phrase ("repositories
  whose language is Python, with stars up to 2000, highest stars first"); parts on other pages follow in order
  (", then add ..."); a question ends it. It names no widget and no navigation a user would not ask for (trips
  home, pages and tabs are the planner's to decide). Values are verbatim; a control's label is sometimes left
  out ("listed under Python"), so the planner must find the control on the page. Registers vary: imperative,
  "I'm looking for ...", a polite question, a plain question.
- **A delegation** names the control by its label, the value, and only the widget this site draws for it (the
  control's implementation picks the phrase: a slider is a slider only where the site draws a range input).
- **The final message** says what was done and gives the answer verbatim ("There are 13 courses ...").

Pure and seeded: `random.Random` of the seed and the chain's key, one fixed order of draws, so a chain's words
are a function of its parts, its goal and the seed (tests/test_compose.py).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from plandvc.chains.phrasing import PHRASING, Drawer, PhrasingSplit, either, sort_kind, voice_of
from plandvc.io import InputError
from plandvc.macros import LIST_MACROS, delegation_template
from plandvc.records import Ask, ChainPhrasing, ChainSpec, GoalStep, ItemRecord
from plandvc.records import ChainGoal as Goal


@dataclass(frozen=True)
class Composed:
    """A chain's words: the request, each part's delegation (in part order), the goal step's delegation, the
    final message."""

    request: str
    delegations: list[str]
    final: str
    goal: str | None = None
    goal_steps: list[GoalStep] | None = None  # a goal with live steps: each with its delegation


# ── small words ──────────────────────────────────────────────────────────────


def article(noun: str) -> str:
    """ "a" or "an" before `noun` (by its first letter's sound, as far as spelling tells)."""
    return "an" if noun[:1].lower() in "aeiou" else "a"


def article_heard(noun: str) -> str:
    """ "a" or "an" before `noun` by its sound where spelling misleads ("a unit", "a European", "an hour"); the
    varied words' article (v3's words keep `article`)."""
    low = noun.lower()
    if low.startswith(("uni", "use", "usu", "uti", "ure", "eu", "one", "once")):
        return "a"
    if low.startswith(("hour", "honest", "honour")):
        return "an"
    return article(noun)


def counts(label: str) -> bool:
    """Whether a label is a plural noun that counts ("weeks", "stars", "recipes"), so a number may stand before
    it ("14 weeks"), as it may not before "read time" or "price"."""
    last = label.rsplit(" ", 1)[-1].lower()
    return last.endswith("s") and not last.endswith(("ss", "us", "is"))


def the(plural: str) -> str:
    """ "the repositories", but "my submissions" as it is (a page title that owns itself)."""
    return plural if plural.split(" ", 1)[0].lower() in ("my", "your", "our") else f"the {plural}"


def lower_label(label: str) -> str:
    """A label as a user writes it mid-sentence: "Max stars" -> "max stars", "RAM" and "CPU cores" kept."""
    return " ".join(
        w if w[1:] != w[1:].lower() or len(w) == 1 else w[:1].lower() + w[1:] for w in label.split()
    )


def quoted(value: str) -> str:
    """A text value in quotes, a number or a date bare."""
    plain = value.replace(".", "", 1).replace("-", "").isdigit()
    return value if plain else f'"{value}"'


def listing(items: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def superlative(ask: Ask) -> str:
    """The sort's direction as a user says it: "lowest price", "most recent publish date", "title from A to Z"."""
    label, up = lower_label(ask.get("label", "")), ask.get("dir", "asc") == "asc"
    if ask.get("type") == "date":
        label = f"{label} date" if label.endswith("ed") else label  # "published" -> "published date"
        return f"earliest {label}" if up else f"most recent {label}"
    if ask.get("type") == "number":
        return f"lowest {label}" if up else f"highest {label}"
    return f"{label} from A to Z" if up else f"{label} from Z to A"


# ── the request ──────────────────────────────────────────────────────────────


def constraint(ask: Ask, rng: random.Random, one: bool = False, unlabelled: bool = True) -> str:
    """One list constraint as a relative phrase ("whose language is Python"); a sort's is ", lowest price
    first" (the caller puts it last)."""
    m, values = ask["macro"], ask.get("values", [])
    label = lower_label(ask.get("label", ""))
    if m == "sort_by_form":
        return rng.choice(("{s} first", "with the {s} first", "ordered by {s} first")).format(
            s=superlative(ask)
        )
    if m in ("search_by_text", "choose_suggestion"):
        mention = "that mentions" if one else "that mention"
        return rng.choice(('matching "{v}"', mention + ' "{v}"', 'about "{v}"')).format(v=values[0])
    if m == "filter_by_slider":
        bound = label[4:] if label.startswith("max ") else label  # "Max calories": calories up to 800
        return rng.choice(
            ("with {l} up to {v}", "with {l} of at most {v}", "with {l} no higher than {v}")
        ).format(l=bound, v=values[0])
    if m == "filter_by_date_range":
        a, b = values
        lead = (
            label if label.endswith("ed") else f"with {label}"
        )  # "received between", "with last push between"
        return rng.choice(("{l} between {a} and {b}", "{l} from {a} to {b}")).format(l=lead, a=a, b=b)
    v = " or ".join(values)
    forms: tuple[str, ...] = ("with {l} {v}",)  # several values: "with region Europe or Asia"
    if len(values) == 1:
        forms = ("whose {l} is {v}", "with {l} {v}") + (("listed under {v}",) if unlabelled else ())
    return rng.choice(forms).format(l=label, v=v)


def noun_phrase(group: Sequence[Ask], rng: random.Random, *, with_sort: bool = True) -> str:
    """The list and its constraints in one phrase: "repositories whose language is Python and with stars up to
    2000, highest stars first" (a sort comes last, after a comma)."""
    plural = group[0]["plural"]
    filters: list[str] = []
    for (
        a
    ) in group:  # a label left out once a phrase at most: "listed under Rust, listed under MIT" is no phrase
        if a["macro"] != "sort_by_form":
            filters.append(constraint(a, rng, unlabelled=not any(f.startswith("listed") for f in filters)))
    sorts = [constraint(a, rng) for a in group if a["macro"] == "sort_by_form"] if with_sort else []
    out = plural + (" " + listing(filters) if filters else "")
    return out + "".join(f", {s}" if filters else f" {s}" for s in sorts)


def clause(ask: Ask, rng: random.Random) -> str:
    """A part on its own as the user asks for it, lower case, no end mark: "open the repository "rust-ml""."""
    m, s = ask["macro"], ask["singular"]
    if m == "create_entry":
        fields = listing([f"{lower_label(k)} {quoted(v)}" for k, v in ask.get("fields", [])])
        verb = rng.choice(("add {a} {s}", "create {a} {s}", "add a new {s}"))
        return verb.format(a=article(s), s=s) + f" with {fields}"
    said = ENTRY_WORDS.get(m)
    if said is None or not said.asks:
        return f"show me {noun_phrase([ask], rng)}"
    form = said.asks[0] if len(said.asks) == 1 else rng.choice(said.asks)  # one form: no draw
    return form.format(**words(ask))


def _opening(np: str, rng: random.Random) -> str:
    return rng.choice(
        ("Show me {np}", "I'm looking for {np}", "Find {np}", "Could you pull up {np}", "List {np}")
    ).format(np=np)


def _groups(asks: Sequence[Ask], vias: Sequence[str | None]) -> list[list[Ask]]:
    """The parts in runs: consecutive list parts on one page (each after the first reached by page) form one run."""
    runs: list[list[Ask]] = []
    for a, via in zip(asks, vias, strict=True):
        prev = runs[-1][-1] if runs else None
        if (
            prev is not None
            and a["macro"] in LIST_MACROS
            and prev["macro"] in LIST_MACROS
            and via == "page"
            and a["page"] == prev["page"]
        ):
            runs[-1].append(a)
        else:
            runs.append([a])
    return runs


def goal_question(goal: Goal, group: Sequence[Ask], rng: random.Random) -> str:
    """A goal chain's request: the question whose answer depends on every constraint before it."""
    if goal["kind"] == "count":
        np = noun_phrase(group, rng, with_sort=False)
        return rng.choice(
            (
                "How many {np} are there?",
                "Can you tell me how many {np} there are?",
                "I'm looking for {np}. How many are there?",
                "Count the {np} for me, please.",
            )
        ).format(np=np)
    sort = next(a for a in group if a["macro"] == "sort_by_form")
    rest = [a for a in group if a is not sort]
    s = group[0]["singular"]
    among = (" " + listing([constraint(a, rng, one=True) for a in rest])) if rest else ""
    return rng.choice(
        (
            "Which {s}{among} has the {sup}?",
            "Among {the_p}{among}, which one has the {sup}?",
            "I want the {s}{among} with the {sup}. Which one is it?",
        )
    ).format(s=s, the_p=the(group[0]["plural"]), among=among, sup=superlative(sort))


def request_text(
    asks: Sequence[Ask], vias: Sequence[str | None], rng: random.Random, goal: Goal | None = None
) -> str:
    """The user's request for the chain's parts (and its goal): one sentence per run of related parts at most."""
    runs = _groups(asks, vias)
    if goal is not None and len(runs) == 1:
        return goal_question(goal, runs[0], rng)
    phrases: list[str] = []
    question: str | None = None
    for i, run in enumerate(runs):
        if run[0]["macro"] in LIST_MACROS:
            np = noun_phrase(run, rng)
            again = rng.choice(("show me", "find", "list", "look up"))
            phrases.append(_opening(np, rng) if i == 0 else f"{again} {np}")
            continue
        c = clause(run[0], rng)
        if c.endswith("?"):
            question = _sentence(c)
            continue
        if i > 0 and run[0]["macro"] == "open_entry" and runs[i - 1][0]["macro"] in LIST_MACROS:
            c = rng.choice(('among them, open "{e}"', 'open "{e}" among them')).format(
                e=run[0].get("entry", "")
            )
        phrases.append(_sentence(c) if i == 0 else c)
    out = ""
    for i, p in enumerate(phrases):
        if i == 0:
            out = p
        elif i == len(phrases) - 1:
            out += rng.choice((", then ", ", and then ", " and ")) + p
        else:
            out += ", " + p
    polite = out.startswith("Could you")
    out = (out + ("?" if polite else ".")) if out else ""
    if question is not None:
        out = (out + " " + question).strip()
    return out


# ── the delegations ──────────────────────────────────────────────────────────


@dataclass(frozen=True)
class EntryWords:
    """An entry or page part's words, in one place: the request's clause (one of `asks` drawn when there are
    several; none: the list's noun phrase), the planner's delegation, and the final message's clause. The
    fields are `words`' (a control's `L`abel and `l`ower label, the `v`alue and `qv` quoted, the entry `e`,
    the `s`ingular and `p`lural, `the_p`, ...)."""

    asks: tuple[str, ...]
    delegates: str
    done: str = "{the_p} are open"


ENTRY_WORDS: dict[str, EntryWords] = {
    "open_entry": EntryWords(
        ('open the {s} "{e}"', 'show me the {s} "{e}"', 'pull up the {s} "{e}"'),
        'Open the {s} "{e}".',
        'the {s} "{e}" is open',
    ),
    "edit_entry": EntryWords(
        (
            'change the {l} of the {s} "{e}" to {qv}',
            'set the {l} of "{e}" to {qv}',
            'update "{e}" so its {l} is {qv}',
        ),
        'Change the {L} of the {s} "{e}" to "{v}" and save it.',
        'the {l} of "{e}" is now {qv}',
    ),
    "delete_entry": EntryWords(
        ('delete the {s} "{e}"', 'remove the {s} "{e}"'), 'Delete the {s} "{e}".', 'the {s} "{e}" is deleted'
    ),
    "copy_value": EntryWords(
        ('copy the {what} of the {s} "{e}" to my clipboard',),
        'Copy the {L} of the {s} "{e}".',
        'the {l} of "{e}" is on your clipboard',
    ),
    "navigate_to_page": EntryWords(("show me {the_p}", "take me to {the_p}"), 'Open the "{P}" page.'),
    "report_information": EntryWords(
        ('what is the {l} of the {s} "{e}"?', 'what {l} does the {s} "{e}" have?'),
        'Read the {L} of the {s} "{e}".',
    ),
    "count_entries": EntryWords(('how many {p} have {l} "{v}"?',), 'Count {the_p} whose {L} is "{v}".'),
    "go_to_page": EntryWords(
        ("show me more {p}, page {n}",), "Go to page {n} of {the_p}.", "page {n} of {the_p} is open"
    ),
    "switch_tab": EntryWords(
        ('show the {tab} of the {s} "{e}"',),
        'Open the "{Tab}" tab of the {s} "{e}".',
        'the {tab} of "{e}" is open',
    ),
    "navigate_home": EntryWords((), "Go to the {site} home page."),
}


def _direction(ask: Ask) -> str:
    """A sort's direction in a delegation: "lowest first", "newest first", "A to Z"."""
    up = ask.get("dir", "asc") == "asc"
    kind = ask.get("type")
    if kind == "number":
        return "lowest first" if up else "highest first"
    if kind == "date":
        return "oldest first" if up else "newest first"
    return "A to Z" if up else "Z to A"


def words(ask: Ask) -> dict[str, str]:
    """The fields every template of this module fills, from one part's facts."""
    values = ask.get("values", [])
    label, s = ask.get("label", ""), ask["singular"]
    low = lower_label(label)
    vs = (
        listing([f'"{v}"' for v in values])
        if len(values) > 1 and ask["macro"] == "filter_by_options"
        else " and ".join(f'"{v}"' for v in values)
    )
    return {
        "v": values[0] if values else "",
        "qv": quoted(values[0]) if values else "",
        "vs": vs,
        "a": values[0] if values else "",
        "b": values[-1] if values else "",
        "L": label,
        "l": low,
        "what": "name" if low == s.lower() else low,  # not "the course of the course": its name
        "p": ask["plural"],
        "the_p": the(ask["plural"]),
        "P": _sentence(ask["plural"]),
        "s": s,
        "e": ask.get("entry", ""),
        "dir": _direction(ask),
        "tab": str(ask.get("tab", "")),
        "Tab": ask.get("tab", "").replace("-", " ").title(),
        "n": str(ask.get("number", "")),
        "typed": ask.get("typed", ""),
        "site": ask["site"],
    }


def delegation(ask: Ask) -> str:
    """What the planner delegates for this part, about this page (the widget by the control's implementation)."""
    m = ask["macro"]
    if m == "create_entry":
        fields = ", ".join(f'{k} "{v}"' for k, v in ask.get("fields", []))
        return f"Add {article(ask['singular'])} {ask['singular']} with {fields} and save it."
    said = ENTRY_WORDS.get(m)
    template = delegation_template(m, ask.get("impl", "")) or (said.delegates if said is not None else None)
    if template is None:
        raise KeyError(f"no delegation for macro {m!r} drawn as {ask.get('impl', '')!r}")
    return template.format(**words(ask))


GOAL_DELEGATION = {
    "count": "Read how many {p} the list shows now.",
    "top": "Read the name of the first {s} in the list as it is sorted now.",
}


def goal_delegation(goal: Goal, ask: Ask) -> str:
    """The goal step's delegation to the Information specialist: read the answer off the list as it is."""
    return GOAL_DELEGATION[goal["kind"]].format(p=ask["plural"], s=ask["singular"])


# ── the final message ────────────────────────────────────────────────────────


def done_clause(run: Sequence[Ask], rng: random.Random) -> str:
    """What a run of parts did, for the final message ("the repository "rust-ml" is open")."""
    a = run[0]
    if a["macro"] in LIST_MACROS and all(x["macro"] == "sort_by_form" for x in run):
        return f"{the(a['plural'])} are sorted with the {superlative(a)} first"
    if a["macro"] in LIST_MACROS:
        return f"{the(a['plural'])} now show only {noun_phrase(run, rng)}"
    if a["macro"] == "create_entry":
        return f"I added the {a['singular']} with {listing([f'{lower_label(k)} {quoted(v)}' for k, v in a.get('fields', [])])}"
    said = ENTRY_WORDS.get(a["macro"])
    return (said.done if said is not None else EntryWords((), "").done).format(**words(a))


def final_text(
    asks: Sequence[Ask], vias: Sequence[str | None], rng: random.Random, goal: Goal | None = None
) -> str:
    """The final message: the answer verbatim when the chain asks a question, else what was done."""
    runs = _groups(asks, vias)
    last = asks[-1]
    if goal is not None:
        group = runs[-1]
        if goal["kind"] == "count":
            np = noun_phrase(group, rng, with_sort=False)
            n = goal["expected"]
            return rng.choice(("There are {n} {np}.", "I found {n} {np}.")).format(n=n, np=np)
        sort = next(a for a in group if a["macro"] == "sort_by_form")
        value = (
            f" ({lower_label(sort.get('label', ''))} {goal.get('value', '')})" if goal.get("value") else ""
        )
        return f"The one with the {superlative(sort)} is {goal['expected']}{value}."
    if last["macro"] == "report_information":
        return f'The {lower_label(last.get("label", ""))} of "{last.get("entry", "")}" is {last.get("answer", "")}.'
    if last["macro"] == "count_entries":
        values = last.get("values", [""])
        return f'There are {last.get("answer", "")} {last["plural"]} with {lower_label(last.get("label", ""))} "{values[0]}".'
    said = [done_clause(r, rng) for r in runs]
    return "Done: " + listing(said) + "."


# the words of a goal with live steps (`plandvc.chains.goal_words.goal_words`): (request, steps, final message),
# drawn through the drawer when one is given (varied phrasing; it then records the request's ids)
GoalWords = Callable[[Goal, Sequence[Ask], random.Random, Drawer | None], tuple[str, list[GoalStep], str]]


def compose(
    asks: Sequence[Ask],
    vias: Sequence[str | None],
    key: str,
    seed: int = 0,
    goal: Goal | None = None,
    drawer: Drawer | None = None,
    goal_words: GoalWords | None = None,
) -> Composed:
    """A chain's words from its parts' facts (and its goal), seeded by `seed` and the chain's `key`; with a
    `drawer` (varied phrasing) the request and final message are drawn from its phrasing set. The delegations
    are the same either way (the targets)."""
    rng = random.Random(f"compose:{seed}:{key}")
    if goal is not None and "steps" in goal:  # a goal kind that uses what is found: its own words
        if goal_words is None:
            raise InputError(
                f"chain {key}: a goal with live steps needs its words (plandvc.chains.goal_words)"
            )
        request, steps, final = goal_words(goal, asks, rng, drawer)
        return Composed(request, [delegation(a) for a in asks], final, None, steps)
    if drawer is None:
        request = request_text(asks, vias, rng, goal)
        final = final_text(asks, vias, rng, goal)
    else:
        request = varied_request(asks, vias, drawer, goal)
        drawer.request = list(drawer.used)
        final = varied_final(asks, vias, drawer, goal)
    return Composed(
        request,
        [delegation(a) for a in asks],
        final,
        goal_delegation(goal, asks[-1]) if goal is not None else None,
    )


# ── varied phrasing (chains.phrasing: varied; plandvc.chains.phrasing has the registry) ──


def varied_constraint(ask: Ask, d: Drawer, bare: bool) -> str:
    """One list constraint in a drawn phrasing, in the parts' order (a sort where the walk put it)."""
    m, values = ask["macro"], ask.get("values", [])
    label = lower_label(ask.get("label", ""))
    if m == "sort_by_form":
        return d.form(sort_kind(ask)).format(l=label)
    if m in ("search_by_text", "choose_suggestion"):
        return d.form("search").format(v=values[0])
    if m == "filter_by_slider":
        label = label[4:] if label.startswith("max ") else label
        # "no more than 14 read time": a number before its label only where the label counts ("14 weeks")
        return d.form("max", fits=lambda f: counts(label) or "{v} {l}" not in f).format(l=label, v=values[0])
    if m == "filter_by_date_range":
        lead = label if label.endswith("ed") else f"with {label}"
        return d.form("range").format(lead=lead, a=values[0], b=values[-1])
    if len(values) > 1:
        return d.form("many").format(l=label, vor=either(values, "or"), vand=either(values, "and"))
    kind = "one.bare" if bare and d.chance(0.25) else "one"
    return d.form(kind).format(l=label, v=values[0], al=f"{article_heard(label)} {label}")


def varied_np(group: Sequence[Ask], d: Drawer) -> str:
    """The list and its constraints, said in the parts' order: "dishes with calories up to 800, with the highest
    rating first and whose cuisine is Italian" (a label left out once a phrase at most)."""
    said: list[str] = []
    bare = True
    for a in group:
        if a["macro"] in LIST_MACROS:
            said.append(varied_constraint(a, d, bare))
            bare = bare and d.used[-1].split("#")[0] != "one.bare"
    return d.plural(group[0]) + (" " + listing(said) if said else "")


def varied_clause(ask: Ask, d: Drawer) -> str:
    """An entry or page part on its own in a drawn phrasing, lower case, no end mark (a question keeps "?")."""
    m = ask["macro"]
    if m == "create_entry":
        fields = listing(
            [d.form("field").format(l=lower_label(k), qv=quoted(v)) for k, v in ask.get("fields", [])]
        )
        return d.form("create_entry").format(a=article(ask["singular"]), s=ask["singular"], f=fields)
    if m in PHRASINGS_KINDS:
        return d.form(m).format(**words(ask))
    return f"show me {varied_np([ask], d)}"


def varied_request(asks: Sequence[Ask], vias: Sequence[str | None], d: Drawer, goal: Goal | None) -> str:
    """The user's request in drawn phrasings: an optional lead sentence, the runs joined by drawn links, a
    question last; a goal chain's one run is its goal question."""
    runs = _groups(asks, vias)
    lead, hedge, close = frame(d)
    if goal is not None and len(runs) == 1:
        ask = d.form(f"goal.{goal['kind']}").format(np=varied_np(runs[0], d), s=runs[0][0]["singular"])
        return assemble(lead, hedge, ask, close)
    phrases: list[str] = []
    question: str | None = None
    end = "."
    for i, run in enumerate(runs):
        if run[0]["macro"] in LIST_MACROS:
            np = varied_np(run, d)
            if i == 0:
                if d.voice.purposes and d.chance(0.3):
                    np += " " + d.rng.choice(d.voice.purposes)
                opening = d.form("open").format(np=np)
                end = opening[-1]
                phrases.append(opening[:-1])
            else:
                phrases.append(d.form("again").format(np=np))
            continue
        c = varied_clause(run[0], d)
        if c.endswith("?"):
            question = _sentence(c)
            continue
        if i > 0 and run[0]["macro"] == "open_entry" and runs[i - 1][0]["macro"] in LIST_MACROS:
            c = d.form("open_among").format(e=run[0].get("entry", ""))
        phrases.append(_sentence(c) if i == 0 else c)
    out = ""
    for i, p in enumerate(phrases):
        if i == 0:
            out = p
            continue
        link = d.form("link")
        out += link + (_sentence(p) if link.rstrip().endswith(".") else p)
        end = "." if "." in link else end
    out = (out + end) if out else ""
    if question is not None:
        out = (out + " " + question).strip()
    return assemble(lead, hedge, out, close)


def frame(d: Drawer) -> tuple[str, str, str]:
    """A request's frame, each piece drawn or not: (the lead: a greeting, the domain's lead sentence; a hedge;
    the close: an aside, a closing), for `assemble` around the body."""
    lead = d.form("greeting") + " " if d.chance(0.25) else ""
    lead += d.rng.choice(d.voice.leads) + " " if d.voice.leads and d.chance(0.6) else ""
    close = " " + d.form("aside") if d.chance(0.35) else ""
    close += " " + d.form("closing") if d.chance(0.25) else ""
    hedge = d.form("hedge") if d.chance(0.2) else ""
    return lead, hedge, close


_OWNED = re.compile(r"\b[Tt]he (?=(?:my|your|our) )")
# a count before a list that owns itself: "2 my trips", "How many my trips" -> "2 of my trips"
_COUNTED_OWNED = re.compile(r"(?<![\w\"])(\d[\d,]*|[Hh]ow many) (?=(?:my|your|our) )")


def owned(text: str) -> str:
    """A list that owns itself ("my bookings") after "the" or a count, as a user says it: "my bookings", "2 of
    my bookings" (the varied words; v3's request keeps "the my" dropped only)."""
    return _COUNTED_OWNED.sub(r"\1 of ", _OWNED.sub("", text))


def _after(head: str, text: str) -> str:
    """`text` after `head`: lower case after a head that ends no sentence ("Alright, count ..."), "I" kept."""
    if not head or head.rstrip()[-1:] in ".!?" or text.startswith(("I ", "I'")):
        return text
    return text[:1].lower() + text[1:]


def assemble(lead: str, hedge: str, body: str, close: str) -> str:
    """The request from its pieces: a lead (greeting, the domain's sentence), a hedge, the body, a closing;
    "the my bookings" said "my bookings"."""
    body = hedge + _after(hedge, body) if hedge else body
    text = lead + _after(lead, body) + close
    return owned(text)


def varied_final(asks: Sequence[Ask], vias: Sequence[str | None], d: Drawer, goal: Goal | None) -> str:
    """The final message in a drawn phrasing: the answer verbatim when the chain asks, else what was done."""
    runs = _groups(asks, vias)
    last = asks[-1]
    if goal is not None:
        group = runs[-1]
        if goal["kind"] == "count":
            one = str(goal["expected"]) == "1"  # "There are 1 sign-ups": one has forms of its own
            said = d.form("final.count.one" if one else "final.count")
            return owned(said.format(n=goal["expected"], np=varied_np(group, d)))
        sort = next(a for a in group if a["macro"] == "sort_by_form")
        value = (
            f" ({lower_label(sort.get('label', ''))} {goal.get('value', '')})" if goal.get("value") else ""
        )
        said = d.form("final.top").format(np=varied_np(group, d), x=goal["expected"], value=value)
        # a sentence that opens on the entry keeps its name verbatim ("deep-cache comes first")
        return owned(said if said.startswith(str(goal["expected"])) else _sentence(said))
    if last["macro"] == "report_information":
        return d.form("final.report").format(x=last.get("answer", ""), **words(last))
    if last["macro"] == "count_entries":
        return owned(d.form("final.count_entries").format(x=last.get("answer", ""), **words(last)))
    return d.form("final.done").format(said=listing([done_clause(r, random.Random(0)) for r in runs]))


# the entry and page parts' clause kinds the registry has
PHRASINGS_KINDS = frozenset(
    {"open_entry", "edit_entry", "delete_entry", "copy_value", "navigate_to_page", "report_information",
     "count_entries", "switch_tab"}
)  # fmt: skip


REQUESTS = (
    "joined",
    "composed",
)  # chains.request: the parts' instructions joined at run time, or composed here


def compose_chains(
    chains: Sequence[ChainSpec],
    items: Iterable[ItemRecord],
    seed: int = 0,
    phrasing: str = PHRASING[0],
    phrasing_set: str = "training",
    goal_words: GoalWords | None = None,
) -> list[ChainSpec]:
    """The chains with their words: each part's delegation (`say`), the request (`request_by: composed`), the
    final message, and a goal's delegation. With `phrasing: varied` the request and final message are drawn
    from `phrasing_set`'s phrasings (training or held-out, split by the seed) in the voice of the chain's domain
    (its first part's id's first word), and the chain records the set and the ids it used (`phrasing`). A
    part whose item has no `Ask` (pool-items made it without the site's spec) is an error naming it."""
    if phrasing not in PHRASING:
        raise InputError(f"phrasing: expected one of {', '.join(PHRASING)}, got {phrasing!r}")
    split = PhrasingSplit(seed)
    by_id = {r["id"]: r for r in items}
    out: list[ChainSpec] = []
    for chain in chains:
        asks = []
        for p in chain["parts"]:
            ask = by_id[p["id"]].get("ask")
            if ask is None:
                raise InputError(
                    f"item {p['id']!r}: no 'ask' (pool-items writes it when --sites has the site's spec)"
                )
            asks.append(ask)
        goal = chain.get("goal")
        drawer = None
        if phrasing == "varied":
            rng = random.Random(f"phrasing:{seed}:{chain['key']}")
            drawer = Drawer(rng, split, phrasing_set, voice_of(chain["parts"][0]["id"].split("-", 1)[0]))
        words = compose(
            asks, [p["via"] for p in chain["parts"]], chain["key"], seed, goal, drawer, goal_words
        )
        made: ChainSpec = {
            **chain,
            "parts": [{**p, "say": say} for p, say in zip(chain["parts"], words.delegations, strict=True)],
            "request": words.request,
            "request_by": "composed",
            "final": words.final,
        }
        if goal is not None and words.goal is not None:
            made["goal"] = {**goal, "say": words.goal}
        if drawer is not None and drawer.used:
            said = len(drawer.request)
            made["phrasing"] = ChainPhrasing(
                set=phrasing_set, seed=seed, request=drawer.used[:said], final=drawer.used[said:]
            )
        if goal is not None and words.goal_steps is not None:
            made["goal"] = {**goal, "steps": words.goal_steps}
        out.append(made)
    return out


# ── the checks the words are held to ─────────────────────────────────────────

# a widget word, and the control implementations that have that widget (none: no page of ours has it)
WIDGET_WORDS: dict[str, frozenset[str]] = {
    "slider": frozenset({"range"}),
    "dropdown": frozenset({"select"}),
    "checkbox": frozenset({"checkboxes"}),
    "tick": frozenset({"checkboxes"}),
    "chip": frozenset({"chips"}),
    "radio": frozenset({"radios"}),
    "calendar": frozenset({"calendar"}),
    "header": frozenset({"headers"}),
    "suggestion": frozenset({"autocomplete"}),
    "sort form": frozenset(),
    "search box": frozenset(),
}
_WIDGET = re.compile(r"\b(" + "|".join(re.escape(w) for w in WIDGET_WORDS) + r")(?:es|s)?\b", re.I)
_BROKEN = re.compile(r"\b(?:a (?=[aeiouAEIOU]\w)|an (?=[^aeiouAEIOU\W\d])|the (?=my |your |our ))")


def widget_words(text: str) -> list[str]:
    """The widget words `text` names, in order ("slider", "dropdown", ...; plurals as the word)."""
    return [m.group(1).lower() for m in _WIDGET.finditer(text)]


def widget_problems(text: str, impl: str) -> list[str]:
    """The widget words of `text` that a control drawn as `impl` does not have (empty: none)."""
    return [
        f"{w!r} on a control drawn as {impl!r}" for w in widget_words(text) if impl not in WIDGET_WORDS[w]
    ]


def grammar_problems(text: str) -> list[str]:
    """Broken articles: "a issue", "an booking", "the my submissions" (empty: none)."""
    return [f"broken article at {text[m.start() : m.start() + 12]!r}" for m in _BROKEN.finditer(text)]
