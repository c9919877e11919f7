"""Fault injection for the commands after filter-rows (export, view, eval-specs, eval-planner): an output that
is not theirs is never replaced, a path read from a manifest never leaves its root, a planner reply that is
slow or not a completion never hangs or aborts the evaluation, and every bad input is one line.

Each case runs the real command (`python -m plandvc ...`, or the real client against a real HTTP server on
loopback) and asserts the exit code, the one line, and that nothing outside the output was touched.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import orjson
import pytest
from raw_chains import make_version, png_bytes, write_results
from run_helpers import ROOT, one_line, plandvc

from plandvc.eval.client import Asking, PlannerClient, PlannerUnavailable
from plandvc.eval.metrics import reply_record
from plandvc.eval.score import score_reply
from plandvc.eval.specs import held_out
from plandvc.eval.teacher import TurnReply
from plandvc.rows.dataset import filter_rows

POOL, SITES = ROOT / "data" / "pool", ROOT / "data" / "sites"
SIZE = (128, 80)
CHAINS = [("shop", ["a1", "c1"], "7"), ("shop", ["b2", "c2"], None), ("clinic", ["d1", "e2"], None)]


# ── helpers ────────────────────────────────────────────────────────────────


def tree(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def user_folder(path: Path) -> dict[str, bytes]:
    """A folder of the user's (a README.md, a model inside hf/): what a command must never replace."""
    (path / "hf").mkdir(parents=True)
    (path / "README.md").write_text("my notes\n")
    (path / "hf" / "model.safetensors").write_bytes(b"weights" * 100)
    return tree(path)


