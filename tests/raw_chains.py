"""Builders for the filter-rows tests: real PNGs written with the stdlib, and chains in run-chains' output
format (episode.json, rows.jsonl, step_<t>.png, results.jsonl) written straight to a raw directory."""

from __future__ import annotations

import hashlib
import struct
import zlib
from functools import cache
from pathlib import Path

import orjson

from plandvc.agent.schema import RESPONSE_FORMAT, SCHEMA, canonical
from plandvc.rows.dataset import filter_rows


def chunk(ctype: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + ctype + body + struct.pack(">I", zlib.crc32(ctype + body))


@cache
def png_bytes(width: int = 1280, height: int = 800, colour: int = 2, shade: int = 0) -> bytes:
    """A real PNG (RGB or RGBA, 8-bit, filter 0) written with the stdlib; `shade` varies the pixels."""
    channels = {2: 3, 6: 4}[colour]
    line = b"\0" + bytes([shade % 256]) * (width * channels)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(line * height))
        + chunk(b"IEND", b"")
    )


SIZE = (128, 80)  # the fixtures' screenshots; one test checks the 1280x800 default
MACROS = {
    "a": ("filter_by_dropdown", "Filter"),
    "b": ("sort_by_form", "Filter"),
    "c": ("count_entries", "Information"),
}
MACROS |= {"d": ("create_entry", "Form"), "e": ("open_entry", "Navigation")}


def key_of(site: str, parts: list[str]) -> str:
    return f"plan-{site}-{hashlib.sha1('+'.join(parts).encode()).hexdigest()[:10]}"


def make_chain(
    raw: Path, site: str, parts: list[str], answer=None, shade: int = 0, key: str | None = None, size=SIZE
) -> str:
    """Write one ok chain in run-chains' format: episode.json, rows.jsonl, step_<t>.png (small, to be fast)."""
    key = key or key_of(site, parts)
    d = raw / key
    d.mkdir(parents=True)
    turns = [
        {
            "kind": "delegate",
            "family": MACROS[p[0]][1],
            "instruction": f"Do {p} on {site}.",
            "macro": MACROS[p[0]][0],
        }
        for p in parts
    ]
    turns.append({"kind": "done", "answer": answer})
    rows = []
    for t, turn in enumerate(turns):
        if turn["kind"] == "delegate":
            action = {"delegate": {"instruction": turn["instruction"], "family": turn["family"]}}
        else:
            text = f"All done. The answer is {answer}." if answer is not None else "The task is done."
            action = {"done": {"success": True, "text": text}}
        target = canonical({"action": [action], "memory": f"Step {t} of {key}."}, SCHEMA)
        content = [{"type": "text", "text": f"<user_request>{site} {parts}</user_request> step {t}"}]
        content.append({"type": "image_url", "image_url": {"url": f"step_{t}.png"}})
        messages = [
            {"role": "system", "content": "You are the planner."},
            {"role": "user", "content": content},
        ]
        rows.append(
            {
                "task_id": key,
                "step": t,
                "segment": t,
                "macro": turn.get("macro"),
                "family": "planner",
                "op": turn["kind"],
                "delegated": turn.get("family"),
                "messages": messages,
                "target": orjson.dumps(target).decode(),
            }
        )
        (d / f"step_{t}.png").write_bytes(png_bytes(*size, shade=shade + t))
    (d / "rows.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    episode = {
        "task_id": key,
        "site": site,
        "instruction": " Then ".join(t["instruction"] for t in turns[:-1]),
        "instruction_by": "joined",
        "start_url": f"/sites/{site}",
        "parts": parts,
        "via": [None] * len(parts),
        "macros": [MACROS[p[0]][0] for p in parts],
        "turns": turns,
        "answer": answer,
        "version": "v6",
        "executor": "replay",
        "budget": 40,
        "planner_turns": 25,
        "response_format": RESPONSE_FORMAT,
        "env": {"plandvc": "0.1.0"},
    }
    (d / "episode.json").write_bytes(orjson.dumps(episode, option=orjson.OPT_INDENT_2))
    return key


def write_results(raw: Path, extra: list[dict] = ()) -> None:
    """results.jsonl for every chain dir in raw (ok) plus `extra` results (e.g. failed ones), sorted by key."""
    results = list(extra)
    for d in sorted(p for p in raw.iterdir() if p.is_dir() and not p.name.startswith("_")):
        ep = orjson.loads((d / "episode.json").read_bytes())
        results.append(
            {
                "key": d.name,
                "site": ep["site"],
                "parts": ep["parts"],
                "via": ep["via"],
                "ok": True,
                "error": None,
                "turns": len(ep["turns"]),
                "steps": len(ep["turns"]) - 1,
                "detail": "ok",
                "instruction_by": "joined",
            }
        )
    results.sort(key=lambda r: r["key"])
    (raw / "results.jsonl").write_bytes(
        b"".join(orjson.dumps(r, option=orjson.OPT_SORT_KEYS) + b"\n" for r in results)
    )


def failed(raw: Path, site: str, parts: list[str], error: str) -> dict:
    key = key_of(site, parts)
    (raw / "_failed" / key).mkdir(parents=True)
    (raw / "_failed" / key / "rows.jsonl").write_bytes(b"")
    return {"key": key, "site": site, "parts": parts, "via": [None] * len(parts), "ok": False, "error": error}


def tree(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def make_version(
    tmp: Path, chains: list[tuple[str, list[str], object]], size: tuple[int, int] = SIZE
) -> Path:
    """A dataset version `tmp/rows/v1` made by filter-rows from these (site, parts, answer) chains."""
    raw = tmp / "raw"
    for i, (site, parts, answer) in enumerate(chains):
        make_chain(raw, site, parts, answer=answer, shade=10 * i, size=size)
    write_results(raw)
    filter_rows(raw, tmp / "rows" / "v1", tmp / "metrics", val_share=0.5, image_size=size)
    return tmp / "rows" / "v1"
