"""The words of a recovery chain: the failing specialist's report and the planner's corrective instruction.

The corrective instruction names what is wrong and what is right, worded as a planner would after reading
the report and the page, from what the failed attempt did (its recorded steps, so the values are known):

- `stopped_short`: what was left undone, the steps after the cut ("The previous attempt stopped before
  choosing "Dr. Okafor" in the Doctor filter and applying the filter; finish it: <instruction>");
- `wrong_value`: the value the control holds and the one it needs, per control ("The Doctor filter shows
  "Dr. Moreau"; set it to "Dr. Okafor"."; a slider, a date range, a sort, a search, a count each in its
  own words); when the two values cannot be read from the steps, the plain instruction again;
- `lost_work`: the form that was left unsaved and what it held ("Nothing was saved: the new appointment form
  was filled in (Patient "Hugo Varga", ...) but left without submitting the new appointment. Do it again:
  <instruction>").

Pure functions of the recorded steps, the elements they point at and the task: no browser, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from plandvc.memory.text import missing_values
from plandvc.records import ElementDescriptor, Part, TrajectoryStep

VALUE_ACTIONS = ("input", "select", "set_range")
# steps after which nothing is left to stop before: a scroll changes nothing the gate reads
PASSIVE_ACTIONS = frozenset({"scroll"})
_LISTED = 3  # undone steps named one by one; past that the rest are counted
_START_OF = re.compile(r" as the start of (.+?)\.?$")


class Setting(NamedTuple):
    """A value a step put into a control: the control's label (may be empty) and the value as text."""

    label: str
    value: str


def phrase(step: TrajectoryStep | None, fallback: str) -> str:
    """A step's memory as a phrase inside a sentence: 'Applying the filter.' -> 'applying the filter'."""
    text = " ".join(str(step["memory"] if step else "").split()).rstrip(".")
    return text[:1].lower() + text[1:] if text else fallback


def cut_points(steps: Sequence[TrajectoryStep], answers: bool = False) -> list[int]:
    """The honest places to stop a replay: after `k` steps for every `k` that leaves the part's last acting
    step (the one that applies, submits, opens; not a trailing scroll) undone, so the part's gate still
    fails. A part that `answers` (its check is the answer) fails at every cut, after its last step too: the
    answer is its last act. [] when nothing is left to stop before."""
    if answers:
        return list(range(len(steps) + 1))
    acting = [i for i, s in enumerate(steps) if s["action"] not in PASSIVE_ACTIONS]
    return list(range(acting[-1] + 1)) if acting else []


def answers(part: Part) -> bool:
    """Whether the part's check is its answer (the answer is then the last thing it does)."""
    return part["task"]["check"].get("kind") == "answer"


def _undone(part: Part, cut: int) -> list[str]:
    """The phrases of what a stop after `cut` steps leaves undone, the answer last for a question."""
    out = [phrase(s, "its last action") for s in part["traj"]["steps"][cut:]]
    return [*out, "reporting the answer"] if answers(part) else out


