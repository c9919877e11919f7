"""filter-rows end to end on hand-made raw dirs: each check rejects its broken chain, good chains are kept
byte for byte, outputs are deterministic, and a failed or killed run leaves the previous dataset intact."""

from __future__ import annotations

import hashlib
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from raw_chains import SIZE, failed, key_of, make_chain, png_bytes, tree, write_results

from plandvc.agent.schema import RESPONSE_FORMAT
from plandvc.io import InputError, read_json, read_jsonl
from plandvc.rows import dataset, version
from plandvc.rows.dataset import error_kind, filter_rows
from plandvc.rows.validate import Chain, Reason, check_chain


@pytest.fixture
def raw(tmp_path) -> Path:
    """Three good chains (two sites, one with an answer) and two failed ones."""
    r = tmp_path / "raw"
    make_chain(r, "shop", ["a1", "b1"])
    make_chain(r, "shop", ["a2", "c1"], answer=7, shade=10)
    make_chain(r, "clinic", ["d1", "e1", "b3"], shade=20)
    extra = [
        failed(r, "shop", ["a9", "b9"], "check failed: query: status"),
        failed(r, "clinic", ["x"], "TimeoutError: t"),
    ]
    write_results(r, extra)
    return r


def run(raw: Path, tmp: Path, image_size=SIZE, **kw):
    return filter_rows(raw, tmp / "rows" / "v1", tmp / "metrics", image_size=image_size, **kw)


def test_good_chains_are_kept_byte_for_byte(raw, tmp_path):
    done = run(raw, tmp_path)
    out = tmp_path / "rows" / "v1"
    assert [c.key for c in done.kept] == sorted(p.name for p in raw.iterdir() if p.name.startswith("plan-"))
    assert done.dropped == []
    manifest = read_json(out / "manifest.json")
    for rel, sha in manifest["files"].items():
        assert (out / rel).read_bytes() == (raw / rel).read_bytes()
        assert hashlib.sha256((out / rel).read_bytes()).hexdigest() == sha
    assert set(tree(out)) == {*manifest["files"], "manifest.json"}
    assert not any("_failed" in rel for rel in tree(out))
    assert manifest["counts"] | {} == {
        "chains_raw": 5, "chains": 3, "rows": 10, "images": 10, "files": 16, "train": 3 - manifest["counts"]["val"],
        "val": manifest["counts"]["val"], "excluded": 0, "dropped": 0,
    }  # fmt: skip
    index = manifest["chains"]
    assert [c["key"] for c in index] == sorted(c["key"] for c in index)
    assert index[0].keys() == {"key", "site", "parts", "macros", "turns", "split", "split_detail"}
    assert {c["split"] for c in index} <= {"train", "val", "excluded"}  # the rule: tests/test_rows_split.py


def test_metrics(raw, tmp_path):
    run(raw, tmp_path)
    m = tmp_path / "metrics"
    assert sorted(p.name for p in m.iterdir()) == sorted(dataset.METRIC_FILES)
    f = read_json(m / "filter.json")
    assert (f["chains_raw"], f["ok_raw"], f["failed_raw"], f["kept"], f["rows"]) == (5, 3, 2, 3, 10)
    assert f["kept_rate"] == 0.6 and f["kept_of_ok"] == 1.0
    assert f["failures_raw"] == {"TimeoutError": 1, "check failed": 1}
    assert set(f["dropped"]) == {"missing_image", "bad_image", "bad_target", "turn_mismatch", "no_answer",
                                 "bad_episode", "duplicate"}  # fmt: skip
    site = read_json(m / "by_site.json")
    assert site["shop"] == {"chains_raw": 3, "ok_raw": 2, "kept": 2, "rows": 6, "kept_rate": 0.6667}
    assert site["clinic"]["kept"] == 1
    parts = read_json(m / "by_parts.json")
    assert parts["2"]["chains_raw"] == 3 and parts["3"]["kept"] == 1 and parts["1"]["kept"] == 0
    macro = read_json(m / "by_macro.json")
    assert macro["sort_by_form"] == {"family": "Filter", "parts": 2, "chains": 2}
    family = read_json(m / "by_family.json")
    assert family["Filter"] == {"delegations": 4, "chains": 3}
    assert family["Form"] == {"delegations": 1, "chains": 1}
    plot = read_json(m / "plot_by_site.json")
    assert [p["site"] for p in plot] == ["clinic", "shop"] and plot[1]["kept"] == 2


