"""The records that cross module boundaries, typed: the JSON formats of the pool, the chain stages and the run
(docs/FORMATS.md gives each format and its rules). TypedDicts, because these records are read from and
written to JSON as they are: a loader returns one, a writer dumps it, and nothing converts in between.

A record read from a file is validated once where it enters (the pool's files by `plandvc.pool.store.Pool`,
against the JSON Schemas) and typed from there on, never re-checked. Nested parts a reader passes through
without looking inside (a check's fields, a control's prep, a task's target) stay `dict[str, Any]`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict

from plandvc.checks import Check
from plandvc.io import JSONObject

Via = Literal["page", "home"] | None
# how a chain's failed attempt fails (plandvc.chains.recovery chooses one, plandvc.run.recovery makes it)
FailureKind = Literal["stopped_short", "wrong_value", "lost_work"]
# a planner turn's role: `after_failure` is the turn that sees a failed attempt's report and re-delegates
TurnRole = Literal["normal", "after_failure"]


class Start(TypedDict):
    """Where a task starts: `fresh` (a new session on `url`) or `mid_chain`; `keep`: it keeps earlier state."""

    url: str
    kind: str
    keep: bool


Answer = str | int | float | None  # a question's answer: text, or a number

# what the rows were made with (recorded in each episode and fingerprinted): name -> version or None
Environment = dict[str, str | None]


class BackendState(TypedDict):
    """A session's state on the sites' server (`Session.backend_state`): its rows by table, its changes, and
    what it copied to the clipboard."""

    entries: dict[str, list[JSONObject]]
    changes: list[JSONObject]
    clipboard: list[str]


class Control(TypedDict):
    """The control a task uses, its role (the control kind, `link`, `home`, ...) and its prep."""

    control_id: str
    role: str
    prep: dict[str, Any]  # {} or {"create": {table, page, fields}}: plandvc.pool.prep


class TaskDraft(TypedDict):
    """A task as make-pool's generator draws it, before it is numbered (`plandvc.pool.tasks`)."""

    site: str
    macro: str
    instruction: str
    start: Start
    control: Control
    check: Check  # tagged by its kind: plandvc.checks
    verifier: dict[str, Any]
    scope: list[str]
    target: NotRequired[dict[str, Any]]  # what the scripted executor acts on


class Task(TaskDraft):
    """task.json: one single-primitive task of the pool."""

    task_id: str


class PoolTask(Task):
    """A numbered task as make-pool records it: task.json's fields and the `history_macro` its trajectory
    carries (task.json leaves it out)."""

    history_macro: str | None


class TrajectoryStep(TypedDict):
    """One recorded step: an action of `plandvc.browser.actions`, the index of its element in elements.json
    (None for an action that targets none), its value and the specialist's memory sentence."""

    action: str
    element: int | None
    value: str | int | float | None
    memory: str


class Trajectory(TypedDict):
    """trajectory.json: what the scripted executor did, its done text and answer, and the page it ended on."""

    task_id: str
    site: str
    macro: str
    start_kind: str
    history_macro: str | None
    steps: list[TrajectoryStep]
    done: str
    answer: Answer
    end: str


class ElementDescriptor(TypedDict):
    """A line of elements.json: an element as recorded (`plandvc.browser.snapshot.Element.descriptor`), found
    again on a live page by its stable attributes, text and label (`plandvc.replay.find`)."""

    tag: str
    attrs: Mapping[str, str | None]
    role: NotRequired[str]
    text: NotRequired[str]
    label: NotRequired[str]
    box: NotRequired[list[int]]


ParamValue = str | int | float | bool | None  # an action parameter's value (the reply schemas' scalars)


class ReplyRecord(TypedDict):
    """A model's reply as the planner's and the specialist's schemas shape it: the memory and exactly one action
    `{name: params}` (`plandvc.agent.messages.Reply` once read)."""

    memory: str
    action: list[dict[str, dict[str, ParamValue]]]


class Event(TypedDict):
    """An action a session did (`Session.events`): the action, its element's one-line summary (`target`, ""
    for none), its value, and the page it was done on (`url`, path?query)."""

    type: Literal["action"]
    action: str
    target: str
    value: str | int | float | None
    url: str


class Replayable(TypedDict):
    """A trajectory and the elements its steps point into: what a replayer plays (a part's, or the trip
    home of `plandvc.macros.home_trajectory`)."""

    trajectory: Trajectory
    elements: list[ElementDescriptor]


class Part(TypedDict):
    """A kept part of the pool as `plandvc.pool.store.Pool.part` returns it, its files checked against the
    schemas; `dir` is relative to the pool."""

    id: str
    run: str
    dir: str
    task: Task
    traj: Trajectory
    elements: list[ElementDescriptor]


class KeptLine(TypedDict):
    """A line of kept.jsonl (`site` and `macro` may be left out)."""

    id: str
    run: str
    site: NotRequired[str]
    macro: NotRequired[str]