@pytest.fixture(scope="module")
def version(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small dataset version (filter-rows of three chains), built once; tests break private copies."""
    return make_version(tmp_path_factory.mktemp("version"), CHAINS, SIZE)


@pytest.fixture
def rows(version: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "rows" / "v1"
    shutil.copytree(version, dst)
    return dst


def edit_manifest(rows: Path, change: Callable[[dict], None]) -> None:
    m = orjson.loads((rows / "manifest.json").read_bytes())
    change(m)
    (rows / "manifest.json").write_bytes(orjson.dumps(m, option=orjson.OPT_INDENT_2))


def rewrite_file(rows: Path, rel: str, data: bytes) -> None:
    """Replace a file of the version and write its new sha256 into the manifest (a tampered version)."""
    (rows / rel).write_bytes(data)
    edit_manifest(rows, lambda m: m["files"].__setitem__(rel, hashlib.sha256(data).hexdigest()))


def first_chain(rows: Path) -> str:
    return str(orjson.loads((rows / "manifest.json").read_bytes())["chains"][0]["key"])


def export_args(rows: Path, out: Path, *extra: str | Path) -> list[str | Path]:
    return ["export", "--rows", rows, "--out", out, "--formats", "all", *extra]


# ── 1, 5: view never replaces what is not a viewer ─────────────────────────


def test_view_out_on_a_folder_of_the_users_is_refused(rows: Path, tmp_path: Path) -> None:
    """Case 1: the whole folder was deleted with exit 0."""
    out = tmp_path / "mine"
    before = user_folder(out)
    p = plandvc("view", "--dataset", rows, "--out", out)
    assert p.returncode == 1
    assert f"--out {out}: exists and is not a previous output of view" in one_line(p)
    assert tree(out) == before


def test_view_out_on_a_file_is_refused_and_the_file_kept(rows: Path, tmp_path: Path) -> None:
    """Case 5: the file was renamed to a hidden `.<name>.old` and a folder put in its place."""
    out = tmp_path / "notes.txt"
    out.write_text("keep me\n")
    p = plandvc("view", "--dataset", rows, "--out", out)
    assert p.returncode == 1
    assert f"--out {out}: is a file, not a folder" in one_line(p)
    assert out.read_text() == "keep me\n" and sorted(x.name for x in tmp_path.iterdir()) == [
        "notes.txt",
        "rows",
    ]


def test_view_replaces_its_own_previous_output(rows: Path, tmp_path: Path) -> None:
    out = tmp_path / "view"
    assert plandvc("view", "--dataset", rows, "--out", out).returncode == 0
    first = tree(out)
    p = plandvc("view", "--dataset", rows, "--out", out)
    assert p.returncode == 0, p.stderr
    assert tree(out) == first


def test_an_out_that_is_a_symbolic_link_is_refused(rows: Path, tmp_path: Path) -> None:
    """Found while writing issue 30's note: OUT a symbolic link to the command's own previous output was a
    traceback ("Cannot call rmtree on a symbolic link"), the link swapped for a real folder and left as a
    hidden `.<name>.old` that made every later run to OUT fail the same way. Refused up front now."""
    real = tmp_path / "real"
    assert plandvc("view", "--dataset", rows, "--out", real).returncode == 0
    first = tree(real)
    link = tmp_path / "v"
    link.symlink_to(real, target_is_directory=True)
    p = plandvc("view", "--dataset", rows, "--out", link)
    assert p.returncode == 1
    assert f"--out {link}: is a symbolic link" in one_line(p)
    assert link.is_symlink() and tree(real) == first
    assert sorted(x.name for x in tmp_path.iterdir()) == ["real", "rows", "v"]


# ── 2, 4: eval-planner and eval-specs ───────────────────────────────────────


def test_eval_planner_skipped_never_replaces_a_foreign_out_or_metrics(tmp_path: Path) -> None:
    """Cases 2 and 4: with no --planner-url (what `dvc repro` runs) the folder and any --metrics file were
    replaced with exit 0."""
    specs = tmp_path / "specs"
    specs.mkdir()
    out = tmp_path / "mine"
    before = user_folder(out)
    args = ["eval-planner", "--specs", specs, "--pool", POOL, "--sites", SITES]
    p = plandvc(*args, "--out", out, "--metrics", tmp_path / "eval.json")
    assert p.returncode == 1
    assert f"--out {out}: exists and is not a previous output of eval-planner" in one_line(p)
    assert tree(out) == before and not (tmp_path / "eval.json").exists()
    metrics = tmp_path / "notes.json"
    metrics.write_text('{"my": "numbers"}\n')
    p = plandvc(*args, "--out", tmp_path / "run", "--metrics", metrics)
    assert p.returncode == 1
    assert f"--metrics {metrics}: exists and is not a previous output of eval-planner" in one_line(p)
    assert metrics.read_text() == '{"my": "numbers"}\n' and not (tmp_path / "run").exists()
    # its own previous outputs are replaced
    p = plandvc(*args, "--out", tmp_path / "run", "--metrics", tmp_path / "eval.json")
    assert p.returncode == 0, p.stderr
    p = plandvc(*args, "--out", tmp_path / "run", "--metrics", tmp_path / "eval.json")
    assert p.returncode == 0, p.stderr


def test_eval_specs_never_replaces_a_foreign_out(tmp_path: Path) -> None:
    """Case 2: eval-specs replaced the folder after its whole run."""
    out = tmp_path / "mine"
    before = user_folder(out)
    p = plandvc("eval-specs", "--pool", POOL, "--sites", SITES, "--out", out, "--cache", tmp_path / "c")
    assert p.returncode == 1
    assert f"--out {out}: exists and is not a previous output of eval-specs" in one_line(p)
    assert tree(out) == before and not (tmp_path / "c").exists()


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999/v1", "http://127.0.0.1:80x/v1"])
def test_a_planner_url_that_does_not_parse_is_one_line(tmp_path: Path, url: str) -> None:
    """Case 11: `--planner-url 'http://[::1'` was a ValueError traceback; so was a port out of 0-65535 (an
    OverflowError from connect) or not a number."""
    specs = tmp_path / "specs"
    specs.mkdir()
    p = plandvc("eval-planner", "--specs", specs, "--pool", POOL, "--sites", SITES, "--out", tmp_path / "o",
                "--metrics", tmp_path / "m.json", "--planner-url", url, "--planner-model", "m")  # fmt: skip
    assert p.returncode == 1
    assert f"eval.planner_url: {url!r} is not an http(s) URL" in one_line(p)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["specs"]


# ── 6, 8: replies that are slow or not completions ──────────────────────────


class Raw(BaseHTTPRequestHandler):
    """A loopback server answering every request with `self.server.answer(path)`; with `pace` set the chat
    replies (and the model list too with `slow_models`) are sent one byte every `pace` seconds."""

    server: RawServer

    def log_message(self, *args: object) -> None:
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        status, body = self.server.answer(self.path)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            if not self.server.pace or (self.path.endswith("/models") and not self.server.slow_models):
                self.wfile.write(body)
                return
            for i in range(len(body)):
                if self.server.stopping.wait(self.server.pace):
                    return
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
        except OSError:
            return

    do_GET = do_POST = _answer


class RawServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, answer: Callable[[str], tuple[int, bytes]], pace: float, slow_models: bool) -> None:
        super().__init__(("127.0.0.1", 0), Raw)
        self.answer, self.pace, self.slow_models = answer, pace, slow_models
        self.stopping = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@pytest.fixture
def serve() -> Iterator[Callable[..., RawServer]]:
    servers: list[RawServer] = []

    def start(
        answer: Callable[[str], tuple[int, bytes]], pace: float = 0.0, slow_models: bool = False
    ) -> RawServer:
        s = RawServer(answer, pace, slow_models)
        threading.Thread(target=s.serve_forever, daemon=True).start()
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stopping.set()
        s.shutdown()
        s.server_close()


MODELS = orjson.dumps({"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "x"}]})


def chat_with(body: bytes) -> Callable[[str], tuple[int, bytes]]:
    return lambda path: (200, MODELS) if path.endswith("/models") else (200, body)


def ask(url: str, timeout: float = 5.0) -> tuple[str | None, str | None]:
    async def go() -> tuple[str | None, str | None]:
        client = await PlannerClient.connect(url, "m", Asking(timeout=timeout, retries=0, backoff=0.01))
        try:
            return await client.reply([{"role": "user", "content": "x"}])
        finally:
            await client.close()

    return asyncio.run(asyncio.wait_for(go(), 60))


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"<html>not json</html>", "not a chat completion"),
        (b'{"choices": "oops"}', "not a chat completion"),
        (b'{"choices": [{"message": {"content": 7}}]}', "not a chat completion"),
    ],
)
def test_a_reply_that_is_not_a_completion_is_no_reply(serve, body: bytes, why: str) -> None:
    """Case 8: a non-JSON 200 body or `{"choices": "oops"}` was a traceback that aborted the evaluation."""
    text, error = ask(serve(chat_with(body)).url)
    assert text is None and error is not None and why in error


def test_models_that_is_not_json_is_one_line(serve) -> None:
    """Case 8: `/models` answering non-JSON was a traceback."""
    s = serve(lambda path: (200, b"hello"))
    with pytest.raises(PlannerUnavailable, match="GET /models: not a model list"):
        ask(s.url)


def test_a_reply_trickling_one_byte_a_second_ends_at_the_timeout(serve) -> None:
    """Case 6: the timeout was per read, so a server sending one byte a second kept the reply going for
    minutes; now the whole reply has a deadline."""
    body = orjson.dumps({"choices": [{"message": {"role": "assistant", "content": "x" * 200}}]})
    s = serve(chat_with(body), pace=1.0)

    async def go() -> tuple[float, tuple[str | None, str | None]]:
        client = await PlannerClient.connect(s.url, "m", Asking(timeout=2, retries=0, backoff=0.01))
        try:
            t0 = time.monotonic()
            got = await client.reply([{"role": "user", "content": "x"}])
            return time.monotonic() - t0, got
        finally:
            await client.close()

    took, (text, error) = asyncio.run(asyncio.wait_for(go(), 60))
    assert text is None and error == "timed out"
    assert took < 3.5, took


def test_a_models_list_trickling_ends_at_the_timeout(serve) -> None:
    s = serve(lambda path: (200, MODELS), pace=1.0, slow_models=True)
    t0 = time.monotonic()
    with pytest.raises(PlannerUnavailable, match="timed out"):
        ask(s.url, timeout=2)
    assert time.monotonic() - t0 < 3.5


def test_an_8_mb_reply_is_capped_in_replies_jsonl(tmp_path: Path) -> None:
    """Worth fixing: an 8 MB reply was stored whole in replies.jsonl."""
    done = {"kind": "done", "family": None, "instruction": None, "macro": None, "answer": None}
    line = {
        "key": "k",
        "site": "shop",
        "parts": [],
        "via": [],
        "request": "r",
        "answer": None,
        "turns": [done],
    }
    chain = held_out(line, tmp_path)
    turn = chain.turns[0]
    big = "x" * 8_000_000
    rec = reply_record(TurnReply(chain, 0, turn, big, None, score_reply(big, turn, chain)))
    assert len(rec["reply"]) <= 100_000 and rec["reply_cut_from"] == 8_000_000
    small = reply_record(TurnReply(chain, 0, turn, "x", None, score_reply("x", turn, chain)))
    assert small["reply"] == "x" and "reply_cut_from" not in small


# ── 9, 11: a manifest read from elsewhere ───────────────────────────────────


def test_a_chain_key_with_dot_dots_is_refused_by_export_and_view(rows: Path, tmp_path: Path) -> None:
    """Case 9: a key `../x` made view write `<dir>.html` outside --out."""
    key = first_chain(rows)
    evil = f"../../{key}"
    edit_manifest(rows, lambda m: m["chains"][0].__setitem__("key", evil))
    for args in (export_args(rows, tmp_path / "exp"), ["view", "--dataset", rows, "--out", tmp_path / "v"]):
        p = plandvc(*args)
        assert p.returncode == 1
        assert f"{rows / 'manifest.json'}: chains[0]: key {evil!r} is not a chain folder name" in one_line(p)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["rows"]


def test_an_image_path_with_dot_dots_is_refused(rows: Path, tmp_path: Path) -> None:
    """Case 9: a manifest image path `<key>/../../x.png` made the llamafactory export write outside --out."""
    key = first_chain(rows)
    escape = f"{key}/../../escaped.png"

    def change(m: dict) -> None:
        m["files"][escape] = m["files"][f"{key}/step_0.png"]

    edit_manifest(rows, change)
    (tmp_path / "escaped.png").write_bytes(png_bytes(*SIZE))
    for args in (export_args(rows, tmp_path / "exp"), ["view", "--dataset", rows, "--out", tmp_path / "v"]):
        p = plandvc(*args)
        assert p.returncode == 1
        assert f"{rows / 'manifest.json'}: files: {escape!r} is not a file of a chain folder" in one_line(p)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["escaped.png", "rows"]


def test_an_absolute_image_url_in_a_row_is_refused(rows: Path, tmp_path: Path) -> None:
    key = first_chain(rows)
    data = (rows / key / "rows.jsonl").read_bytes().replace(b'"step_0.png"', b'"/etc/passwd"', 1)
    rewrite_file(rows, f"{key}/rows.jsonl", data)
    p = plandvc(*export_args(rows, tmp_path / "exp"))
    assert p.returncode == 1
    assert (
        f"{rows / key / 'rows.jsonl'}:1: message 1: image '/etc/passwd' is not a file of the chain"
        in one_line(p)
    )


@pytest.mark.parametrize("command", ["export", "view"])
def test_manifest_chains_that_are_strings_are_one_line(rows: Path, tmp_path: Path, command: str) -> None:
    """Case 11: `chains` entries that are strings were a traceback."""
    edit_manifest(rows, lambda m: m.__setitem__("chains", [c["key"] for c in m["chains"]]))
    args = (
        export_args(rows, tmp_path / "o")
        if command == "export"
        else ["view", "--dataset", rows, "--out", tmp_path / "o"]
    )
    p = plandvc(*args)
    assert p.returncode == 1
    assert f"{rows / 'manifest.json'}: chains[0]: not a chain record" in one_line(p)


@pytest.mark.parametrize(
    "row",
    [
        b"[1, 2]\n",
        b'{"step": 0, "messages": "hi", "target": "{}"}\n',
        b'{"step": 0, "messages": [5], "target": 1}\n',
    ],
)
def test_rows_of_the_wrong_shape_are_one_line_in_view(rows: Path, tmp_path: Path, row: bytes) -> None:
    """Case 11: rows of the wrong shape in `view` were a traceback."""
    key = first_chain(rows)
    rewrite_file(rows, f"{key}/rows.jsonl", row)
    p = plandvc("view", "--dataset", rows, "--out", tmp_path / "v")
    assert p.returncode == 1
    assert f"{rows / key / 'rows.jsonl'}:1: not a planner row" in one_line(p)
    assert not (tmp_path / "v").exists()


# ── 3, 10 and the export's own faults ───────────────────────────────────────


def test_export_out_on_a_folder_of_the_users_is_refused(rows: Path, tmp_path: Path) -> None:
    """Case 3: the user's README.md was replaced by the card and hf/ (a model inside) replaced whole."""
    out = tmp_path / "mine"
    before = user_folder(out)
    p = plandvc(*export_args(rows, out))
    assert p.returncode == 1
    assert f"--out {out}: exists and is not a previous output of export" in one_line(p)
    assert tree(out) == before


def test_export_replaces_its_own_previous_output(rows: Path, tmp_path: Path) -> None:
    out = tmp_path / "exp"
    assert plandvc(*export_args(rows, out)).returncode == 0
    first = tree(out)
    p = plandvc(*export_args(rows, out))
    assert p.returncode == 0, p.stderr
    assert tree(out) == first


def test_an_unwritable_metrics_is_found_before_out_is_replaced(rows: Path, tmp_path: Path) -> None:
    """Case 10: --out was already replaced when the metrics could not be written."""
    out = tmp_path / "exp"
    assert plandvc(*export_args(rows, out, "--formats", "openai")).returncode == 0
    first = tree(out)
    metrics = tmp_path / "metrics"
    (metrics / "export.json").mkdir(parents=True)  # a folder where export.json should be written
    p = plandvc(*export_args(rows, out, "--metrics", metrics))
    assert p.returncode == 1
    assert f"--metrics {metrics / 'export.json'}: is a folder" in one_line(p)
    assert tree(out) == first


@pytest.mark.parametrize("command", ["export", "view", "eval-specs"])
def test_a_second_writer_to_one_out_says_another_is_writing(rows: Path, tmp_path: Path, command: str) -> None:
    """Worth fixing: two exports to one --out deleted each other's build folder ("No such file or directory").
    view and eval-specs hold OUT's lock as export does: while another process holds it, the command is one
    line, exit 1, before any work (no OUT, no run cache); without the lock it would build and publish."""
    out, cache = tmp_path / "out", tmp_path / "c"
    args = {
        "export": export_args(rows, out),
        "view": ["view", "--dataset", rows, "--out", out],
        "eval-specs": ["eval-specs", "--pool", POOL, "--sites", SITES, "--out", out, "--cache", cache],
    }[command]
    with open(tmp_path / ".out.lock", "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # what a running writer of OUT holds
        p = plandvc(*args)
    assert p.returncode == 1
    assert f"another {command} is writing {out}; wait for it to finish" in one_line(p)
    assert not out.exists() and not cache.exists()


def test_two_exports_at_once_one_writes_the_other_says_so(rows: Path, tmp_path: Path) -> None:
    out = tmp_path / "exp"
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "plandvc", *map(str, export_args(rows, out))],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    errs = [p.communicate(timeout=120)[1] for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes in ([0, 0], [0, 1]), errs
    for p, err in zip(procs, errs, strict=True):
        if p.returncode:
            assert f"another export is writing {out}" in err and "Traceback" not in err, err
    assert "README.md" in tree(out)


def test_a_truncated_png_with_its_sha256_rewritten_is_named(rows: Path, tmp_path: Path) -> None:
    """Worth fixing: a truncated PNG whose sha256 was rewritten into the manifest was exported silently."""
    key = first_chain(rows)
    rel = f"{key}/step_0.png"
    rewrite_file(rows, rel, (rows / rel).read_bytes()[:-40])
    p = plandvc(*export_args(rows, tmp_path / "exp"))
    assert p.returncode == 1
    assert f"{rows / rel}: not a whole PNG" in one_line(p)
    assert not (tmp_path / "exp").exists()


def test_an_empty_rows_file_of_a_kept_chain_is_an_error(rows: Path, tmp_path: Path) -> None:
    """Worth fixing: an empty rows.jsonl of a kept chain added 0 examples silently."""
    key = first_chain(rows)
    rewrite_file(rows, f"{key}/rows.jsonl", b"")
    p = plandvc(*export_args(rows, tmp_path / "exp"))
    assert p.returncode == 1
    assert f"{rows / key / 'rows.jsonl'}: no rows (a kept chain has one per turn)" in one_line(p)


def test_an_empty_dataset_is_an_error_unless_allowed(tmp_path: Path) -> None:
    """Worth fixing: an empty dataset exported with exit 0."""
    raw = tmp_path / "raw"
    raw.mkdir()
    write_results(raw)
    filter_rows(raw, tmp_path / "rows", tmp_path / "metrics")
    p = plandvc("export", "--rows", tmp_path / "rows", "--out", tmp_path / "exp")
    assert p.returncode == 1
    assert f"{tmp_path / 'rows'}: no examples to export (--allow-empty exports an empty version)" in one_line(
        p
    )
    assert not (tmp_path / "exp").exists()
    p = plandvc("export", "--rows", tmp_path / "rows", "--out", tmp_path / "exp", "--allow-empty")
    assert p.returncode == 0, p.stderr


# ── the same rule for make-pool and filter-rows' metrics ────────────────────


def test_make_pool_never_writes_into_a_foreign_folder(tmp_path: Path) -> None:
    """make-pool wrote runs/, kept.jsonl and pool_ids.txt into any folder; the committed pool stays its own."""
    from plandvc.pool.recorder import is_pool

    out = tmp_path / "mine"
    before = user_folder(out)
    p = plandvc("make-pool", "--sites", SITES, "--out", out, "--limit", "1", "--ports", "1")
    assert p.returncode != 0
    assert f"--out {out}: exists and is not a previous output of make-pool" in one_line(p)
    assert tree(out) == before
    assert is_pool(POOL) or not POOL.exists()


def test_filter_rows_never_replaces_a_foreign_metrics_file(tmp_path: Path) -> None:
    """filter-rows overwrote any file named like one of its metrics in --metrics."""
    raw = tmp_path / "raw"
    make_version(tmp_path / "first", CHAINS[:1], SIZE)
    shutil.copytree(tmp_path / "first" / "raw", raw)
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    (metrics / "by_site.json").write_text("[1, 2]\n")
    p = plandvc(
        "filter-rows", "--raw", raw, "--out", tmp_path / "rows", "--metrics", metrics, "--image-size", "any"
    )
    assert p.returncode == 1
    assert (
        f"--metrics {metrics / 'by_site.json'}: exists and is not a previous output of filter-rows"
        in one_line(p)
    )
    assert (metrics / "by_site.json").read_text() == "[1, 2]\n" and not (tmp_path / "rows").exists()
    (metrics / "by_site.json").unlink()
    for _ in range(2):  # its own metrics are replaced
        p = plandvc(
            "filter-rows",
            "--raw",
            raw,
            "--out",
            tmp_path / "rows",
            "--metrics",
            metrics,
            "--image-size",
            "any",
        )
        assert p.returncode == 0, p.stderr


def test_outputs_are_recognised_by_their_own_index_with_no_marker(rows: Path, tmp_path: Path) -> None:
    """A DVC-pulled subset of an export (one format folder) is still the export's own; a folder holding a
    stranger's file beside it is not. Nothing beside the outputs is left (the lock file goes)."""
    from plandvc.export.run import is_export
    from plandvc.view.write import is_view

    out = tmp_path / "exp"
    assert plandvc(*export_args(rows, out, "--formats", "hf")).returncode == 0
    assert is_export(out)
    for name in ("README.md", "llamafactory", "openai", "wds"):
        shutil.rmtree(out / name) if (out / name).is_dir() else (out / name).unlink()
    assert is_export(out)  # only hf/ pulled
    (out / "notes.txt").write_text("mine\n")
    assert not is_export(out)
    (out / "notes.txt").unlink()
    (out / "hf" / "README.md").write_text("my own card\n")
    assert not is_export(out)
    view = tmp_path / "view"
    assert plandvc("view", "--dataset", rows, "--out", view).returncode == 0
    assert is_view(view)
    (view / "view.json").write_text('{"mine": 1}\n')
    assert not is_view(view)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp", "rows", "view"]


def test_the_committed_outputs_are_recognised_as_their_commands_own() -> None:
    """The checkout's metrics/*.json and data/pool were written by earlier plandvc versions, with no marker:
    each is recognised by its own content, so `dvc repro` replaces them."""
    from plandvc import io
    from plandvc.eval.run import is_eval_metrics
    from plandvc.export.run import _is_export_metrics
    from plandvc.pool.recorder import is_pool
    from plandvc.rows.cli import _is_metric
    from plandvc.rows.dataset import METRIC_FILES

    metrics = ROOT / "metrics"
    assert is_eval_metrics(io.read_json(metrics / "eval.json"))
    assert _is_export_metrics(io.read_json(metrics / "export.json"))
    assert all(_is_metric(n)(io.read_json(metrics / n)) for n in METRIC_FILES)
    assert not _is_metric("filter.json")(io.read_json(metrics / "by_site.json"))
    assert is_pool(POOL)


def test_a_second_evaluation_to_one_out_says_another_is_writing(tmp_path: Path) -> None:
    """Two evaluations to one OUT deleted each other's build folder; the second now stops in one line."""
    specs = tmp_path / "specs"
    specs.mkdir()
    out = tmp_path / "run"
    with open(tmp_path / ".run.lock", "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # what a running evaluation holds
        p = plandvc("eval-planner", "--specs", specs, "--pool", POOL, "--sites", SITES, "--out", out,
                    "--metrics", tmp_path / "eval.json")  # fmt: skip
    assert p.returncode == 1
    assert f"another eval-planner is writing {out}" in one_line(p)
    assert not out.exists() and not (tmp_path / "eval.json").exists()


def test_dvcs_gitignore_beside_the_export_is_no_stranger(rows: Path, tmp_path: Path) -> None:
    """`dvc repro export` finds data/exports/<v>/ holding only DVC's .gitignore (the format folders are
    its outputs): that folder is the export's to write, twice."""
    out = tmp_path / "exp"
    out.mkdir()
    (out / ".gitignore").write_text("/hf\n/llamafactory\n/openai\n/wds\n/README.md\n")
    for _ in range(2):
        p = plandvc(*export_args(rows, out, "--formats", "openai"))
        assert p.returncode == 0, p.stderr
    assert (out / ".gitignore").read_text().startswith("/hf\n")