def _joined(phrases: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'; past `_LISTED`: the first two, how many more, and the last."""
    if len(phrases) > _LISTED:
        more = len(phrases) - 3
        return f"{phrases[0]}, {phrases[1]}, {more} more step{'s' * (more > 1)} and {phrases[-1]}"
    return phrases[0] if len(phrases) == 1 else f"{', '.join(phrases[:-1])} and {phrases[-1]}"


def stopped_report(part: Part, cut: int) -> str:
    """The specialist's own report when it stopped after `cut` steps: the first step it did not do."""
    return f"I could not finish the task: I stopped before {_undone(part, cut)[0]}."


def stopped_instruction(part: Part, cut: int) -> str:
    """The corrective instruction after a stop at `cut`: every step left undone, then the task."""
    undone = _joined(_undone(part, cut))
    return f"The previous attempt stopped before {undone}; finish it: {part['task']['instruction']}"


def settings(part: Part) -> list[Setting]:
    """The values the part's steps put into controls, in order: each value step's control label and value."""
    out = []
    for s in part["traj"]["steps"]:
        if s["action"] in VALUE_ACTIONS:
            out.append(Setting(_label(part["elements"], s["element"]), str(s["value"])))
    return out


def _label(elements: list[ElementDescriptor], index: int | None) -> str:
    if index is None or not 0 <= index < len(elements):
        return ""
    return " ".join(str(elements[index].get("label") or "").split())


def _range_name(part: Part) -> str:
    """A date range's name: its inputs are labelled From and To, so the name is read from the recorded start
    step ('Entering "2026-04-02" as the start of Date.'); 'date' when the step says none."""
    for s in part["traj"]["steps"]:
        m = _START_OF.search(str(s["memory"]))
        if m:
            return m.group(1)
    return "date"


def _form_name(part: Part) -> str:
    """The form the part fills, from its opening step ('Opening the new appointment form.'), else 'the form'."""
    steps = part["traj"]["steps"]
    first = phrase(steps[0], "") if steps else ""
    if first.startswith("opening the ") and "form" in first:
        return first.removeprefix("opening ")
    return "the form"


def _quoted(s: Setting) -> str:
    return f'{s.label} "{s.value}"' if s.label else f'"{s.value}"'


def lost_report(part: Part) -> str:
    """The specialist's report after it left the form without submitting it."""
    submit = phrase(part["traj"]["steps"][-1], "submitting the form")
    return f"I filled in the form but left it without {submit}, so nothing was saved."


def lost_instruction(part: Part) -> str:
    """The corrective instruction after a lost form: which form, what it held, that nothing was saved."""
    steps = part["traj"]["steps"]
    submit = phrase(steps[-1], "submitting the form")
    held = ", ".join(_quoted(s) for s in settings(part))
    filled = f"was filled in ({held})" if held else "was filled in"
    return (
        f"Nothing was saved: {_form_name(part)} {filled} but left without {submit}. "
        f"Do it again: {part['task']['instruction']}"
    )


def wrong_instruction(part: Part, sibling: Part) -> str:
    """The corrective instruction after the sibling's value was used: what the control holds and what it
    needs, in the words of its kind of control; the plain instruction when the values cannot be read."""
    right, wrong = settings(part), settings(sibling)
    instruction = part["task"]["instruction"]
    if not right or len(right) != len(wrong) or right == wrong:
        return instruction  # the page shows the value; the plain instruction says the right one
    if answers(part):  # a question: say what the wrong answer was made with
        if len(right) == 1:
            return (
                f'That answer was made with {_quoted(wrong[0])} instead of "{right[0].value}". {instruction}'
            )
        made = ", ".join(_quoted(s) for s in wrong)
        need = ", ".join(_quoted(s) for s in right)
        return f"That answer was made with {made} instead of {need}. {instruction}"
    said = _wrong_words(part, sibling, right, wrong)
    # the planner's corrective keeps the task's values (a control's label may not be the task's word for it:
    # the "Maximum" field of a "Max rows" filter); when the words leave one out, the task follows them
    return said if not missing_values(said, [instruction]) else f"{said} {instruction}"


def _wrong_words(part: Part, sibling: Part, right: list[Setting], wrong: list[Setting]) -> str:
    """What the control holds and what it needs, in the words of its kind of control."""
    instruction = part["task"]["instruction"]
    role = part["task"]["control"]["role"]
    w, r = [s.value for s in wrong], [s.value for s in right]
    label = right[0].label
    chose, needs = (x["task"].get("target", {}).get("text") for x in (sibling, part))
    if part["task"]["macro"] == "choose_suggestion" and chose and needs:  # the value is the suggestion
        return f'The search is for "{chose}"; type "{r[0]}" and choose the suggestion "{needs}" instead.'
    if role == "dropdown" and len(r) == 1:
        name = f"The {label} filter" if label else "The filter"
        return f'{name} shows "{w[0]}"; set it to "{r[0]}".'
    if role == "slider" and len(r) == 1:
        name = f"The {label} slider" if label else "The slider"
        return f"{name} is at {w[0]}; set it to {r[0]}."
    if role == "date_range" and len(r) == 2:
        return f'The {_range_name(part)} filter is set from "{w[0]}" to "{w[1]}"; set it from "{r[0]}" to "{r[1]}".'
    if role == "search" and len(r) == 1:
        return f'The search is for "{w[0]}"; search for "{r[0]}" instead.'
    if role == "sort" and len(r) == 2:
        return f'The list is sorted by "{w[0]}", {w[1].lower()}; sort it by "{r[0]}", {r[1].lower()}.'
    made = ", ".join(_quoted(s) for s in wrong)
    need = ", ".join(_quoted(s) for s in right)
    return f"The page shows {made}; set {need}: {instruction}"