class Ask(TypedDict):
    """A part's facts for the request composer (`plandvc.chains.ask`). `values` are verbatim strings as the task's target holds them; `query`
    the (param, value) pairs its check reads on its list page (a filter, a sort, a search)."""

    macro: str
    site: str  # the site's display name
    page: str  # the list page's key
    plural: str  # the list's noun, lower case ("repositories")
    singular: str  # one entry ("repository")
    label: NotRequired[str]  # the control's or the column's label ("Language")
    kind: NotRequired[str]  # the control's kind (dropdown, options, slider, date_range, sort, search)
    impl: NotRequired[str]  # how this site draws it (select, listbox, checkboxes, chips, radios, ...)
    type: NotRequired[str]  # the column's type (number, date, enum, text)
    values: NotRequired[list[str]]
    dir: NotRequired[str]  # a sort's direction, asc or desc
    entry: NotRequired[str]  # the entry's name
    fields: NotRequired[list[list[str]]]  # a form's [label, value] pairs, in the form's order
    number: NotRequired[int]  # a page number
    tab: NotRequired[str]  # an entry page's tab
    typed: NotRequired[str]  # what is typed before a suggestion is chosen
    query: NotRequired[list[list[str]]]  # the (param, value) pairs it leaves on its list page
    answer: NotRequired[str]  # a question's recorded answer


class ItemRecord(TypedDict):
    """A line of items.jsonl: what the chain walk needs of a kept trajectory (pool-items)."""

    id: str
    run: str
    dir: str
    site: str
    macro: str
    family: str
    start: str
    control: str | None
    scope: list[str]
    answers: bool
    fresh: bool
    stays: bool
    home_start: bool
    instruction: str
    # set (true) only when the part's control answers a step by the state it is in: a calendar opens at the
    # month of its current date, a sort header flips the direction it shows. Its recorded steps then redo the
    # part only from the state they were recorded in, so no `wrong_value` failure is made of it
    stateful: NotRequired[bool]
    ask: NotRequired[Ask]  # what the part asks for, as facts (pool-items with the site's spec)


class ChainPart(TypedDict):
    """A part of a chain: the record id, and how it follows the previous part (None for the first); in a
    composed chain also the planner's delegation of it (`say`)."""

    id: str
    via: Via
    say: NotRequired[str]


class GoalRead(TypedDict):
    """Where a goal step reads its answer on an app's page (`plandvc.run.goal`): the elements `selector` matches,
    in document order; for a count, `pattern`'s first group in their text is the number. A generated site's
    goal has none: its list's "Showing N" line and entry links are read."""

    selector: str
    pattern: NotRequired[str]


# what a goal's live step does (`plandvc.run.goal`): read the name of the entry the list leaves first, open an
# entry by its name, read one of its fields, copy its copy field, delete it, narrow its list by a value read
# (carry), count the list, edit one of its fields or add it to a basket (an app's form: `GoalStep.moves`)
GoalDo = Literal["find", "open", "read", "copy", "delete", "narrow", "count", "edit", "add"]
# a goal chain's kind (`plandvc.chains.goal_kinds`): the v3 two read the list; the others use what is found
GoalKind = Literal["count", "top", "detail", "lookup", "compare", "act", "carry"]


class GoalMove(TypedDict):
    """One move of an app's `edit` step on the entry's own page (`plandvc.run.goal.LiveSteps`): the element whose
    attributes include `attrs` (its id, its name), the action on it, the value typed or chosen."""

    action: Literal["click", "select", "input"]
    attrs: dict[str, str]
    value: NotRequired[str]
    memory: str


class GoalStep(TypedDict):
    """One live step of a goal that opens, reads or acts on one entry (`plandvc.chains.goal_kinds`): done at
    run time by the scripted specialist on the page as it is, gated by `check` (its expected values from the
    site's data). `name` is the entry's name as its list shows it: the value a `find` step reveals, and the
    one an `open` step's delegation carries."""

    do: GoalDo
    page: str  # the list page's path
    name: str
    check: Check
    label: NotRequired[str]  # read: the field's label
    field: NotRequired[str]  # read: the field's column
    say: NotRequired[str]  # the delegation
    plan: NotRequired[str]  # the checklist's words for it before the chain has found its values
    reveals: NotRequired[bool]  # read: its value is carried by a later step (a carry goal's constraint)
    value: NotRequired[str]  # narrow: the value set (verbatim as a read revealed it); edit: the new one
    control: NotRequired[str]  # narrow: the list control's id
    param: NotRequired[str]  # narrow: the control's URL parameter
    action: NotRequired[str]  # narrow: "select" (a dropdown) or "input" (a search box)
    apply: NotRequired[str]  # narrow: the id of the button that applies it ("": it applies on change)
    read: NotRequired[GoalRead]  # an app's find or read: where its page shows the entries or the field
    entries: NotRequired[str]  # an app's open: the path its entry links start with ("/ticket/")
    back: NotRequired[str]  # an app's open: the text of the link back to the list from an entry's page
    moves: NotRequired[list[GoalMove]]  # an app's edit or add: the form's moves on the entry's page


