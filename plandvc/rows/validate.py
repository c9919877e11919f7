"""The per-chain checks of filter-rows: a chain is trained on only when every row is whole and agrees
with the episode it came from (the checks and their kinds: docs/ARCHITECTURE.md, "Rows").

`check_chain` returns the parsed chain when it is good, else the first reason to drop it, with a kind from
`KINDS` so the metrics can count failures by kind. Details name files relative to the chain directory,
never absolute paths, because they go into the dataset's manifest.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import orjson

from plandvc.agent.schema import SCHEMA, JSONSchema, errors, key_order_errors, schema_of
from plandvc.io import InputError
from plandvc.records import Episode, Row, Turn
from plandvc.rows.png import PngError, read_png_info
from plandvc.rows.recovery import recovery_problem

KINDS = ("missing_image", "bad_image", "bad_target", "turn_mismatch", "no_answer", "bad_episode", "duplicate")
KEY_CHARS = re.compile(
    r"[A-Za-z0-9_-]+"
)  # chain keys become folder names and sample ids: no dots, no slashes


def check_key(key: object, where: str) -> str:
    """A chain key read from a file: a plain folder name, never a path (`..`, `/`, a leading dot)."""
    if not isinstance(key, str) or not KEY_CHARS.fullmatch(key):
        raise InputError(f"{where}: key {key!r} is not a chain folder name (A-Z a-z 0-9 _ - only)")
    return key


ROW_KEYS = ("task_id", "step", "segment", "macro", "family", "op", "delegated", "messages", "target")
DEFAULT_IMAGE_SIZE = (1280, 800)
_SORTED = orjson.OPT_SORT_KEYS


@dataclass(frozen=True)
class Reason:
    """Why a chain is dropped: a kind from KINDS and a one-line detail."""

    kind: str
    detail: str

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown reason kind {self.kind!r}")


@dataclass
class Chain:
    """A chain that passed: what the dataset writer needs (parsed once, here)."""

    key: str
    episode: Episode
    rows: list[Row]
    images: dict[str, str] = field(default_factory=dict)  # file name -> sha256, sorted by name


class _Drop(Exception):
    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = Reason(kind, detail)


def _normal(text: str | int | float) -> str:
    return " ".join(str(text).split()).casefold()


def _load_episode(chain_dir: Path, key: str) -> Episode:
    try:
        episode = orjson.loads((chain_dir / "episode.json").read_bytes())
    except FileNotFoundError:
        raise _Drop("bad_episode", "episode.json: missing") from None
    except orjson.JSONDecodeError as e:
        raise _Drop("bad_episode", f"episode.json: not valid JSON ({e})") from None
    if not isinstance(episode, dict):
        raise _Drop("bad_episode", "episode.json: not an object")
    if episode.get("task_id") != key:
        raise _Drop("bad_episode", f"episode.json: task_id {episode.get('task_id')!r} is not the key")
    turns = episode.get("turns")
    if not isinstance(turns, list) or not turns or not all(isinstance(t, dict) for t in turns):
        raise _Drop("bad_episode", "episode.json: turns is not a non-empty list of objects")
    for i, t in enumerate(turns):
        if t.get("kind") not in ("delegate", "done"):
            raise _Drop("bad_episode", f"episode.json: turn {i} has kind {t.get('kind')!r}")
        if t["kind"] == "delegate" and not (
            isinstance(t.get("family"), str) and isinstance(t.get("instruction"), str)
        ):
            raise _Drop("bad_episode", f"episode.json: turn {i} lacks a family or an instruction")
    try:
        schema = schema_of(episode["response_format"])
    except (KeyError, TypeError):
        schema = None
    if not isinstance(schema, dict):
        raise _Drop("bad_episode", "episode.json: no response_format with a JSON schema")
    if turns[-1]["kind"] != "done":
        raise _Drop("turn_mismatch", f"episode.json: the last turn is {turns[-1]['kind']!r}, not 'done'")
    early = [i for i, t in enumerate(turns[:-1]) if t["kind"] == "done"]
    if early:
        raise _Drop("turn_mismatch", f"episode.json: turn {early[0]} is 'done' before the last turn")
    if "answer" in turns[-1] and turns[-1]["answer"] != episode.get("answer"):
        raise _Drop("bad_episode", "episode.json: the done turn's answer is not the episode's answer")
    return cast(Episode, episode)  # the keys filter-rows reads are checked above


def _load_rows(chain_dir: Path, key: str) -> list[Row]:
    try:
        raw = (chain_dir / "rows.jsonl").read_bytes()
    except FileNotFoundError:
        raise _Drop("bad_episode", "rows.jsonl: missing") from None
    rows: list[Row] = []
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            raise _Drop("bad_episode", f"rows.jsonl:{n}: not valid JSON ({e})") from None
        if not isinstance(row, dict) or any(k not in row for k in ROW_KEYS):
            missing = [k for k in ROW_KEYS if not isinstance(row, dict) or k not in row]
            raise _Drop("bad_episode", f"rows.jsonl:{n}: missing {missing}")
        if row["task_id"] != key:
            raise _Drop("bad_episode", f"rows.jsonl:{n}: task_id {row['task_id']!r} is not the key")
        if row["family"] != "planner":
            raise _Drop("bad_episode", f"rows.jsonl:{n}: family {row['family']!r}, expected 'planner'")
        rows.append(cast(Row, row))  # every ROW_KEYS key checked
    return rows


def _image_names(row: Row) -> list[str]:
    """The image file names a row's messages refer to, checking the messages' shape."""
    msgs = row["messages"]
    if not isinstance(msgs, list) or not all(isinstance(m, dict) and "role" in m for m in msgs):
        raise _Drop("bad_episode", f"row {row['step']}: messages is not a list of role messages")
    names = []
    for m in msgs:
        content = m.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            raise _Drop("bad_episode", f"row {row['step']}: a {m['role']} message has no content")
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text" and isinstance(part.get("text"), str):
                continue
            if kind == "image_url" and isinstance(part.get("image_url"), dict):
                names.append(str(part["image_url"].get("url")))
                continue
            raise _Drop("bad_episode", f"row {row['step']}: unknown message part {str(part)[:60]!r}")
    return names


def _check_image(chain_dir: Path, name: str, step: int, size: tuple[int, int] | None) -> str:
    """Check one image file and return its sha256."""
    if not re.fullmatch(rf"step_{step}(_\d+)?\.png", name):
        raise _Drop(
            "bad_image", f"row {step}: image {name!r} is not named step_{step}.png or step_{step}_<k>.png"
        )
    path = chain_dir / name
    if not path.is_file():
        raise _Drop("missing_image", f"{name}: missing")
    data = path.read_bytes()
    try:
        info = read_png_info(data)
    except PngError as e:
        raise _Drop("bad_image", f"{name}: {e}") from None
    if size is not None and (info.width, info.height) != tuple(size):
        raise _Drop("bad_image", f"{name}: {info.width}x{info.height}, expected {size[0]}x{size[1]}")
    return hashlib.sha256(data).hexdigest()


def order_schema(schema: JSONSchema) -> JSONSchema:
    """The schema whose property order targets must follow.

    A JSON object's key order does not survive every writer (episode.json is written with sorted keys), so
    when the episode's schema is the project's own up to key order, the project's order is the reference:
    it is the order the planner's model is constrained to. Any other schema is taken in its own order.
    """
    return SCHEMA if orjson.dumps(schema, option=_SORTED) == orjson.dumps(SCHEMA, option=_SORTED) else schema


def _check_target(row: Row, turn: Turn, schema: JSONSchema) -> str:
    """Check a row's target against the schema and its turn; the done text for the last turn, else ""."""
    step = row["step"]
    if not isinstance(row["target"], str):
        raise _Drop("bad_target", f"row {step}: target is not a JSON string")
    try:
        target = orjson.loads(row["target"])
    except orjson.JSONDecodeError as e:
        raise _Drop("bad_target", f"row {step}: target is not valid JSON ({e})") from None
    try:
        problems = errors(target, schema) or key_order_errors(target, order_schema(schema))
    except (KeyError, TypeError, AttributeError) as e:
        raise _Drop(
            "bad_episode", f"episode.json: response_format's schema cannot be applied ({e!r})"
        ) from None
    if problems:
        raise _Drop("bad_target", f"row {step}: {problems[0]}")
    try:
        action = target["action"][0]
    except (KeyError, IndexError, TypeError):
        action = None
    if not isinstance(action, dict):
        raise _Drop("bad_target", f"row {step}: target has no action object")
    if turn["kind"] == "delegate":
        got = action.get("delegate")
        got = got if isinstance(got, dict) else {}
        if (got.get("family"), got.get("instruction")) != (turn["family"], turn["instruction"]):
            raise _Drop("bad_target", f"row {step}: target's action is not the turn's delegation")
        return ""
    done = action.get("done")
    if not isinstance(done, dict) or not isinstance(done.get("text"), str):
        raise _Drop("bad_target", f"row {step}: the last turn's target is not a done action with a text")
    if done.get("success") is not True:
        raise _Drop("bad_target", f"row {step}: the done action does not report success")
    return done["text"]


