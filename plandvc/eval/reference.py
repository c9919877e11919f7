"""The reference planners, each served over real HTTP as an OpenAI-compatible server, so the evaluation reaches
them by exactly the path a served model takes (the `openai` client, `GET /v1/models`,
`POST /v1/chat/completions`).

- `oracle` answers the known step: the training row's own target for the chain (found by the request in
  `<user_request>`) at the turn (`Step N of M`, or `StepN maximum:M`, in `<step_info>`: every dialect's). It must score 1.0 teacher-forced and
  closed-loop: anything less is a bug in the evaluation.
- `always-done` answers `done` with no answer ("The task is done.") at every turn: its teacher-forced step
  accuracy is exactly the share of turns that are the `done` of a chain asking no question, its closed-loop
  success 0.
- `random-family` picks one of the four families or `done` at random (seeded by the seed, the request and
  the turn, so a reply does not depend on the order requests come in), delegating the whole request: the
  floor a planner that only guesses would reach.
- `copy`, a planner that does not plan: it splits the request into sentences (`sentences`) and at turn k
  delegates sentence k (a leading "Then", "Next", ... dropped) to the family its words name
  (`FAMILY_WORDS`, a table), then says done: with the last sentence as its text when that one asks, else
  "The task is done.". It knows nothing of trips home, recoveries or pages, and draws nothing at random: the
  score of copying the request one sentence a turn, which a planner must beat.
- `template` (`plandvc.eval.template`): the inverse of the composer's training phrasings, derived from the
  phrasing registry; high on requests worded in training phrasings, low on held-out ones.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable, Mapping, Sequence

from plandvc.eval.specs import HeldOut
from plandvc.eval.wire import (
    ChatCompletion,
    ChatHandler,
    ErrorReply,
    LoopbackServer,
    Messages,
    completion,
    error,
    reply,
    request_and_turn,
)
from plandvc.io import InputError, read_jsonl
from plandvc.macros import FAMILIES
from plandvc.memory.text import DONE_TEXT

REFERENCES = ("oracle", "copy", "always-done", "random-family", "template")
# the references whose reply is a function of the request and the turn alone (they never read the page): their
# closed loop's first reply is their teacher-forced first reply (`plandvc.eval.closed.refused_at_once`)
PAGE_BLIND = frozenset({"oracle", "copy", "always-done", "random-family"})
Planner = Callable[[Messages], str]


class Oracle:
    """The known step of every held-out chain: the training row's target by (request, turn)."""

    def __init__(self, chains: list[HeldOut]) -> None:
        self.targets: dict[tuple[str, int], str] = {}
        for c in chains:
            for row in read_jsonl(c.dir / "rows.jsonl"):
                at = (c.line["request"], int(row["step"]))
                if self.targets.setdefault(at, row["target"]) != row["target"]:
                    raise InputError(f"{c.dir}: two held-out chains share the request but not turn {at[1]}")

    def __call__(self, messages: Messages) -> str:
        request, turn = request_and_turn(messages)
        target = self.targets.get((request, turn))
        if target is None:  # off the chains it knows: a reply it cannot give
            return reply("I do not know this step.", {"done": {"text": DONE_TEXT, "success": False}})
        return target


def always_done(messages: Messages) -> str:
    return reply("", {"done": {"text": DONE_TEXT, "success": True}})


