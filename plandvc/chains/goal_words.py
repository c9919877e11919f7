"""The words of the goal kinds that use what the team finds (`plandvc.chains.goal_kinds`): the user's request,
each live step's delegation (and its checklist words before its values are found), and the final message.

Kept apart from the composer's own phrasing (`plandvc.chains.compose`, which calls `goal_words` for a goal with
live steps): the request names the constraints and what to report, never the entry a `detail` or `act` goal
finds; the delegations after a `find` carry the found name verbatim; the final message gives every value read.
Seeded by the composer's `random.Random` of the chain (one fixed order of draws), a few variants each.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from plandvc.chains.compose import constraint, listing, lower_label, superlative, the
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
            return form.format(f=_fields(steps), s=s, e=names[0]), ""
        label = lower_label(steps[1].get("label", ""))
        form = rng.choice(
            (
                'Which has the higher {f}, the {s} "{a}" or "{b}"? Give me both values.',
                'Compare the {f} of the {p} "{a}" and "{b}": which one is higher?',
                'Between "{a}" and "{b}", which {s} has the higher {f}? Tell me each one\'s {f}.',
            )
        )
        return form.format(f=label, s=s, p=group[0]["plural"], a=names[0], b=names[1]), ""
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
    form = rng.choice(("Find {x} and delete it.", "Delete {x}, please.", "Remove {x} from {the_p}."))
    return form.format(x=asked, the_p=the(group[0]["plural"])), named


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
    return f'Delete the {s} "{e}".', f"Delete the {s} found"


def _final(goal: ChainGoal, group: Sequence[Ask], named: str, rng: random.Random) -> str:
    steps, kind, s = goal["steps"], goal["kind"], group[0]["singular"]
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
    return f'{named[:1].upper()}{named[1:]} was "{name}"; I deleted it.'


def goal_words(goal: ChainGoal, asks: Sequence[Ask], rng: random.Random) -> tuple[str, list[GoalStep], str]:
    """The words of a goal with live steps, after its parts' (`asks`: the constraints, or the navigation):
    (the request, the steps with their delegations, the final message); the composer's `GoalWords` hook."""
    group = [a for a in asks if a["macro"] != "navigate_to_page"] or list(asks)
    request, named = _request(goal, group, rng)
    s = group[0]["singular"]
    finds = any(st["do"] == "find" for st in goal["steps"])
    steps: list[GoalStep] = []
    for st in goal["steps"]:
        say, plan = _say(st, s, group)
        steps.append({**st, "say": say, **({"plan": plan} if finds and plan != say else {})})  # type: ignore[typeddict-item]
    return request, steps, _final(goal, group, named, rng)