class ChainGoal(TypedDict):
    """A goal chain's ending (`plandvc.chains.goals`): a question answered from the state its constraints
    leave on the list page `page`; `expected` by the site's query semantics; `say` its delegation. A kind
    that uses what is found has its live `steps` instead of one reading (and no `say`)."""

    kind: GoalKind
    page: str
    expected: str
    value: NotRequired[str]  # top: the first entry's value in the sort column
    say: NotRequired[str]
    read: NotRequired[GoalRead]  # an app's page: where the answer is read
    steps: NotRequired[list[GoalStep]]


class ChainFailure(TypedDict):
    """A chain's planned failure: part `part`'s first attempt fails in the way `kind` says; a `wrong_value`
    attempt replays `sibling`, a kept trajectory of the same macro and control with another value; a
    `stopped_short` attempt replays the part's first `cut` steps (drawn by the run when the line has none;
    the episode records it)."""

    part: int
    kind: FailureKind
    sibling: NotRequired[str]
    cut: NotRequired[int]


class ChainPhrasing(TypedDict):
    """A varied-phrasing chain's words: the phrasing set it drew from (training, held-out), the split's seed,
    and the phrasing ids (`kind#n`, plandvc.chains.phrasing.PHRASINGS) its request and its final message drew,
    in draw order."""

    set: str
    seed: int
    request: list[str]
    final: list[str]


class ChainSpec(TypedDict):
    """A line of chains.jsonl (chain-specs); `failure` only on a recovery chain."""

    key: str
    site: str
    parts: list[ChainPart]
    failure: NotRequired[ChainFailure]
    # a composed chain (`chains.request: composed`): the user's request, how it was made, the final message,
    # and a goal chain's ending (plandvc.chains.compose, plandvc.chains.goals)
    request: NotRequired[str]
    request_by: NotRequired[str]
    final: NotRequired[str]
    goal: NotRequired[ChainGoal]
    phrasing: NotRequired[ChainPhrasing]  # chains.phrasing: varied


class ChainResult(TypedDict):
    """A line of run-chains' results.jsonl: the chain, whether it passed and why not (the keys filter-rows
    reads), and, once its turns were planned, the counts and the gates' details."""

    key: str
    site: str
    parts: list[str]
    via: list[Via]
    ok: bool
    error: str | None
    turns: NotRequired[int]
    steps: NotRequired[int]  # delegations, trips home included
    instruction_by: NotRequired[str]  # "merged" (memory model) or "joined"
    detail: NotRequired[str]  # every part's gate detail, joined by " | "
    final_by: NotRequired[str | None]  # who wrote the final message: "model", "fallback" or None
    failure: NotRequired[FailureKind]  # a recovery chain's failure kind
    failed_gate: NotRequired[str]  # the failed attempt's own gate detail, read when it happened


class Turn(TypedDict):
    """A planned planner turn (episode.json `turns`): a `delegate` turn names the family, the instruction and
    the macro of the part it plays (`navigate_home` for a trip home); the last, `done`, the chain's answer."""

    kind: Literal["delegate", "done"]
    family: NotRequired[str]
    instruction: NotRequired[str]
    macro: NotRequired[str]
    answer: NotRequired[Answer]
    text: NotRequired[str]  # a composed chain's `done`: the final message the user reads
    fails: NotRequired[
        FailureKind
    ]  # a recovery chain's failed attempt: the delegation is right, its result not
    role: NotRequired[TurnRole]  # in a recovery chain, every turn's role
    found: NotRequired[str]  # a goal's find step: the value its report reveals (the memory after it says so)
    plan: NotRequired[str]  # the checklist's words for a delegation whose values are found on the way


class Row(TypedDict):
    """A line of a chain's rows.jsonl: one planner turn, the messages the planner saw (images by file name)
    and the scripted reply it is trained on (`target`, canonical JSON)."""

    task_id: str
    step: int
    segment: int
    macro: str | None
    family: str
    op: str
    delegated: str | None
    messages: list[dict[str, Any]]
    target: str
    role: NotRequired[TurnRole]  # only in a recovery chain's rows; a row without it is `normal`


class Episode(TypedDict):
    """A chain's episode.json (the keys filter-rows checks the rows against)."""

    task_id: str
    site: str
    instruction: str
    instruction_by: str
    start_url: str
    parts: list[str]
    via: list[Via]
    macros: list[str]
    turns: list[Turn]
    answer: Answer
    version: str
    executor: str
    budget: int
    planner_turns: int
    response_format: dict[str, object] | None  # the planner's JSON schema as it asked (None: never asked)
    failure: NotRequired[ChainFailure]  # a recovery chain's planned failure
    goal: NotRequired[ChainGoal]  # a goal chain's ending (its answer's expected value)
    part_instructions: NotRequired[
        list[str]
    ]  # a composed chain: the executor's own instructions of its parts
    env: NotRequired[Environment]  # versions of the code, Chromium, Playwright (left out when not known)
    dialect: NotRequired[str]  # the planner input's dialect (plandvc.agent.dialects); absent: plandvc-v1
    marks: NotRequired[bool]  # true: the screenshots carry the dialect's set-of-marks; absent: plain