def _edit_rows(d: Path, fn) -> None:
    rows = [orjson.loads(x) for x in (d / "rows.jsonl").read_bytes().splitlines()]
    rows = fn(rows)
    (d / "rows.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))


def _edit_episode(d: Path, fn) -> None:
    ep = orjson.loads((d / "episode.json").read_bytes())
    fn(ep)
    (d / "episode.json").write_bytes(orjson.dumps(ep))


def _set_target(t: int, target) -> callable:
    def fn(rows):
        rows[t]["target"] = target if isinstance(target, str) else orjson.dumps(target).decode()
        return rows

    return fn


def _flip_crc(d: Path) -> None:
    data = bytearray((d / "step_0.png").read_bytes())
    data[60] ^= 0xFF
    (d / "step_0.png").write_bytes(bytes(data))


def _drop_last_turn(ep):
    ep["turns"] = ep["turns"][:-1]


GOOD_DELEGATE = {
    "memory": "m",
    "action": [{"delegate": {"family": "Filter", "instruction": "Do a5 on shop."}}],
}
BREAKERS = {
    "missing image": (lambda d: (d / "step_1.png").unlink(), "missing_image", "step_1.png: missing"),
    "truncated image": (
        lambda d: (d / "step_1.png").write_bytes(png_bytes(*SIZE)[: len(png_bytes(*SIZE)) // 2]),
        "bad_image",
        "step_1.png: truncated",
    ),
    "bad crc": (_flip_crc, "bad_image", "bad CRC"),
    "wrong size": (
        lambda d: (d / "step_2.png").write_bytes(png_bytes(64, 40)),
        "bad_image",
        "64x40, expected 128x80",
    ),
    "image of another step": (
        lambda d: _edit_rows(d, lambda rows: [rows[0] | {"messages": rows[1]["messages"]}, *rows[1:]]),
        "bad_image",
        "is not named step_0.png",
    ),
    "target not json": (
        lambda d: _edit_rows(d, _set_target(0, "{memory: nope")),
        "bad_target",
        "not valid JSON",
    ),
    "target breaks schema": (
        lambda d: _edit_rows(
            d,
            _set_target(
                0, {"memory": "m", "action": [{"delegate": {"family": "Cooking", "instruction": "x"}}]}
            ),
        ),
        "bad_target",
        "matches none of anyOf",
    ),
    "target extra key": (
        lambda d: _edit_rows(d, _set_target(0, GOOD_DELEGATE | {"thinking": "hm"})),
        "bad_target",
        "unexpected 'thinking'",
    ),
    "keys out of order": (
        lambda d: _edit_rows(d, _set_target(0, {"action": GOOD_DELEGATE["action"], "memory": "m"})),
        "bad_target",
        "not in schema order",
    ),
    "nested keys out of order": (
        lambda d: _edit_rows(
            d,
            _set_target(
                0,
                {
                    "memory": "m",
                    "action": [{"delegate": {"instruction": "Do a5 on shop.", "family": "Filter"}}],
                },
            ),
        ),
        "bad_target",
        "not in schema order",
    ),
    "target not the turn's step": (
        lambda d: _edit_rows(
            d,
            _set_target(
                0, {"memory": "m", "action": [{"delegate": {"family": "Filter", "instruction": "Other."}}]}
            ),
        ),
        "bad_target",
        "not the turn's delegation",
    ),
    "done without success": (
        lambda d: _edit_rows(
            d, _set_target(2, {"memory": "m", "action": [{"done": {"text": "7", "success": False}}]})
        ),
        "bad_target",
        "does not report success",
    ),
    "row missing": (lambda d: _edit_rows(d, lambda rows: rows[:-1]), "turn_mismatch", "2 rows for 3 turns"),
    "episode turn missing": (
        lambda d: _edit_episode(d, lambda ep: ep.update(turns=ep["turns"][:-1] + [ep["turns"][-1]] * 2)),
        "turn_mismatch",
        "'done' before the last turn",
    ),
    "last turn not done": (
        lambda d: (_edit_episode(d, _drop_last_turn), _edit_rows(d, lambda rows: rows[:-1])),
        "turn_mismatch",
        "the last turn is 'delegate'",
    ),
    "steps out of order": (
        lambda d: _edit_rows(d, lambda rows: [rows[0] | {"step": 1}, *rows[1:]]),
        "turn_mismatch",
        "row 0 has step 1",
    ),
    "op does not match the turn": (
        lambda d: _edit_rows(d, lambda rows: [rows[0] | {"delegated": "Form"}, *rows[1:]]),
        "turn_mismatch",
        "op/delegated/macro",
    ),
    "answer missing from the final text": (
        lambda d: _edit_rows(
            d, _set_target(2, {"memory": "m", "action": [{"done": {"text": "Done.", "success": True}}]})
        ),
        "no_answer",
        "does not contain the answer 7",
    ),
    "task_id is not the key": (
        lambda d: _edit_rows(d, lambda rows: [rows[0] | {"task_id": "plan-other"}, *rows[1:]]),
        "bad_episode",
        "is not the key",
    ),
    "no episode": (lambda d: (d / "episode.json").unlink(), "bad_episode", "episode.json: missing"),
    "episode not json": (lambda d: (d / "episode.json").write_text("{"), "bad_episode", "not valid JSON"),
    "no response_format": (
        lambda d: _edit_episode(d, lambda ep: ep.pop("response_format")),
        "bad_episode",
        "no response_format",
    ),
    "rows not json": (lambda d: (d / "rows.jsonl").write_text("{\n"), "bad_episode", "rows.jsonl:1"),
    "episode not an object": (
        lambda d: (d / "episode.json").write_text("[]"),
        "bad_episode",
        "not an object",
    ),
    "unknown turn kind": (
        lambda d: _edit_episode(d, lambda ep: ep["turns"][0].update(kind="click")),
        "bad_episode",
        "turn 0 has kind 'click'",
    ),
    "delegate turn without family": (
        lambda d: _edit_episode(d, lambda ep: ep["turns"][1].pop("family")),
        "bad_episode",
        "turn 1 lacks a family",
    ),
    "done turn's answer is not the episode's": (
        lambda d: _edit_episode(d, lambda ep: ep.update(answer=8)),
        "bad_episode",
        "not the episode's answer",
    ),
    "schema that cannot be applied": (
        lambda d: _edit_episode(
            d, lambda ep: ep.update(response_format={"json_schema": {"schema": {"type": "tuple"}}})
        ),
        "bad_episode",
        "cannot be applied",
    ),
    "row missing a key": (
        lambda d: _edit_rows(d, lambda rows: [{k: v for k, v in rows[0].items() if k != "op"}, *rows[1:]]),
        "bad_episode",
        "rows.jsonl:1: missing ['op']",
    ),
    "row not the planner's": (
        lambda d: _edit_rows(d, lambda rows: [rows[0] | {"family": "Filter"}, *rows[1:]]),
        "bad_episode",
        "expected 'planner'",
    ),
    "messages not a list": (
        lambda d: _edit_rows(d, lambda rows: [rows[0] | {"messages": "hi"}, *rows[1:]]),
        "bad_episode",
        "messages is not a list",
    ),
    "unknown message part": (
        lambda d: _edit_rows(
            d,
            lambda rows: [
                rows[0] | {"messages": [{"role": "user", "content": [{"type": "audio"}]}]},
                *rows[1:],
            ],
        ),
        "bad_episode",
        "unknown message part",
    ),
    "target not a string": (
        lambda d: _edit_rows(d, lambda rows: [rows[0] | {"target": GOOD_DELEGATE}, *rows[1:]]),
        "bad_target",
        "not a JSON string",
    ),
    "last target not done": (
        lambda d: _edit_rows(d, _set_target(2, GOOD_DELEGATE)),
        "bad_target",
        "not a done action",
    ),
    "no chain dir": (lambda d: shutil.rmtree(d), "bad_episode", "no chain directory"),
    "episode of another chain": (
        lambda d: _edit_episode(d, lambda ep: ep.update(parts=["zz", "yy"])),
        "bad_episode",
        "site/parts are not the result's",
    ),
}


@pytest.mark.parametrize("breaker", list(BREAKERS))
def test_each_check_rejects_its_broken_chain(raw, tmp_path, breaker):
    fn, kind, detail = BREAKERS[breaker]
    bad = make_chain(raw, "shop", ["a5", "c5"], answer=7, shade=40)
    good = sorted(p.name for p in raw.iterdir() if p.name.startswith("plan-") and p.name != bad)
    write_results(raw, [r for r in read_jsonl(raw / "results.jsonl") if not r["ok"]])
    assert isinstance(check_chain(raw / bad, bad, SIZE), Chain)  # the chain is good before it is broken
    fn(raw / bad)
    done = run(raw, tmp_path)
    assert [(d.key, d.kind) for d in done.dropped] == [(bad, kind)]
    assert detail in done.dropped[0].detail
    assert [c.key for c in done.kept] == good
    out = tmp_path / "rows" / "v1"
    assert not (out / bad).exists()
    manifest = read_json(out / "manifest.json")
    assert manifest["dropped"] == [{"key": bad, "kind": kind, "detail": done.dropped[0].detail}]
    assert read_json(tmp_path / "metrics" / "filter.json")["dropped"][kind] == 1
    assert str(tmp_path) not in (out / "manifest.json").read_text()


def test_image_size_param_defaults_to_1280x800(raw, tmp_path):
    big = make_chain(raw, "shop", ["a6", "b6"], size=(1280, 800), shade=60)
    small = key_of("shop", ["a1", "b1"])
    write_results(raw)
    assert isinstance(check_chain(raw / big, big), Chain)
    assert check_chain(raw / small, small) == Reason("bad_image", "step_0.png: 128x80, expected 1280x800")
    assert check_chain(raw / big, big, image_size=SIZE).kind == "bad_image"
    assert isinstance(check_chain(raw / small, small, image_size=None), Chain)
    done = filter_rows(raw, tmp_path / "rows", tmp_path / "m")  # the default size
    assert [c.key for c in done.kept] == [big] and {d.kind for d in done.dropped} == {"bad_image"}
    (raw / small / "step_1.png").write_bytes(png_bytes(*SIZE, colour=6))  # RGBA is fine too
    assert isinstance(check_chain(raw / small, small, image_size=SIZE), Chain)


def test_duplicates_same_parts_or_same_rows(raw, tmp_path):
    first = key_of("shop", ["a1", "b1"])
    same_parts = "plan-shop-zzzzzzzzzz"  # sorts after the original: the original stays
    make_chain(raw, "shop", ["a1", "b1"], key=same_parts, shade=90)
    copy = "plan-shop-zzzzzzzzzy"
    shutil.copytree(raw / first, raw / copy)
    _edit_rows(raw / copy, lambda rows: [r | {"task_id": copy} for r in rows])
    _edit_episode(raw / copy, lambda ep: ep.update(task_id=copy, parts=["q1", "q2"]))
    write_results(raw)
    done = run(raw, tmp_path)
    assert sorted((d.key, d.kind, d.detail) for d in done.dropped) == [
        (copy, "duplicate", f"the same rows and images as {first}"),
        (same_parts, "duplicate", f"the same parts as {first}"),
    ]
    assert first in {c.key for c in done.kept}


def test_two_runs_are_byte_identical_wherever_they_run(raw, tmp_path, monkeypatch):
    monkeypatch.setenv("PLANDVC_WORKERS", "1")
    run(raw, tmp_path / "one")
    first = tree(tmp_path / "one")
    monkeypatch.setenv("PLANDVC_WORKERS", "4")
    run(raw, tmp_path / "one")
    assert tree(tmp_path / "one") == first
    monkeypatch.setenv("PLANDVC_WORKERS", "many")
    with pytest.raises(InputError, match="PLANDVC_WORKERS='many' is not a number"):
        run(raw, tmp_path / "one")
    assert tree(tmp_path / "one") == first
    monkeypatch.delenv("PLANDVC_WORKERS")
    moved = tmp_path / "elsewhere" / "raw"
    shutil.copytree(raw, moved)
    run(moved, tmp_path / "two")
    assert tree(tmp_path / "two") == first
    assert b"elsewhere" not in b"".join(first.values())


def test_failed_writer_leaves_the_previous_dataset(raw, tmp_path, monkeypatch):
    run(raw, tmp_path)
    out = tmp_path / "rows" / "v1"
    before = tree(out)
    make_chain(raw, "shop", ["a7", "b7"], shade=70)
    write_results(raw)
    calls = []
    real = version._copy

    def failing(src, dst):
        calls.append(src)
        if len(calls) > 5:
            raise OSError("disk full")
        return real(src, dst)

    monkeypatch.setattr(version, "_copy", failing)
    with pytest.raises(OSError, match="disk full"):
        run(raw, tmp_path)
    assert tree(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["v1"]  # no temporary dir left


def test_killed_run_leaves_the_previous_dataset(raw, tmp_path):
    """SIGKILL in the middle of copying (a real kill of a real process): the old dataset stays whole."""
    run(raw, tmp_path)
    out = tmp_path / "rows" / "v1"
    before = tree(out)
    make_chain(raw, "clinic", ["a8", "b8"], shade=80)
    write_results(raw)
    script = (
        "import os, signal, sys\n"
        "from plandvc.rows import dataset, version\n"
        "n = [0]\nreal = version._copy\n"
        "def copy(src, dst):\n"
        "    n[0] += 1\n"
        "    if n[0] == 6:\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return real(src, dst)\n"
        "version._copy = copy\n"
        f"dataset.filter_rows(sys.argv[1], sys.argv[2], sys.argv[3], image_size={SIZE})\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, raw, out, tmp_path / "metrics"], check=False)
    assert proc.returncode == -signal.SIGKILL
    assert tree(out) == before
    leftovers = [p.name for p in out.parent.iterdir() if p.name != "v1"]
    assert len(leftovers) == 1 and leftovers[0].startswith(".v1.tmp-")
    run(raw, tmp_path)  # the next run cleans up and publishes the new dataset
    assert sorted(p.name for p in out.parent.iterdir()) == ["v1"]
    assert key_of("clinic", ["a8", "b8"]) in {c["key"] for c in read_json(out / "manifest.json")["chains"]}


@pytest.mark.parametrize(
    "setup, message",
    [
        (lambda r: (r / "results.jsonl").unlink(), "results.jsonl: file not found"),
        (lambda r: (r / "results.jsonl").write_text('{"key": "k", "ok": true}\n{oops\n'), "results.jsonl:2"),
        (lambda r: (r / "results.jsonl").write_text('{"key": "../x", "ok": true, "site": "s", "parts": []}\n'),
         "not a chain directory name"),
        (lambda r: (r / "results.jsonl").write_text('{"key": "k", "ok": "yes"}\n'), "boolean 'ok'"),
        (lambda r: shutil.rmtree(r), "not a directory"),
    ],
)  # fmt: skip
def test_bad_input_is_an_input_error_and_the_dataset_stays(raw, tmp_path, setup, message):
    run(raw, tmp_path)
    before = tree(tmp_path / "rows" / "v1") | tree(tmp_path / "metrics")
    setup(raw)
    with pytest.raises(InputError, match=message):
        run(raw, tmp_path)
    assert tree(tmp_path / "rows" / "v1") | tree(tmp_path / "metrics") == before


def test_duplicate_result_keys_are_bad_input(raw, tmp_path):
    lines = (raw / "results.jsonl").read_bytes().splitlines()
    (raw / "results.jsonl").write_bytes(b"\n".join([*lines, lines[0]]) + b"\n")
    with pytest.raises(InputError, match="appears twice"):
        run(raw, tmp_path)


def test_out_inside_raw_is_refused(raw, tmp_path):
    with pytest.raises(InputError, match="must not contain or be inside"):
        filter_rows(raw, raw / "dataset", tmp_path / "m")
    with pytest.raises(InputError, match="must not contain or be inside"):
        filter_rows(raw, raw.parent, tmp_path / "m")


def test_unreadable_chain_is_dropped_not_a_crash(raw, tmp_path):
    d = next(p for p in raw.iterdir() if p.name.startswith("plan-"))
    (d / "rows.jsonl").unlink()
    (d / "rows.jsonl").mkdir()  # reading it is an OSError, even for root
    done = run(raw, tmp_path)
    assert [(x.key, x.kind) for x in done.dropped] == [(d.name, "bad_episode")]
    assert "cannot read" in done.dropped[0].detail and str(tmp_path) not in done.dropped[0].detail


def test_error_kind():
    assert error_kind("check failed: query: x") == "check failed"
    assert error_kind("TimeoutError: chain timed out") == "TimeoutError"
    assert error_kind("script not finished") == "script not finished"
    assert error_kind(None) == "unknown"


def test_key_order_follows_the_project_schema_when_episode_json_sorted_it(raw, tmp_path):
    """io.write_json sorts keys, so the episode's schema may list `action` before `memory`; the targets still
    follow the schema's own order (memory first), and a target in the sorted order is still rejected."""
    key = key_of("shop", ["a1", "b1"])
    d = raw / key
    (d / "episode.json").write_bytes(orjson.dumps(orjson.loads((d / "episode.json").read_bytes()),
                                                  option=orjson.OPT_SORT_KEYS))  # fmt: skip
    assert list(read_json(d / "episode.json")["response_format"]["json_schema"]["schema"]["properties"]) == [
        "action",
        "memory",
    ]
    assert isinstance(check_chain(d, key, SIZE), Chain)
    _edit_rows(d, _set_target(0, {"action": GOOD_DELEGATE["action"], "memory": "m"}))
    got = check_chain(d, key, SIZE)
    assert got.kind == "bad_target" and "not in schema order ['memory', 'action']" in got.detail


def test_key_order_of_another_schema_is_its_own(raw, tmp_path):
    key = key_of("shop", ["a1", "b1"])
    d = raw / key
    other = orjson.loads(orjson.dumps(RESPONSE_FORMAT))
    schema = other["json_schema"]["schema"]
    schema["properties"] = {
        "action": schema["properties"]["action"],
        "memory": schema["properties"]["memory"],
    }
    schema["title"] = "planner v7"  # not the project's schema: its own order is the reference
    _edit_episode(d, lambda ep: ep.update(response_format=other))
    got = check_chain(d, key, SIZE)
    assert got.kind == "bad_target" and "not in schema order ['action', 'memory']" in got.detail
