"""The memory model's pure text rules: the prompts, the joined request, the values a merge must keep, and the
cleaning of a base model's reply.

No I/O here, so every rule is tested fast and exhaustively; `plandvc.memory.model` does the talking.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

# The memory model's prompts, word for word: the rows are made with exactly these (a change changes the rows).
MERGE_ASK = (
    "Rewrite these requests to a web assistant as ONE natural request that asks for all of them, in this "
    "order. Keep every name, label, number and value exactly as written; add nothing.\n{items}\n"
    "Reply with the merged request only."
)
REWRITE_ASK = (
    "Rewrite this request to a web assistant in your own words, as its user would write it. Keep every name, "
    "number, date and quoted value exactly as written; add nothing.\n{request}\nReply with the request only."
)
FINAL_ASK = (
    "You are the planner in the conversation above, and the task is complete. Write the final message to the "
    "user in one or two sentences: what was done{answer}. Reply with plain text only, not JSON."
)
FINAL_ANSWER = ", including the answer {answer} verbatim"
DONE_TEXT = "The task is done."


def merge_prompt(instructions: Iterable[str]) -> str:
    """MERGE_ASK with the parts numbered 1., 2., ... one a line."""
    items = "\n".join(f"{i + 1}. {s.strip()}" for i, s in enumerate(instructions))
    return MERGE_ASK.format(items=items)


def rewrite_prompt(request: str) -> str:
    """REWRITE_ASK with the composed request."""
    return REWRITE_ASK.format(request=request.strip())


def final_prompt(answer: object | None) -> str:
    """FINAL_ASK, asking for the answer verbatim when the last part answers a question."""
    return FINAL_ASK.format(answer=FINAL_ANSWER.format(answer=answer) if answer_text(answer) else "")


def answer_text(answer: object | None) -> str:
    """The answer as the text a final message must contain ('' when there is none)."""
    return "" if answer is None else str(answer).strip()


# the words a request to a web assistant starts with; only these lose their capital after "Then", so a part
# that starts with a name or a code ("Ada Byrne's order ...", "ORD-1042 ...") keeps it
LEAD_WORDS = frozenset(
    [
        "add",
        "apply",
        "change",
        "check",
        "choose",
        "clear",
        "copy",
        "count",
        "create",
        "delete",
        "edit",
        "enter",
        "filter",
        "find",
        "go",
        "how",
        "limit",
        "list",
        "look",
        "navigate",
        "note",
        "now",
        "on",
        "open",
        "order",
        "pick",
        "please",
        "put",
        "read",
        "record",
        "remove",
        "report",
        "return",
        "save",
        "search",
        "select",
        "set",
        "show",
        "sort",
        "switch",
        "tell",
        "tick",
        "type",
        "update",
        "use",
        "view",
        "what",
        "when",
        "where",
        "which",
        "who",
    ]
)


def _after_then(s: str) -> str:
    """A part as it reads after "Then": "Then show ...", not "Then Show ..."."""
    word = s.split(" ", 1)[0]
    return s[0].lower() + s[1:] if word.lower() in LEAD_WORDS and word[1:].islower() else s


def joined(instructions: Iterable[str]) -> str:
    """The parts as one request without a model: each a sentence, joined with " Then " (a part
    ending in "?" or "!" keeps its mark instead of gaining a "."), each part after the first in lower case
    ("Then sort ...", not "Then Sort ...")."""
    out: list[str] = []
    for s in instructions:
        s = s.strip().rstrip(".").rstrip()
        if s:
            s = s if s.endswith(("?", "!")) else s + "."
            out.append(_after_then(s) if out else s)
    return " Then ".join(out)


def fallback_final(answer: object | None) -> str:
    """The final message when no model wrote one: the bare answer, else "The task is done."."""
    return answer_text(answer) or DONE_TEXT


# ── values: what a merged request must keep exactly ──────────────────────────

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_QUOTED = re.compile(r"\"([^\"\n]+)\"|“([^”\n]+)”|(?<!\w)'([^'\n]+)'(?!\w)")
_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b{_MONTH}\.? \d{{1,2}}(?:st|nd|rd|th)?(?:, \d{{4}})?\b"
    rf"|\b\d{{1,2}} {_MONTH} \d{{4}}\b"
)
# a number is a whole word ("1" of "1K" or "sam-1b" is no number of its own: the quoted value holds it)
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,:/]\d+)*(?!\w)")
# a capitalised word of any script ("Björn", "Ærø", "Zoë"): `re` has no upper-case class, so it is built from
# str.isupper over the Basic Multilingual Plane; the rest of the word is letters, digits and & ' ’ . -
_UPPER = "[" + "".join(re.escape(chr(c)) for c in range(0x10000) if chr(c).isupper()) + "]"
_TOKEN = rf"{_UPPER}(?:[^\W_]|[&'’.-])*"
_CAPS = re.compile(rf"(?<![\w'’-]){_TOKEN}(?: {_TOKEN})*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[(\[]\s*)$")
_TRAIL = re.compile(r"(?:['’]s|[.,;:'’-])+$")


def values(text: str) -> set[str]:
    """The values a rewrite of `text` must keep exactly: quoted strings (their content), dates, numbers, and
    capitalised names (a run of capitalised words; the first word of a sentence alone is not a name)."""
    text = text or ""
    out: set[str] = set()
    for m in _QUOTED.finditer(text):
        v = next(g for g in m.groups() if g is not None).strip()
        if v:
            out.add(v)
    dates = list(_DATE.finditer(text))
    out.update(m.group(0) for m in dates)
    undated = _DATE.sub(lambda m: " " * len(m.group(0)), text)  # a date's own numbers are the date's
    out.update(m.group(0) for m in _NUMBER.finditer(undated))
    for m in _CAPS.finditer(text):
        words = m.group(0).split(" ")
        if _SENTENCE_START.search(text[: m.start()]):
            words = words[1:]  # "Show the orders ..." / "Sort by ...": a sentence's first word is no name
        name = _TRAIL.sub("", " ".join(words))
        if len(name) > 1 or name.isdigit():
            out.add(name)
    return out


def keeps(text: str, value: str) -> bool:
    """`value` occurs in `text` exactly and as a whole (so "12" is not kept by "120", nor "Ship" by "Shipped")."""
    pattern = rf"(?<!\w)(?<!\d[.,:]){re.escape(value)}(?!\w)(?![.,:]\d)"
    return re.search(pattern, text or "") is not None


def missing_values(text: str, parts: list[str]) -> list[str]:
    """The values of `parts` that `text` does not keep, sorted (empty: every value kept)."""
    need: set[str] = set().union(*(values(p) for p in parts))
    return sorted(v for v in need if not keeps(text, v))


def length_bound(parts: list[str]) -> int:
    """The bound on a merged request: the parts' lengths plus 80 characters a part."""
    return sum(len(p) for p in parts) + 80 * len(parts)