def _check(chain_dir: Path, key: str, image_size: tuple[int, int] | None) -> Chain:
    episode = _load_episode(chain_dir, key)
    rows = _load_rows(chain_dir, key)
    turns = episode["turns"]
    schema = schema_of(episode["response_format"] or {})  # a schema: _load_episode checked it
    if len(rows) != len(turns):
        raise _Drop("turn_mismatch", f"rows.jsonl has {len(rows)} rows for {len(turns)} turns")
    images: dict[str, str] = {}
    final = ""
    for t, (row, turn) in enumerate(zip(rows, turns, strict=True)):
        if row["step"] != t:
            raise _Drop("turn_mismatch", f"row {t} has step {row['step']!r}")
        want = (turn["kind"], turn.get("family"), turn.get("macro"))
        got = (row["op"], row["delegated"], row["macro"])
        if got != want:
            raise _Drop("turn_mismatch", f"row {t}: op/delegated/macro {got} but the turn is {want}")
        for name in _image_names(row):
            if name not in images:
                images[name] = _check_image(chain_dir, name, t, image_size)
        final = _check_target(row, turn, schema)
    problem = recovery_problem(episode, rows)
    if problem is not None:
        raise _Drop("turn_mismatch", problem)
    answer = episode.get("answer")
    if answer not in (None, "") and _normal(answer) not in _normal(final):
        raise _Drop(
            "no_answer", f"row {len(rows) - 1}: the final text does not contain the answer {answer!r}"
        )
    return Chain(key, episode, rows, dict(sorted(images.items())))


def check_chain(
    chain_dir: str | Path, key: str, image_size: tuple[int, int] | None = DEFAULT_IMAGE_SIZE
) -> Chain | Reason:
    """Check one chain directory: the parsed Chain when every check passes, else the first Reason to drop it.

    `image_size` (width, height) is the size every image must have; None accepts any size.
    """
    try:
        return _check(Path(chain_dir), key, image_size)
    except _Drop as d:
        return d.reason
    except OSError as e:
        return Reason("bad_episode", f"cannot read the chain: {e.strerror or type(e).__name__}")
