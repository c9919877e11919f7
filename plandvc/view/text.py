"""The text of a planner row as the viewer cuts it: the user message's sections and screenshot, the target's
action and memory, a delegation's report (what the next turn's `<agent_history>` says about it), a word diff
of the memory, and relative links. Pure functions of the row's text.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
from pathlib import Path
from urllib.parse import quote

import orjson

from plandvc.rows.examples import ContentRecord, RowRecord

SECTIONS = ("user_request", "agent_history", "browser_state", "step_info")
_SECTION = re.compile(r"<(user_request|agent_history|browser_state|step_info)>\n?(.*?)\n?</\1>", re.S)
_TOKEN = re.compile(r"\s+|\S+")


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def sections(row: RowRecord) -> tuple[dict[str, str], str | None, str | None, int]:
    """(the user message's sections, the screenshot file name, the system prompt, the prompt's characters)."""
    system: str | None = None
    texts: list[str] = []
    image: str | None = None
    for msg in row.get("messages") or []:
        content = msg["content"]
        if msg["role"] == "system":
            system = content if isinstance(content, str) else None
            continue
        parts: list[ContentRecord] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else content
        )
        for p in parts:
            if p["type"] == "text":
                texts.append(p.get("text") or "")
            elif p["type"] == "image_url" and image is None:
                image = p["image_url"]["url"] or None
    found = {m[1]: m[2] for m in _SECTION.finditer("\n".join(texts))}
    chars = len(system or "") + sum(len(t) for t in texts)
    return {s: found.get(s, "") for s in SECTIONS}, image, system, chars


def report_of(history: str, n: int) -> str | None:
    """What `<agent_history>` says came back from delegation `n` (1-based): its lines from "Report:" on."""
    m = re.search(rf"<step_{n}>\n?(.*?)\n?</step_{n}>", history, re.S)
    if not m:
        return None
    lines = m[1].splitlines()
    at = next((i for i, ln in enumerate(lines) if ln.startswith("Report:")), 0)
    return "\n".join(lines[at:]).strip() or None


def split_target(target: str) -> tuple[list[str], str, str, object]:
    """([before, action, after], one-line action, memory, the action object) of a target text."""
    try:
        obj = orjson.loads(target)
    except orjson.JSONDecodeError:
        return [target, "", ""], "(not JSON)", "", None
    if not isinstance(obj, dict):
        return [target, "", ""], "(not an object)", "", None
    memory = str(obj.get("memory") or "")
    action = obj.get("action")
    cut = [target, "", ""]
    at = target.find('"action":')
    if at >= 0:
        start = at + len('"action":')
        while start < len(target) and target[start] in " \t\n":
            start += 1
        try:
            _, end = json.JSONDecoder().raw_decode(target, start)
            cut = [target[:start], target[start:end], target[end:]]
        except ValueError:
            pass
    first = action[0] if isinstance(action, list) and action and isinstance(action[0], dict) else {}
    name, params = next(iter(first.items()), ("?", {}))
    params = params if isinstance(params, dict) else {}
    if name == "delegate":
        line = f"delegate → {params.get('family')}: {params.get('instruction')}"
    elif name == "done":
        line = f"done ({'success' if params.get('success') else 'no success'}): {params.get('text')}"
    else:
        line = f"{name}: {orjson.dumps(params).decode()}"
    return cut, line, memory, first


def word_diff(before: str, after: str) -> list[list[str]]:
    """`after` as [op, text] segments against `before`, word by word: "=" same, "+" added, "-" removed."""
    a, b = _TOKEN.findall(before), _TOKEN.findall(after)
    out: list[list[str]] = []

    def add(op: str, text: str) -> None:
        if not text:
            return
        if out and out[-1][0] == op:
            out[-1][1] += text
        else:
            out.append([op, text])

    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            add("=", "".join(b[j1:j2]))
        else:
            add("-", "".join(a[i1:i2]))
            add("+", "".join(b[j1:j2]))
    return out


def rel_url(target: Path, page_dir: Path) -> str:
    """A relative URL from a page's folder to a file (no absolute path ever reaches a page)."""
    rel = os.path.relpath(os.path.abspath(target), os.path.abspath(page_dir))
    return quote(Path(rel).as_posix())