# ── cleaning a base model's reply ────────────────────────────────────────────

_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.S)
_TURN_END = re.compile(r"<\|(?:im_end|im_start|endoftext|eot_id|end)\|>|</s>")
_NEXT_TURN = re.compile(r"\n\s*(?:user|assistant|system|human|planner)\s*:", re.I)
_FENCE = re.compile(r"```[\w-]*[ \t]*\n?(.*?)\s*```", re.S)
_OPEN_FENCE = re.compile(r"^```[\w-]*\s*|\s*```$")
_PREFIX = re.compile(
    r"^\s*(?:(?:assistant|planner|ai)\s*:\s*)?(?:(?:the\s+)?(?:final\s+message|merged\s+request|message|"
    r"request|response|reply|output)\s*(?:to\s+the\s+user\s*)?[:：]\s*)?",
    re.I,
)
# sentences of our own prompts that a base model echoes back
_PROMPT_ECHO = re.compile(
    r"You are the planner in the conversation above, and the task is complete\.?|"
    r"Write the final message to the user in one or two sentences[^.]*\.?|"
    r"Reply with plain text only, not JSON\.?|Reply with the merged request only\.?|"
    r"Rewrite these requests to a web assistant[^.]*\.|Keep every name, label, number and value[^.]*\.",
    re.I,
)
_KEYS = {
    "memory": ("memory",),
    "final": ("final_message", "text", "message"),
    "request": ("request", "merged_request", "merged", "text"),
}


def plain(text: str | None, key: str) -> str:
    """The plain text a reply means, for `key` ("memory", "final" or "request"): without reasoning blocks,
    chat-template tokens or a leaked next turn, out of code fences, out of a whole JSON object answered
    instead of text (`{memory, action: [{done: {text}}]}`, `{final_message}`, ...), without a role or label
    prefix or echoed prompt sentences, unquoted, on one line. "" when nothing is left."""
    t = _THINK.sub("", text or "")
    t = _TURN_END.split(t, maxsplit=1)[0]
    t = _NEXT_TURN.split(t, maxsplit=1)[0].strip()
    fenced = _FENCE.search(t)
    t = fenced.group(1) if fenced else _OPEN_FENCE.sub("", t)
    t = _from_json(t.strip(), key)
    t = _PROMPT_ECHO.sub(" ", _PREFIX.sub("", t, count=1))
    t = " ".join(t.split())
    return _unquote(t)


def _from_json(t: str, key: str) -> str:
    """The field of a whole JSON object a base model answered with; `t` itself when it holds no object."""
    m = re.search(r"\{.*\}", t, re.S)
    if not m:
        return t
    try:
        d = json.loads(m.group(0))
    except ValueError:
        return t
    if not isinstance(d, dict):
        return t
    if key != "memory":
        actions = d.get("action")
        for a in actions if isinstance(actions, list) else [actions, d]:
            if isinstance(a, dict) and isinstance(a.get("done"), dict):
                return str(a["done"].get("text") or "")
    for k in _KEYS.get(key, (key,)):
        if isinstance(d.get(k), str | int | float) and not isinstance(d.get(k), bool):
            return str(d[k])
    return ""


def _unquote(t: str) -> str:
    """Drop quotes wrapped around the whole text (not a quoted value at its end)."""
    for q, e in (('"', '"'), ("“", "”"), ("'", "'")):
        if len(t) >= 2 and t.startswith(q) and t.endswith(e) and q not in t[1:-1] and e not in t[1:-1]:
            return t[1:-1].strip()
    return t