class RandomFamily:
    """One of the four families or done, uniformly, seeded by (seed, request, turn)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __call__(self, messages: Messages) -> str:
        request, turn = request_and_turn(messages)
        pick = random.Random(f"{self.seed}|{request}|{turn}").choice([*FAMILIES, "done"])
        if pick == "done":
            return reply("", {"done": {"text": DONE_TEXT, "success": True}})
        return reply("", {"delegate": {"family": pick, "instruction": request}})


# what a sentence's words say about its family: the keyword met first in the sentence wins (quoted values
# left out), a tie goes to the row listed first; a sentence with none is Information when it asks, else
# Navigation. Whole words, case aside.
FAMILY_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Information", ("how many", "what", "which", "who", "when", "tell me", "count", "report", "look up", "copy")),
    ("Form", ("add", "create", "edit", "delete", "remove", "change", "update", "save", "book", "submit")),
    ("Filter", ("filter", "sort", "order the", "show only", "list only", "search", "find", "looking for",
                "look for", "limit", "tick", "type", "slider", "narrow", "first")),
    ("Navigation", ("go to", "go back", "open", "navigate", "return", "switch", "page", "home", "tab")),
)  # fmt: skip
# words that join a request's parts ("Then sort ..."): dropped from the front of a sentence delegated
CONNECTIVES = ("then", "next", "after that", "afterwards", "finally", "also", "and", "now", "lastly")
# words whose full stop ends no sentence
ABBREVIATIONS = frozenset(["dr", "mr", "mrs", "ms", "st", "vs", "etc", "e.g", "i.e", "approx", "jan", "feb",
                           "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"])  # fmt: skip
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|(?<!\w)'[^'\n]*'(?!\w)")
_BREAK = re.compile(r"(?<=[.?!])\s+|\s*\n\s*")
_CONNECTIVE = re.compile(rf"^(?:{'|'.join(CONNECTIVES)})\b,?\s+", re.I)


def sentences(text: str) -> list[str]:
    """The request's sentences, in order: a break is a line break, or a `.`/`?`/`!` then space before a capital
    or a quote, never inside a quoted value or after an abbreviation ("Dr. Ada Byrne", "Jan. 5")."""
    quoted = [m.span() for m in _QUOTED.finditer(text)]
    out, start = [], 0
    for m in _BREAK.finditer(text):
        if any(a < m.start() < b for a, b in quoted):
            continue
        if "\n" not in m.group(0):
            nxt = text[m.end() : m.end() + 1]
            word = text[start : m.start()].rstrip(".?!\"”'").rsplit(None, 1)[-1:]
            if not (nxt.isupper() or nxt in "\"“'") or (word and word[0].lower() in ABBREVIATIONS):
                continue
        out.append(text[start : m.start()].strip())
        start = m.end()
    out.append(text[start:].strip())
    return [s for s in out if s]


def family_of(sentence: str) -> str:
    """The family `FAMILY_WORDS` names for a sentence (its quoted values left out)."""
    words = _QUOTED.sub('""', sentence).casefold()
    found = []
    for rank, (family, keys) in enumerate(FAMILY_WORDS):
        for key in keys:
            m = re.search(rf"(?<!\w){re.escape(key)}(?!\w)", words)
            if m is not None:
                found.append((m.start(), rank, family))
    if found:
        return min(found)[2]
    return "Information" if sentence.rstrip().endswith("?") else "Navigation"


def delegated(sentence: str) -> str:
    """A sentence as `copy` delegates it: a leading connective ("Then", "Next, ") dropped, capitalised."""
    rest = _CONNECTIVE.sub("", sentence, count=1)
    return rest[:1].upper() + rest[1:] if rest else sentence


def copy_planner(messages: Messages) -> str:
    """`copy`: sentence k of the request at turn k, then done (the last sentence as the text when it asks)."""
    request, turn = request_and_turn(messages)
    parts = [delegated(s) for s in sentences(request)]
    if turn < len(parts):
        return reply("", {"delegate": {"family": family_of(parts[turn]), "instruction": parts[turn]}})
    text = parts[-1] if parts and parts[-1].endswith("?") else DONE_TEXT
    return reply("", {"done": {"text": text, "success": True}})


def varied_words(chains: Sequence[HeldOut]) -> bool:
    """Whether the held-out chains were worded by the phrasing registry (their folder's chains.jsonl records
    a `phrasing`); v3's words record none."""
    folders = {c.dir.parent.parent for c in chains}
    for folder in sorted(folders):
        path = folder / "chains.jsonl"
        if path.is_file() and any("phrasing" in line for line in read_jsonl(path)):
            return True
    return False


def reference_planner(name: str, chains: list[HeldOut], seed: int = 0) -> Planner:
    if name == "oracle":
        return Oracle(chains)
    if name == "copy":
        return copy_planner
    if name == "always-done":
        return always_done
    if name == "random-family":
        return RandomFamily(seed)
    if name == "template":
        from plandvc.eval.template import TemplatePlanner  # it reads requests as this module does

        return TemplatePlanner(seed, frozen_=not varied_words(chains))
    raise InputError(f"--reference: unknown reference planner {name!r} (known: {', '.join(REFERENCES)})")


class PlannerServer(LoopbackServer):
    """An OpenAI-compatible server on 127.0.0.1 answering every chat completion with `planner(messages)`;
    `url` is its base URL, `model` the one model it lists. A request that is not a planner turn is a 400.
    `PlannerServer.serving({model: planner, ...})` serves several planners in one session, each by its model
    name (eval-references serves every reference so)."""

    name = "planner-server"

    def __init__(self, planner: Planner, model: str, port: int = 0) -> None:
        super().__init__(port)
        self.planners: dict[str, Planner] = {model: planner}
        self.model = model
        self.requests = 0
        self._lock = threading.Lock()

    @classmethod
    def serving(cls, planners: Mapping[str, Planner], port: int = 0) -> PlannerServer:
        """One server for several planners, each answering under its own model name."""
        if not planners:
            raise ValueError("PlannerServer.serving: no planner to serve")
        first, *_ = planners
        server = cls(planners[first], first, port)
        server.planners = dict(planners)
        return server

    def complete(self, body: Mapping[str, object]) -> tuple[int, ChatCompletion | ErrorReply]:
        """(status, payload) for one chat completion request of a served model."""
        with self._lock:
            self.requests += 1
            n = self.requests
        model = str(body.get("model") or self.model)
        try:
            messages = body.get("messages") or []
            content = self.planners[model](list(messages) if isinstance(messages, list) else [])
        except ValueError as e:
            return 400, error(400, str(e))
        return 200, completion(model, content, f"chatcmpl-{model}-{n}")

    def handler(self) -> type[ChatHandler]:
        server = self

        class Handler(ChatHandler):
            def models(self) -> list[str]:
                return list(server.planners)

            def chat(self, body: Mapping[str, object]) -> None:
                self.send(*server.complete(body))

        return Handler
