"""The words of the goal kinds that use what the team finds (`plandvc.chains.goal_kinds`): the user's request,
each live step's delegation (and its checklist words before its values are found), and the final message.

Kept apart from the composer's own phrasing (`plandvc.chains.compose`, which calls `goal_words` for a goal with
live steps): the request names the constraints and what to report, never the entry a `detail` or `act` goal
finds; the delegations after a `find` carry the found name verbatim; the final message gives every value read.
Seeded by the composer's `random.Random` of the chain (one fixed order of draws), a few variants each; with
varied phrasing (`chains.phrasing: varied`) the request and the final message are drawn instead through the
chain's `Drawer` from the kinds registered below (`goal.detail`, `final.lookup`, ...: their held-out forms give
the held-out words), the constraints in their varied phrasings, in the domain's voice. The delegations are the
same either way (the targets).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from plandvc.chains.compose import (
    article,
    assemble,
    constraint,
    frame,
    listing,
    lower_label,
    owned,
    superlative,
    the,
    varied_np,
)
from plandvc.chains.phrasing import Drawer, register, sort_kind
from plandvc.macros.navigate_to_page import MACRO as NAVIGATE
from plandvc.records import Ask, ChainGoal, GoalStep


def _fields(steps: Sequence[GoalStep]) -> str:
    return listing([lower_label(s.get("label", "")) for s in steps if s["do"] == "read"])


def _values(steps: Sequence[GoalStep]) -> str:
    """ "its diet is Vegetarian", "its diet and cuisine are Vegan and Thai" (the goal's answer verbatim)."""
    reads = [s for s in steps if s["do"] == "read"]
    said = " and ".join(str(s["check"].get("expected", "")) for s in reads)
    return f"its {_fields(steps)} {'is' if len(reads) == 1 else 'are'} {said}"


def _copied(st: GoalStep, singular: str) -> str:
    """What a copy copies, as a user says it: its field, or "name" when the field is the entry's own."""
    label = lower_label(st.get("label", ""))
    return "name" if label == singular.lower() else label


def _found_phrase(group: Sequence[Ask], rng: random.Random) -> tuple[str, str]:
    """(the entry the constraints leave as the request names it, as the final message names it)."""
    s = group[0]["singular"]
    sort = next((a for a in group if a["macro"] == "sort_by_form"), None)
    rest = [a for a in group if a is not sort]
    among = (" " + listing([constraint(a, rng, one=True) for a in rest])) if rest else ""
    if sort is None:
        return f"the only {s}{among}", f"the only {s}{among}"
    return f"the {s}{among} with the {superlative(sort)}", f"the one with the {superlative(sort)}"


def _request(goal: ChainGoal, group: Sequence[Ask], rng: random.Random) -> tuple[str, str]:
    """(the request, how the final message names the entry found)."""
    steps, kind = goal["steps"], goal["kind"]
    s = group[0]["singular"]
    if kind in ("lookup", "compare"):
        names = [st["name"] for st in steps if st["do"] == "open"]
        if kind == "lookup":
            form = rng.choice(
                (
                    'What is the {f} of the {s} "{e}"?',
                    'Look up the {s} "{e}" and tell me its {f}.',
                    'I need the {f} of the {s} "{e}".',
                )
            )
            return _among(group, rng, form.format(f=_fields(steps), s=s, e=names[0])), ""
        label = lower_label(steps[1].get("label", ""))
        form = rng.choice(
            (
                'Which has the higher {f}, the {s} "{a}" or "{b}"? Give me both values.',
                'Compare the {f} of the {p} "{a}" and "{b}": which one is higher?',
                'Between "{a}" and "{b}", which {s} has the higher {f}? Tell me each one\'s {f}.',
            )
        )
        said = form.format(f=label, s=s, p=group[0]["plural"], a=names[0], b=names[1])
        return _among(group, rng, said), ""
    if kind == "carry":
        return _carry_form(steps, group, rng.choice(_CARRY_FORMS[_how(steps)])), ""
    asked, named = _found_phrase(group, rng)
    if kind == "detail":
        form = rng.choice(
            (
                "Find {x} and tell me its {f}.",
                "What is the {f} of {x}?",
                "I'm looking for {x}. What is its {f}?",
                "Look up {x} and report its {f}.",
            )
        )
        return form.format(x=asked, f=_fields(steps)), named
    last = steps[-1]
    if last["do"] == "copy":
        form = rng.choice(("Find {x} and copy its {f} to my clipboard.", "Copy the {f} of {x} for me."))
        return form.format(x=asked, f=_copied(last, s)), named
    if last["do"] == "add":
        form = rng.choice(("Find {x} and add it to my {f}.", "Put {x} in my {f}."))
        return form.format(x=asked, f=last.get("label", "")), named
    if last["do"] == "edit":
        form = rng.choice(('Find {x} and set its {f} to "{v}".', 'Change the {f} of {x} to "{v}".'))
        return form.format(x=asked, f=lower_label(last.get("label", "")), v=last.get("value", "")), named
    form = rng.choice(("Find {x} and delete it.", "Delete {x}, please.", "Remove {x} from {the_p}."))
    return form.format(x=asked, the_p=the(group[0]["plural"])), named


# a carry goal's request (v3's phrasing), by how the list is narrowed: {p} plural, {s} singular, {f} the field, {e}
_CARRY_FORMS = {
    "select": (
        'How many {p} have the same {f} as the {s} "{e}"?',
        'Count {the_p} that share the {f} of "{e}".',
        'Check the {f} of the {s} "{e}" and tell me how many {p} have that {f}.',
    ),
    "input": (
        'Search {the_p} for the {f} of the {s} "{e}": how many come up?',
        'Look up the {f} of "{e}" and search {the_p} for it. How many are there?',
        'How many {p} does a search for the {f} of "{e}" find?',
    ),
}


_CARRY_FINAL = {
    "select": 'The {f} of "{e}" is {v}, and {n} {p} have that {f}.',
    "input": 'The {f} of "{e}" is {v}; a search of {the_p} for it finds {n}.',
}


def _narrow(steps: Sequence[GoalStep]) -> GoalStep:
    return next(st for st in steps if st["do"] == "narrow")


def _how(steps: Sequence[GoalStep]) -> str:
    """How a carry goal's words say its narrowing: "input" (a search) or "select" (a filter, a facet too)."""
    return "input" if _narrow(steps).get("action") == "input" else "select"


def _carry_form(steps: Sequence[GoalStep], group: Sequence[Ask], form: str, n: str = "") -> str:
    """A carry goal's words from `form`: {e} the entry named, {f} the field read, {p}/{s}/{a} the list's nouns;
    in the final message only, {v} the value read and {n} the count (the request never holds the value)."""
    st = _narrow(steps)
    s, p = group[0]["singular"], group[0]["plural"]
    f = field_noun(st.get("label", ""), st.get("value", ""))  # "frequency", not "the same how often as"
    said = form.format(p=p, the_p=the(p), s=s, a=article(s), f=f, e=st["name"], v=st.get("value", ""), n=n)
    return _up(owned(said))  # "3 of my trips", "How many of my trips"


def _among(group: Sequence[Ask], rng: random.Random, said: str) -> str:
    """An app's named entries among the constraints that list them ("Among the tickets whose component is X,
    what ..."); `said` as it is after a navigation (the generated sites' lookups and compares draw nothing)."""
    rest = [a for a in group if a["macro"] != NAVIGATE.name]
    if not rest:
        return said
    among = listing([constraint(a, rng, one=False) for a in rest])
    head = said if said.startswith(("I ", "I'")) else said[:1].lower() + said[1:]
    return f"Among the {group[0]['plural']} {among}, {head}"


def _say(st: GoalStep, s: str, group: Sequence[Ask]) -> tuple[str, str]:
    """(a live step's delegation, its checklist words before the chain found its values)."""
    do, e, label = st["do"], st["name"], st.get("label", "")
    if do == "find":
        sorted_ = any(a["macro"] == "sort_by_form" for a in group)
        say = (
            f"Read the name of the first {s} shown, as the list is sorted now."
            if sorted_
            else f"Read the name of the one {s} the list shows now."
        )
        return say, say
    if do == "open":
        return f'Open the {s} "{e}".', f"Open the {s} found"
    if do == "read":
        return f'Read the {label} of the {s} "{e}".', f"Read its {lower_label(label)}"
    if do == "copy":
        return f'Copy the {label} of the {s} "{e}".', f"Copy its {lower_label(label)}"
    p = group[0]["plural"]
    if do == "narrow":  # the value read, carried verbatim
        v, f = st.get("value", ""), lower_label(label)
        if st.get("action") == "input":
            return f'Search {the(p)} for "{v}".', f"Search {the(p)} for that {f}"
        return f'Filter {the(p)} by {f} "{v}".', f"Filter {the(p)} by that {f}"
    if do == "count":
        return f"Read how many {p} the list shows now.", f"Read how many {p} the list shows now."
    if do == "add":
        return f'Add the {s} "{e}" to the {label}.', f"Add it to the {label}"
    if do == "edit":
        v = st.get("value", "")
        return (
            f'Set the {lower_label(label)} of the {s} "{e}" to "{v}".',
            f'Set its {lower_label(label)} to "{v}"',
        )
    return f'Delete the {s} "{e}".', f"Delete the {s} found"


def _final(goal: ChainGoal, group: Sequence[Ask], named: str, rng: random.Random) -> str:
    steps, kind, s = goal["steps"], goal["kind"], group[0]["singular"]
    if kind == "carry":
        return _carry_form(steps, group, _CARRY_FINAL[_how(steps)], goal["expected"])
    if kind == "lookup":
        return f'The {s} "{steps[0]["name"]}": {_values(steps)}.'
    if kind == "compare":
        a, b = steps[1], steps[3]
        high, low = (a, b) if a["name"] == goal["expected"] else (b, a)
        label = lower_label(a.get("label", ""))
        return rng.choice(
            (
                '"{h}" has the higher {l}: {hv}, against {lv} for "{lo}".',
                'The {l} of "{h}" is {hv} and that of "{lo}" is {lv}, so "{h}" is higher.',
            )
        ).format(
            h=high["name"],
            lo=low["name"],
            l=label,
            hv=high["check"].get("expected"),
            lv=low["check"].get("expected"),
        )
    name = steps[0]["name"]
    if kind == "detail":
        return f'{named[:1].upper()}{named[1:]} is "{name}": {_values(steps)}.'
    last = steps[-1]
    if last["do"] == "copy":
        label = _copied(last, s)
        return f'{named[:1].upper()}{named[1:]} is "{name}"; I copied its {label}, {last["check"].get("value")}, to your clipboard.'
    if last["do"] == "add":
        return f'{named[:1].upper()}{named[1:]} is "{name}"; I added it to your {last.get("label", "")}.'
    if last["do"] == "edit":
        return f'{named[:1].upper()}{named[1:]} is "{name}"; I set its {lower_label(last.get("label", ""))} to "{last.get("value", "")}".'
    return f'{named[:1].upper()}{named[1:]} was "{name}"; I deleted it.'


# ── varied phrasing of the goal kinds (chains.phrasing: varied; plandvc.chains.phrasing has the draw) ──
# fields: {x} the entry found as the request names it (a `find.*` phrase), {X} the same capitalised, {np} the
# list and its constraints, {s}/{p}/{a} singular, plural, article, {sup} a sort's superlative, {f} the fields
# asked, {e} an entry's name, {v} the values read (verbatim, joined by "and"), {is} "is" or "are", {hi} "higher"
# or "later", {h}/{lo} the entries with the higher and the lower value, {hv}/{lv} their values

register("find.sorted", (
    "the {s} with the {sup} among {np}", "whichever of all {np} has the {sup}", "the one with the {sup} among {np}",
    "the {s} that has the {sup} out of all {np}", "the one of all {np} with the {sup}", "the {s} among {np} that has the {sup}",
    "the {s} with the {sup} from {np}", "whichever {s} of all {np} has the {sup}", "the one of all {np} that comes with the {sup}",
    "the {s} of all {np} with the very {sup}", "the entry with the {sup} among {np}", "the {s} holding the {sup} among {np}",
))  # fmt: skip
register("find.only", (
    "the only one of all {np}", "the one {s} among {np}", "the single {s} among {np}", "the sole entry among {np}",
    "the lone one of all {np}", "the only match among {np}", "the unique {s} among {np}", "the only {s} left among {np}",
    "the one and only entry of all {np}", "the single result among {np}", "the only {s} that shows up among {np}",
    "the one entry that fits among {np}",
))  # fmt: skip
register("named.sorted", ("the one with the {sup}", "the {s} with the {sup}", "the one that has the {sup}"))
register("named.only", ("the only one", "the only match", "the single {s} that fits"))
register("goal.detail", (
    "Find {x} and tell me its {f}.", "What is the {f} of {x}?", "I'm looking for {x}. What is its {f}?",
    "Look up {x} and report its {f}.", "Can you tell me the {f} of {x}?", "I need the {f} of {x}.",
    "Please check {x} and give me its {f}.", "What {f} does {x} have?", "I'd like to know the {f} of {x}.",
    "Could you find {x}? I need its {f}.", "Tell me the {f} of {x}, please.", "Help me find {x}, and let me know its {f}.",
    "Give me the {f} of {x}.", "Do you know the {f} of {x}?", "Get me the {f} of {x}.", "Find out the {f} of {x}.",
    "I want the {f} of {x}.", "Quick question: what's the {f} of {x}?", "Track down {x} and read me its {f}.",
    "Which {f} is listed for {x}?", "I'm after the {f} of {x}.", "Could you look into {x} and note its {f}?",
))  # fmt: skip
register("goal.lookup", (
    'What is the {f} of the {s} "{e}"?', 'Look up the {s} "{e}" and tell me its {f}.', 'I need the {f} of the {s} "{e}".',
    'Can you check what {f} the {s} "{e}" has?', "I'm looking for the {f} of \"{e}\".", "For the {s} \"{e}\", what's the {f}?",
    'Open "{e}" and read me its {f}.', 'Tell me the {f} listed for the {s} "{e}".', 'Quick check on "{e}": what is its {f}?',
    "There is {a} {s} called \"{e}\". What's its {f}?", 'Find the {s} "{e}" and let me know its {f}.',
    'Do you know the {f} of "{e}"?', '"{e}": what {f} does it have?', "I'd like to know the {f} of the {s} \"{e}\".",
    'Please get me the {f} of "{e}".', 'Which {f} does the {s} "{e}" have?', 'Could you pull up "{e}" and give me its {f}?',
    'What {f} is given for "{e}"?', 'I want to check the {f} of "{e}".', 'Go to the {s} "{e}" and tell me the {f}.',
    "I'm curious about \"{e}\". What is its {f}?", 'Read off the {f} of the {s} "{e}" for me.',
))  # fmt: skip
register("goal.compare", (
    'Which has the {hi} {f}, the {s} "{a}" or "{b}"? Give me both values.',
    'Compare the {f} of the {p} "{a}" and "{b}": which one is {hi}?',
    "Between \"{a}\" and \"{b}\", which {s} has the {hi} {f}? Tell me each one's {f}.",
    "I'm torn between \"{a}\" and \"{b}\". Which has the {hi} {f}, and what are the two values?",
    'Look at "{a}" and "{b}" and tell me which has the {hi} {f}, with both values.',
    'Does "{a}" or "{b}" have the {hi} {f}? Tell me both.', 'Check the {f} of "{a}" against that of "{b}": which is {hi}?',
    "Of the {p} \"{a}\" and \"{b}\", which one's {f} is {hi}? Please give both values.",
    'What is the {f} of "{a}" and of "{b}", and which is {hi}?', 'I want to know whether "{a}" or "{b}" has the {hi} {f}. Include both values.',
    'Put "{a}" and "{b}" side by side on {f}: which is {hi}?', 'Tell me the {f} of both "{a}" and "{b}" and which of the two is {hi}.',
    'Help me compare "{a}" with "{b}" by {f}. Which comes out {hi}?', 'Is the {f} of "{a}" {hi} than that of "{b}"? I need both values.',
    'For the {p} "{a}" and "{b}", find out which has the {hi} {f} and what each one has.',
))  # fmt: skip
register("goal.act.copy", (
    "Find {x} and copy its {f} to my clipboard.", "Copy the {f} of {x} for me.", "I need the {f} of {x} on my clipboard.",
    "Could you copy the {f} of {x}?", "Grab the {f} of {x} so I can paste it.", "Put the {f} of {x} on my clipboard, please.",
    "Look up {x} and copy its {f}.", "I'm looking for {x}; copy its {f} for me.", "Please copy the {f} belonging to {x}.",
    "Can you get the {f} of {x} onto my clipboard?", "I want to paste the {f} of {x} somewhere, so copy it for me.",
    "Save me some typing: copy the {f} of {x}.", "Copy over the {f} of {x}.", "Find {x} and put its {f} on my clipboard.",
))  # fmt: skip
register("goal.act.delete", (
    "Find {x} and delete it.", "Delete {x}, please.", "Remove {x} from {the_p}.", "Could you delete {x}?",
    "Get rid of {x}.", "I'd like {x} removed.", "Please erase {x}.", "Look up {x} and remove it.",
    "{X} has to go: delete it.", "Delete {x} for me.", "I no longer need {x}, so please delete it.",
    "Can you remove {x} from {the_p}?", "Clear out {x}.", "Track down {x} and delete it.",
))  # fmt: skip
register("final.detail", (
    '{X} is "{e}": its {f} {is} {v}.', '"{e}" is {x}; its {f} {is} {v}.', 'I found "{e}". Its {f} {is} {v}.',
    'That would be "{e}", whose {f} {is} {v}.', 'Found it: "{e}". The {f} {is} {v}.', 'For "{e}" ({x}), the {f} {is} {v}.',
    '{X} turned out to be "{e}", with {f} {v}.', 'The answer: "{e}" has {f} {v}.', 'Here it is: "{e}", {f} {v}.',
    'It is "{e}", and its {f} {is} {v}.', '{X} is "{e}". {f_} {v}.', 'I checked: {x} is "{e}", {f} {v}.',
))  # fmt: skip
register("final.lookup", (
    'The {s} "{e}": its {f} {is} {v}.', 'The {f} of "{e}" {is} {v}.', '"{e}" has {f} {v}.', 'For "{e}", the {f} {is} {v}.',
    'I checked "{e}": {f} {v}.', 'The {s} "{e}" lists {f} {v}.', 'Here you go: the {f} of "{e}" {is} {v}.',
    'On the page of "{e}", the {f} {is} {v}.', '"{e}" shows {v} as its {f}.', 'I found it: "{e}", {f} {v}.',
    '{f_} of "{e}": {v}.',
))  # fmt: skip
register("final.compare", (
    '"{h}" has the {hi} {f}: {hv}, against {lv} for "{lo}".', 'The {f} of "{h}" is {hv} and that of "{lo}" is {lv}, so "{h}" is {hi}.',
    '"{h}" comes out {hi}, with {f} {hv}; "{lo}" has {lv}.', 'It\'s "{h}": {hv} against {lv} for "{lo}".',
    '"{lo}" has {f} {lv} while "{h}" has {hv}, so "{h}" is {hi}.', 'I checked both: "{h}" is at {hv} and "{lo}" at {lv}, so "{h}" is {hi}.',
    'The {hi} {f} belongs to "{h}" ({hv}); "{lo}" has {lv}.', '"{h}", with {hv}; "{lo}" only has {lv}.',
    '{f_}: "{h}" {hv}, "{lo}" {lv}. So "{h}" has the {hi} one.', 'Between the two, "{h}" wins on {f} ({hv} against {lv}).',
))  # fmt: skip
register("final.act.copy", (
    '{X} is "{e}"; I copied its {f}, {v}, to your clipboard.', 'I found "{e}" and copied its {f}, {v}.',
    'Your clipboard now holds {v}, the {f} of "{e}".', '"{e}" is {x}. Its {f}, {v}, is on your clipboard.',
    'Done: {v} (the {f} of "{e}") is copied.', 'The {f} of "{e}", {v}, is ready to paste.',
    'It was "{e}"; I put its {f} {v} on your clipboard.', 'I copied {v} for you: that is the {f} of "{e}", {x}.',
    'Copied the {f} of "{e}" ({x}): {v}.', '{X} is "{e}", and {v} is now on your clipboard.',
))  # fmt: skip
register("final.act.delete", (
    '{X} was "{e}"; I deleted it.', 'I deleted "{e}", {x}.', '"{e}" is gone: it was {x}.', 'Done: "{e}" has been deleted.',
    'I found "{e}" and removed it.', 'Removed "{e}" ({x}).', '"{e}" was {x}, and it is deleted now.',
    'It was "{e}"; it has been removed.', 'Deleted: "{e}".', 'That was "{e}", and I have deleted it.',
))  # fmt: skip


def _found_varied(group: Sequence[Ask], d: Drawer) -> tuple[str, str]:
    """(the entry the constraints leave as the request names it, the superlative it said: "" when no sort), drawn:
    the list and its other constraints in their varied phrasings (in the parts' order), a sort as its superlative."""
    s = group[0]["singular"]
    sort = next((a for a in group if a["macro"] == "sort_by_form"), None)
    rest = [a for a in group if a is not sort]
    np = varied_np(rest, d) if rest else d.plural(group[0])
    if sort is None:
        if d.voice.purposes and d.chance(0.3):
            np += " " + d.rng.choice(d.voice.purposes)
        return d.form("find.only").format(np=np, s=s), ""
    sup = varied_superlative(sort, d)
    return d.form("find.sorted").format(np=np, s=s, sup=sup), sup


def varied_superlative(sort: Ask, d: Drawer) -> str:
    """A sort on a number or a date as a drawn superlative: "highest rating", "latest published date"."""
    label = lower_label(sort.get("label", ""))
    kind = sort_kind(sort).removeprefix("sort.")
    if kind.startswith("date"):
        label = f"{label} date" if label.endswith("ed") else label
    elif not kind.startswith("number"):
        return superlative(sort)
    return d.form(f"sup.{kind}").format(l=label)


_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# labels that are no noun ("By" over a story's author): the noun a user says for them
FIELD_NOUNS = {"by": "byline", "enrolled": "number enrolled", "deliver to": "delivery address", "how often": "frequency",
               "enrolled on": "enrolment date"}  # fmt: skip


def field_noun(label: str, value: object) -> str:
    """A field as a user names it in varied words: a date field whose label is a verb ("Opened", "Starts") as
    "opened date", "start date"; a label that is no noun by its noun ("byline")."""
    said = lower_label(label)
    said = FIELD_NOUNS.get(said, said)
    last = said.rsplit(" ", 1)[-1]
    if _DAY.match(str(value)) and last in _DATE_VERBS:
        return said.removesuffix(last) + _DATE_VERBS[last]
    if _DAY.match(str(value)) and last.endswith("ed") and not last.endswith("eed"):
        return said + " date"
    return said


_DATE_VERBS = {"starts": "start date", "departs": "departure date", "arrives": "arrival date"}


def _reads(steps: Sequence[GoalStep]) -> dict[str, str]:
    """The fields a goal reads (as a user names them, `field_noun`) and their values verbatim, for the forms:
    {f}, {f_}, {v}, {is}."""
    reads = [s for s in steps if s["do"] == "read"]
    f = listing([field_noun(s.get("label", ""), s["check"].get("expected", "")) for s in reads])
    said = " and ".join(str(s["check"].get("expected", "")) for s in reads)
    return {"f": f, "f_": f[:1].upper() + f[1:], "v": said, "is": "is" if len(reads) == 1 else "are"}


def _up(text: str) -> str:
    return text[:1].upper() + text[1:]


def varied_goal_request(goal: ChainGoal, group: Sequence[Ask], d: Drawer) -> tuple[str, str]:
    """(the request drawn through `d`, the superlative that found the entry: "" when none); framed as varied_request
    frames a request (a greeting, the domain's lead, a hedge, an aside, a closing)."""
    lead, hedge, close = frame(d)
    steps, kind = goal["steps"], goal["kind"]
    s, p = group[0]["singular"], group[0]["plural"]
    sup = ""
    if kind == "lookup":
        e = next(st["name"] for st in steps if st["do"] == "open")
        body = _among(group, d.rng, d.form("goal.lookup").format(s=s, a=article(s), e=e, **_reads(steps)))
    elif kind == "carry":
        body = _carry_form(steps, group, d.form(f"goal.carry.{_how(steps)}"))
    elif kind == "compare":
        names = [st["name"] for st in steps if st["do"] == "open"]
        body = d.form("goal.compare").format(
            f=field_noun(steps[1].get("label", ""), steps[1]["check"].get("expected", "")),
            s=s,
            p=d.plural(group[0]),
            a=names[0],
            b=names[1],
            hi=_higher(steps),
        )
        body = _among(group, d.rng, body)
    else:
        x, sup = _found_varied(group, d)
        last = steps[-1]
        if kind == "detail":
            body = d.form("goal.detail").format(x=x, X=_up(x), **_reads(steps))
        elif last["do"] == "copy":
            body = d.form("goal.act.copy").format(x=x, X=_up(x), f=_copied(last, s))
        elif last["do"] == "edit":
            f, v = lower_label(last.get("label", "")), last.get("value", "")
            body = d.form("goal.act.edit").format(x=x, X=_up(x), f=f, v=v)
        elif last["do"] == "add":
            body = d.form("goal.act.add").format(x=x, X=_up(x), f=last.get("label", ""))
        else:
            body = d.form("goal.act.delete").format(x=x, X=_up(x), the_p=the(p))
    return assemble(lead, hedge, body, close), sup


def _higher(steps: Sequence[GoalStep]) -> str:
    """How a compare's winner is said: "higher" for a number, "later" for a date."""
    return "higher" if steps[1]["check"].get("number") else "later"


def varied_goal_final(goal: ChainGoal, group: Sequence[Ask], sup: str, d: Drawer) -> str:
    """The final message drawn through `d`: every value read, the entry's name verbatim (the entry found named as
    the one with the superlative `sup` the request said, or the only one)."""
    steps, kind, s = goal["steps"], goal["kind"], group[0]["singular"]
    if kind == "carry":
        form = d.form(f"final.carry.{_how(steps)}")
        return _carry_form(steps, group, form, goal["expected"])
    if kind == "lookup":
        return _up(d.form("final.lookup").format(s=s, e=steps[0]["name"], **_reads(steps)))
    if kind == "compare":
        a, b = steps[1], steps[3]
        high, low = (a, b) if a["name"] == goal["expected"] else (b, a)
        label = field_noun(a.get("label", ""), a["check"].get("expected", ""))
        return _up(
            d.form("final.compare").format(
                h=high["name"], lo=low["name"], f=label, f_=_up(label), hi=_higher(steps),
                hv=high["check"].get("expected"), lv=low["check"].get("expected"),
            )
        )  # fmt: skip
    name, last = steps[0]["name"], steps[-1]
    named = d.form("named.sorted").format(s=s, sup=sup) if sup else d.form("named.only").format(s=s)
    x = {"x": named, "X": _up(named), "e": name}
    if kind == "detail":
        return _up(d.form("final.detail").format(**x, **_reads(steps)))
    if last["do"] == "copy":
        return _up(d.form("final.act.copy").format(**x, f=_copied(last, s), v=last["check"].get("value")))
    if last["do"] == "edit":
        f, v = lower_label(last.get("label", "")), last.get("value", "")
        return _up(d.form("final.act.edit").format(**x, f=f, v=v))
    if last["do"] == "add":
        return _up(d.form("final.act.add").format(**x, f=last.get("label", "")))
    return _up(d.form("final.act.delete").format(**x))


def goal_words(
    goal: ChainGoal, asks: Sequence[Ask], rng: random.Random, drawer: Drawer | None = None
) -> tuple[str, list[GoalStep], str]:
    """The words of a goal with live steps, after its parts' (`asks`: the constraints, or the navigation):
    (the request, the steps with their delegations, the final message); the composer's `GoalWords` hook. With
    a `drawer` the request and final message are drawn through it (it records their ids)."""
    group = [a for a in asks if a["macro"] != NAVIGATE.name] or list(asks)
    if drawer is not None:
        request, named = varied_goal_request(goal, group, drawer)
        drawer.request = list(drawer.used)
    else:
        request, named = _request(goal, group, rng)
    s = group[0]["singular"]
    found = False  # a step after one that reveals a value (a find, a read a carry narrows by) has a plan
    steps: list[GoalStep] = []
    for st in goal["steps"]:
        say, plan = _say(st, s, group)
        steps.append({**st, "say": say, **({"plan": plan} if found and plan != say else {})})  # type: ignore[typeddict-item]
        found = found or st["do"] == "find" or bool(st.get("reveals"))
    if drawer is not None:
        return request, steps, varied_goal_final(goal, group, named, drawer)
    return request, steps, _final(goal, group, named, rng)


# ── more forms of the goal kinds (ids continue after the first ones) ──
register("find.sorted", (
    "the {s} ranked first by {sup} among {np}", "the one out of all {np} with the {sup}", "the {s} boasting the {sup} of all {np}",
    "whichever one among {np} shows the {sup}", "the {s} carrying the {sup} within {np}", "the top {s} for {sup} among {np}",
    "the leader on {sup} among {np}", "the {s} from {np} that leads on {sup}",
    "the {s} with the {sup} I can find among {np}", "the {s} that wins on {sup} among {np}",
    "the {s} sitting at the {sup} among {np}",
))  # fmt: skip
register("find.only", (
    "the {s} matching {np}", "the one {s} that fits {np}", "whatever single {s} comes up for {np}",
    "the one result for {np}", "the lone {s} that qualifies among {np}", "the {s} that turns up for {np}",
    "the only hit for {np}", "the one {s} I'd get for {np}",
))  # fmt: skip
register(
    "sup.number.desc", ("highest {l}", "top {l}", "greatest {l}", "largest {l}", "maximum {l}", "biggest {l}")
)
register("sup.number.asc", ("lowest {l}", "smallest {l}", "minimum {l}", "lowest-ranked {l}", "bottom {l}"))
register("sup.date.desc", ("most recent {l}", "latest {l}", "newest {l}", "freshest {l}"))
register("sup.date.asc", ("earliest {l}", "oldest {l}", "first {l}", "longest-ago {l}"))
register("goal.detail", (
    "Can you find {x}? I'd like its {f}.", "What's listed as the {f} of {x}?", "I have a question about {x}: what is its {f}?",
    "Let me know the {f} of {x}.", "Look for {x}; I only need its {f}.", "I'm interested in {x}. Could you tell me its {f}?",
    "Report back the {f} of {x}.", "Need a detail: the {f} of {x}.", "Check the {f} of {x} for me.",
    "Figure out the {f} of {x}, please.", "Would you dig up the {f} of {x}?", "My question is simple: what {f} does {x} have?",
    "Pull up {x} and tell me the {f}.", "Send me the {f} of {x}.", "So what is the {f} of {x}?",
    "Search for {x} and note down its {f}.", "Please work out the {f} of {x}.", "I'd appreciate knowing the {f} of {x}.",
))  # fmt: skip
register("goal.lookup", (
    'Could you check the {s} "{e}" for its {f}?', 'Tell me what "{e}" lists as its {f}.', 'Need the {f} for "{e}", please.',
    'How about "{e}"? What is its {f}?', 'Find out the {f} of the {s} "{e}".', 'Let me know the {f} of "{e}".',
    'I have {a} {s} in mind, "{e}". Can you get its {f}?', 'What does the page of "{e}" say about its {f}?',
    'Report the {f} of the {s} "{e}".', 'Show me the {s} "{e}" and tell me its {f}.', 'Get me the {f} for the {s} "{e}".',
    'Any idea what the {f} of "{e}" is?',
))  # fmt: skip
register("goal.compare", (
    'Which is {hi} on {f}, "{a}" or "{b}"? List both values.', 'Weigh "{a}" against "{b}" on {f}: which is {hi}, and by how much?',
    "I can't decide between \"{a}\" and \"{b}\". Whose {f} is {hi}? Give me both.",
    'Please check which of "{a}" and "{b}" has the {hi} {f}, and report each value.',
    'How do "{a}" and "{b}" compare on {f}? Tell me which is {hi} and both values.',
    'Find the {f} of "{a}" and "{b}" and tell me which is {hi}.',
))  # fmt: skip
register("goal.act.copy", (
    "Copy to my clipboard the {f} of {x}.", "Locate {x} and copy its {f}.", "I'll need the {f} of {x}; copy it, please.",
    "Please find {x} and copy the {f}.", "Would you copy the {f} of {x} for me to paste?", "Get the {f} of {x} copied for me.",
))  # fmt: skip
register("goal.act.delete", (
    "Please remove {x}.", "Find {x}; it needs deleting.", "Wipe {x} from {the_p}.", "Would you delete {x} for me?",
    "I want {x} deleted from {the_p}.", "Go ahead and delete {x}.",
))  # fmt: skip
register("goal.detail", (
    "Hunt down {x} and tell me what its {f} is.", "Could you see what {f} {x} has?", "Is there a way to learn the {f} of {x}?",
    "Have a look at {x}. What {f} does it list?", "I've been wondering about the {f} of {x}.",
    "Your task: find {x}, then report its {f}.", "Point me to the {f} of {x}.", "Dig out the {f} of {x} for me.",
    "Who knows, maybe you can tell me the {f} of {x}?", "Search out {x} and read me its {f}.",
    "Show me the {f} of {x}.", "What does {x} give as its {f}?", "Please report the {f} of {x}.",
    "I must know the {f} of {x}.", "Locate {x} and say what its {f} is.", "Fetch the {f} of {x}.",
    "Any chance you could tell me the {f} of {x}?", "Spot {x} and tell me its {f}.", "Mind telling me the {f} of {x}?",
    "I'd love to hear the {f} of {x}.", "Gather the {f} of {x}.", "Open up {x} and pass on its {f}.",
    "Can you work out which {f} {x} has?", "Track the {f} of {x} down for me.",
))  # fmt: skip
register("goal.lookup", (
    'Open up "{e}" and pass on its {f}.', 'Would you read me the {f} of "{e}"?', 'Spot the {s} "{e}" and note its {f}.',
    '"{e}" is the one I care about. Its {f}?', 'Fetch the {f} of "{e}".', 'Mind checking the {f} of "{e}"?',
    'Dig up the {f} of the {s} "{e}".', 'So, the {s} "{e}": what is its {f}?', 'Check on "{e}" and report its {f}.',
    'Is the {f} of "{e}" listed anywhere? I need it.', 'Have a look at the {s} "{e}" and tell me the {f}.',
    'Give me the {f} of the {s} "{e}".', 'I\'ve been meaning to check the {f} of "{e}".', 'Search for "{e}" and read off its {f}.',
    'Point me to the {f} of "{e}".', 'Hunt down "{e}" and say what its {f} is.',
))  # fmt: skip
register("find.sorted", (
    "whatever {s} has the {sup} among {np}", "the {s} of all {np} that ranks top for {sup}", "the one among {np} holding the {sup}",
    "that {s} among {np} with the {sup}", "the number one {s} by {sup} among {np}", "the one with the {sup} of all {np}",
    "the {s} with the {sup}, looking only at {np}", "the best-placed {s} by {sup} among {np}",
    "the {s} among {np} where the {sup} is found", "whichever entry of all {np} shows the {sup}",
))  # fmt: skip
register("find.only", (
    "the {s} that {np} narrows down to", "the sole {s} that fits {np}", "that one {s} among {np}",
    "the single match for {np}", "the only {s} I'd expect among {np}", "the lone result for {np}",
))  # fmt: skip
register("goal.compare", (
    'Say which of "{a}" and "{b}" has the {hi} {f}, and give both.', 'Line up "{a}" and "{b}" by {f}. Which is {hi}?',
    'I need both {f} values for "{a}" and "{b}", and which is {hi}.', 'Tell me if "{a}" beats "{b}" on {f}, with the values.',
    'Check "{a}" versus "{b}": which has the {hi} {f}?', 'Which of the two {p}, "{a}" or "{b}", has the {hi} {f}? Both values, please.',
))  # fmt: skip
register("goal.act.copy", (
    "Pop the {f} of {x} onto my clipboard.", "Fetch the {f} of {x} and copy it.", "Copy down the {f} of {x} for me.",
    "Track down {x} and copy its {f}.", "Copy the {f} of {x}; I'll paste it later.", "Make a copy of the {f} of {x}.",
))  # fmt: skip
register("goal.act.delete", (
    "Take {x} off {the_p}.", "Delete {x}; I don't need it.", "Hunt down {x} and remove it.", "Please get rid of {x}.",
    "Have {x} deleted, please.", "Scrap {x}.",
))  # fmt: skip
register("find.sorted", (
    "the {s} that comes out on top for {sup} among {np}", "the {s} among {np} that no other beats on {sup}",
    "the {s} posting the {sup} out of all {np}", "the first {s} by {sup} when you look at {np}", "the winner for {sup} among {np}",
    "the {s} that edges out the rest of all {np} on {sup}", "the strongest {s} for {sup} among {np}",
    "the {s} on top by {sup} among {np}", "the one among {np} that claims the {sup}", "the {s} reaching the {sup} among {np}",
    "the pick with the {sup} among {np}", "the {s} I'd find first by {sup} among {np}", "the {s} which has the {sup} among {np}",
    "the {s} having the {sup} out of all {np}", "the one from {np} with the {sup}", "the standout by {sup} among {np}",
))  # fmt: skip
register("find.only", (
    "the single entry showing for {np}", "the only {s} on the list of all {np}", "the {s} that alone fits {np}",
    "the sole match among {np}", "the one {s} left over among {np}", "the only candidate among {np}",
    "the {s} that's the only one among {np}", "the one {s} you'll find among {np}", "just the one {s} among {np}",
    "the one survivor among {np}",
))  # fmt: skip
register("goal.detail", (
    "I'd like you to find {x}; its {f} is what I'm after.", "Name the {f} of {x}.", "Could I get the {f} of {x}?",
    "Read me the {f} of {x}, would you?", "Tell me straight: what is the {f} of {x}?", "Need to know: the {f} of {x}.",
    "Go find {x} and come back with its {f}.", "Which {f} goes with {x}?", "Find {x} for me and check its {f}.",
    "What about {x}? Its {f} is what I need.", "I'm hoping you can tell me the {f} of {x}.", "Please look at {x} and give its {f}.",
    "Pass on the {f} of {x}.", "Bring me the {f} of {x}.", "Look into {x} and say its {f}.", "Grab the {f} of {x} for me.",
))  # fmt: skip
register("goal.lookup", (
    'Bring me the {f} of "{e}".', 'Which {f} goes with the {s} "{e}"?', 'Name the {f} of "{e}".',
    'Could I get the {f} of the {s} "{e}"?', 'Look into "{e}" and say its {f}.', 'Grab the {f} of "{e}" for me.',
    'Pass on the {f} of the {s} "{e}".', 'Go to "{e}" and come back with its {f}.', 'What about "{e}"? I need its {f}.',
    'Read me the {f} of "{e}", would you?', "I'm hoping you can tell me the {f} of \"{e}\".", 'Need to know: the {f} of "{e}".',
))  # fmt: skip
register("goal.compare", (
    'Of "{a}" and "{b}", whose {f} is {hi}? Tell me both.', 'Which comes out {hi} on {f}: "{a}" or "{b}"? Give each value.',
    'Read the {f} of "{a}" and of "{b}" and say which is {hi}.', 'Is "{a}" or "{b}" {hi} in {f}? I want both numbers.',
    'Settle it for me: "{a}" or "{b}", which has the {hi} {f}? Include both.', 'Go through "{a}" and "{b}" and tell me which {f} is {hi}.',
))  # fmt: skip
register("find.sorted", (
    "the {s} ahead of every other of all {np} on {sup}", "the {s} that outdoes {np} on {sup}", "the champion of all {np} for {sup}",
    "the {s} scoring the {sup} among {np}", "whichever is highest-placed by {sup} among {np}", "the {s} among {np} with the {sup} of all",
    "the {s} that shows the {sup} in {np}", "the front-runner by {sup} among {np}",
))  # fmt: skip
register("find.only", (
    "the one {s} fitting {np}", "the only thing listed among {np}", "the {s} that is all that's left of all {np}",
    "the solitary {s} among {np}", "the one {s} to show up among {np}", "the lonely match among {np}",
))  # fmt: skip
register("goal.lookup", (
    'Take a look at "{e}" and let me have its {f}.', 'Where does "{e}" stand on {f}?', 'Jot down the {f} of "{e}" for me.',
    'I want the {s} "{e}" checked for its {f}.', 'Tell me, what is the {f} of "{e}"?', 'What\'s on record as the {f} of "{e}"?',
    'Peek at "{e}" and report its {f}.', 'The {s} "{e}": could you find its {f}?',
))  # fmt: skip
register("goal.act.copy", (
    "Snag the {f} of {x} for my clipboard.", "I'd like the {f} of {x} copied.", "Copy the {f} from {x}.",
    "Find me {x} and copy its {f}.", "Put {x}'s {f} on the clipboard.", "Copy out the {f} of {x}, please.",
))  # fmt: skip
register("goal.act.delete", (
    "Knock {x} off {the_p}.", "Remove {x}, it's not needed.", "I'm done with {x}; delete it.", "Delete {x} right away.",
    "Get {x} removed from {the_p}.", "Dispose of {x}.",
))  # fmt: skip
register("find.sorted", (
    "the {s} that beats every other one of all {np} on {sup}", "the {s} in {np} with nothing above it on {sup}",
    "the {s} heading {np} by {sup}", "the one {s} with the {sup} of everything in {np}", "the {s} that takes the {sup} among {np}",
    "the {s} of all {np} that holds the record for {sup}", "the {s} I'd land on first by {sup} in {np}",
    "the frontmost {s} by {sup} among {np}", "whichever {s} in {np} sits highest on {sup}",
    "the {s} you'd pick for the {sup} among {np}", "the {s} ranked number one for {sup} in {np}",
    "the {s} with the {sup}, out of all {np}", "the {s} of all {np} that wins on {sup}", "the {s} at the very top by {sup} in {np}",
))  # fmt: skip
register("goal.detail", (
    "Sort something out for me: the {f} of {x}.", "On {x}, what does the page give for {f}?",
    "Chase up the {f} of {x}.", "Could you read out the {f} of {x}?", "My question concerns {x}; what's its {f}?",
    "Confirm the {f} of {x} for me.", "Head over to {x} and jot down its {f}.", "Which value for {f} does {x} carry?",
    "Kindly find the {f} of {x}.", "Share the {f} of {x} with me.", "Note the {f} of {x} and tell me.",
    "Do me a favour and look up the {f} of {x}.",
))  # fmt: skip
register("find.only", (
    "the only {s} answering to {np}", "the single {s} you get from {np}", "the {s} that remains of all {np}",
    "the only entry that meets {np}", "the one {s} showing up for {np}", "the odd one out: the only one of all {np}",
))  # fmt: skip
register("goal.lookup", (
    'Chase up the {f} of "{e}".', 'Confirm the {f} of the {s} "{e}" for me.', 'Share the {f} of "{e}" with me.',
    'Head over to "{e}" and jot down its {f}.', 'Kindly find the {f} of "{e}".', 'Do me a favour and look up the {f} of "{e}".',
))  # fmt: skip
register("sup.number.desc", ("highest-ranked {l}", "record {l}", "peak {l}", "uppermost {l}"))
register("sup.number.asc", ("least {l}", "lowest possible {l}", "tiniest {l}", "minimal {l}"))
register("sup.date.desc", ("most up-to-date {l}", "last {l}", "most current {l}"))
register("sup.date.asc", ("earliest-ever {l}", "most distant {l}", "first-ever {l}"))

# a carry goal (`plandvc.chains.goal_kinds`): {p}/{the_p}/{s}/{a} the list's nouns, {f} the field read, {e} the entry named;
# the finals also {v} the value read and {n} the count. The request never holds the value.
register("goal.carry.select", (
    'How many {p} have the same {f} as the {s} "{e}"?', 'Count {the_p} that share the {f} of "{e}".',
    'Check the {f} of the {s} "{e}" and tell me how many {p} have that {f}.', 'Whatever {f} "{e}" has, how many {p} have it too?',
    'I like "{e}". How many {p} are there with its {f}?', 'Find out the {f} of "{e}", then count {the_p} with that {f}.',
    'Take the {f} of the {s} "{e}" and tell me how many {p} match it.', 'How many {p} share their {f} with "{e}"?',
    'Look at "{e}": how many {p} come with the same {f}?', 'Could you count {the_p} whose {f} is the one "{e}" has?',
    'What is the number of {p} with the {f} of "{e}"?', 'Give me a count of {the_p} matching the {f} of the {s} "{e}".',
))  # fmt: skip
register("goal.carry.input", (
    'Search {the_p} for the {f} of the {s} "{e}": how many come up?', 'Look up the {f} of "{e}" and search {the_p} for it. How many are there?',
    'How many {p} does a search for the {f} of "{e}" find?', 'Use the {f} of "{e}" as a search: how many {p} show up?',
    'Find the {f} of the {s} "{e}", search {the_p} with it, and count the results.',
    'I want to know how many {p} turn up when I search for the {f} of "{e}".',
    'Run a search of {the_p} on the {f} of "{e}". How many results?', 'Take the {f} listed for "{e}" and search {the_p} for it: what is the count?',
    'Could you search {the_p} for whatever {f} "{e}" has and tell me how many match?',
    'How many results does the {f} of the {s} "{e}" give in a search of {the_p}?',
))  # fmt: skip
register("final.carry.select", (
    'The {f} of "{e}" is {v}, and {n} {p} have that {f}.', '"{e}" has {f} {v}; {n} {p} share it.',
    '"{e}" has {f} {v}; filtered by it, the list shows {n} {p}.', 'There are {n} {p} with {f} {v}, the {f} of "{e}".',
    '{n} {p} have {f} {v}, like "{e}".', 'I read {f} {v} on "{e}" and found {n} {p} with it.',
    'With {f} {v} (the one "{e}" has), the list shows {n} {p}.', 'The answer is {n}: that many {p} have {f} {v}, as "{e}" does.',
))  # fmt: skip
register("final.carry.input", (
    'The {f} of "{e}" is {v}; a search of {the_p} for it finds {n}.', 'Searching {the_p} for {v}, the {f} of "{e}", gives {n} results.',
    '"{e}" lists {f} {v}, and a search for it shows {n} {p}.', 'A search for {v} finds {n} {p}; that is the {f} of "{e}".',
    'I searched for {v} (the {f} of "{e}"): {n} {p} come up.', 'The answer is {n}: the search for {v}, the {f} of "{e}", shows that many {p}.',
    '{n} {p} match a search for {v}, the {f} of "{e}".', 'The {f} of "{e}" is {v}, and {n} {p} turn up for it.',
))  # fmt: skip

# ── more forms (issue 46's language review: the 3-gram margin; ids continue after the ones above) ──
register("goal.detail", (
    "I'm trying to pin down the {f} of {x}.", "Any idea what the {f} of {x} is?", "Dig into {x} and find its {f}.",
    "Could you read me the {f} of {x}?", "What does the site give as the {f} of {x}?", "Look into {x}, I want its {f}.",
    "Once you've found {x}, tell me its {f}.", "Spot {x} for me and say what its {f} is.",
    "What {f} has {x} got?", "Fill me in on the {f} of {x}.", "I wonder about the {f} of {x}.",
    "Locate {x}, then give me its {f}.", "Could I get the {f} of {x}?", "The {f} of {x}, please.",
    "Give me a quick rundown: the {f} of {x}.", "Hunt for {x}; what {f} does it show?",
    "I have to know the {f} of {x}.", "Find {x} — what is its {f}?", "Read out the {f} of {x}.",
    "Have a peek at {x} and report the {f}.", "What would the {f} of {x} be?", "Get hold of {x} and its {f}.",
    "See what {f} {x} lists.", "Is there a {f} shown for {x}? Tell me.", "Name the {f} of {x}.",
    "Could you confirm the {f} of {x}?", "Work out {x} and share its {f}.", "Chase up the {f} of {x}.",
))  # fmt: skip
register("goal.lookup", (
    'Check "{e}" for me: what {f} does it show?', 'Peek at the {s} "{e}" and tell me its {f}.',
    'I\'m after the {f} of "{e}".', 'Fill me in on "{e}": its {f}?', 'What does the site say is the {f} of "{e}"?',
    'Could you confirm the {f} of the {s} "{e}"?', 'Dig up the {f} of "{e}", please.', 'Name the {f} of "{e}".',
    '"{e}" — what {f} is listed?', 'Find "{e}" and read out its {f}.', 'Any idea what {f} "{e}" has?',
    'Chase up the {f} of the {s} "{e}".', 'Let me know what {f} the {s} "{e}" lists.', 'I wonder what {f} "{e}" shows.',
    'Give me the {f} on record for "{e}".', 'Look into "{e}" and share its {f}.', 'Tell me "{e}"\'s {f}.',
    'Read me what "{e}" has for {f}.', 'Check the page of "{e}" for its {f}.', 'See what the {f} of "{e}" is.',
))  # fmt: skip
register("goal.compare", (
    'Which wins on {f}, "{a}" or "{b}"? Tell me both figures.', 'Rank "{a}" and "{b}" by {f}: which is {hi}? Both values too.',
    'Between the {p} "{a}" and "{b}", whose {f} is {hi}? Give me each.', 'See whether "{a}" beats "{b}" on {f}, and say both values.',
    'Find the {f} of "{a}" and "{b}"; which of them is {hi}?', '"{a}" against "{b}" on {f}: which is {hi}? List both.',
    'I need to know which of "{a}" and "{b}" is {hi} on {f}, with the numbers.',
    'Tell me which is {hi} in {f}, "{a}" or "{b}", and what each has.',
))  # fmt: skip
register("goal.act.copy", (
    "Pop the {f} of {x} onto my clipboard.", "Copy down the {f} of {x} for me.", "I'd like {x}'s {f} copied.",
    "Find {x}, then copy its {f}.", "Get the {f} of {x} ready to paste.", "Copy {x}'s {f}, please.",
    "Could you put the {f} of {x} where I can paste it?", "Locate {x} and copy the {f}.",
))  # fmt: skip
register("goal.act.delete", (
    "Wipe {x} off {the_p}.", "Take {x} out of {the_p}.", "Find {x}, then delete it.", "Delete {x}; it's not needed.",
    "I want {x} gone.", "Locate {x} and get rid of it.", "Remove {x}, it's outdated.", "Strike {x} from {the_p}.",
))  # fmt: skip
register("find.sorted", (
    "the {s} out in front on {sup} among {np}", "whichever {s} posts the {sup} among {np}",
    "the {s} at the head of {np} by {sup}", "the {s} showing the {sup} of all {np}", "the {s} that tops {np} on {sup}",
    "the {s} ranked highest for {sup} among {np}", "the best-placed {s} by {sup} among {np}",
    "the {s} with the {sup} anywhere among {np}", "the {s} leading {np} on {sup}", "the {s} with the {sup} in {np}",
))  # fmt: skip
register("find.only", (
    "the one {s} listed for {np}", "the single {s} left in {np}", "the lone {s} for {np}", "the one match for {np}",
    "the only {s} the site shows for {np}", "the one {s} that comes up for {np}", "the sole {s} for {np}",
    "the one and only {s} for {np}", "the {s} that is the only result for {np}", "the single hit for {np}",
))  # fmt: skip

# an app's act that edits the entry found (`GoalStep.moves`): {f} the field, {v} its new value
register("goal.act.edit", (
    'Find {x} and set its {f} to "{v}".', 'Change the {f} of {x} to "{v}".', 'Track down {x} and make its {f} "{v}".',
    'Could you set the {f} of {x} to "{v}"?', 'Look up {x}; its {f} should be "{v}" now.',
    'Please update {x} so that its {f} is "{v}".', 'I need the {f} of {x} changed to "{v}".',
    'Set {x} to {f} "{v}", please.', 'Find {x} and switch its {f} to "{v}".', 'Update the {f} of {x} to "{v}".',
))  # fmt: skip
register("final.act.edit", (
    '{X} is "{e}"; I set its {f} to "{v}".', 'I changed the {f} of "{e}", {x}, to "{v}".',
    'Done: "{e}" now has {f} "{v}".', '"{e}" was {x}; its {f} is "{v}" now.', 'Updated "{e}": {f} "{v}".',
    'It was "{e}", and its {f} is set to "{v}".', 'I found "{e}" and set its {f} to "{v}".',
    '{X} is "{e}"; its {f} now reads "{v}".', 'The {f} of "{e}" is "{v}" now.', 'Set: "{e}" has the {f} "{v}".',
))  # fmt: skip
# an app's act that adds the entry found to a basket or a list (`GoalStep.moves`): {f} where it goes
register("goal.act.add", (
    "Find {x} and add it to my {f}.", "Put {x} in my {f}.", "Could you add {x} to my {f}?",
    "Track down {x} and drop it into my {f}.", "I'd like {x} in my {f}, please.", "Add {x} to my {f} for me.",
    "Look up {x} and put it in my {f}.", "Please get {x} into my {f}.", "Go find {x}; it goes in my {f}.",
    "My {f} needs {x}: add it, please.",
))  # fmt: skip
register("final.act.add", (
    '{X} is "{e}"; I added it to your {f}.', 'I put "{e}", {x}, in your {f}.', 'Done: "{e}" is in your {f}.',
    '"{e}" was {x}; it is in your {f} now.', 'Added "{e}" to your {f}.', 'It was "{e}", and it is in your {f}.',
    'I found "{e}" and added it to your {f}.', '{X} is "{e}"; your {f} has it now.',
    'Your {f} now holds "{e}".', 'In your {f}: "{e}".',
))  # fmt: skip
