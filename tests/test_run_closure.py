"""run-chains depends on exactly the code that shapes a chain's output (`plandvc.run.closure.RUN_CODE`).

The list is checked against the real import closure of the run (every import statement, also inside
functions, and every `python -m plandvc...` the run starts), against what Python really loads, and against
dvc.yaml; then an edit outside the list changes neither the cache fingerprint nor DVC's view of the stage,
and an edit inside changes both.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from plandvc.pool.code import POOL_CODE
from plandvc.run.closure import EVAL_CODE, RUN_CODE, run_files
from plandvc.run.fingerprint import chain_fingerprint, code_hash

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ENTRY = "plandvc.run.cli"  # what `plandvc run-chains` imports


def module_file(root: Path, name: str) -> Path | None:
    p = root.joinpath(*name.split("."))
    if (p / "__init__.py").is_file():
        return p / "__init__.py"
    return p.with_suffix(".py") if p.with_suffix(".py").is_file() else None


def import_closure(root: Path, entry: str = ENTRY) -> set[str]:
    """Every plandvc module reachable from `entry` through import statements anywhere in a module (also inside
    functions), `from a import b` where b is a module, the packages that hold them, and module names written
    as strings (a subprocess `-m plandvc...` or an importlib target)."""
    seen: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        path = module_file(root, name)
        if name in seen or path is None:
            continue
        seen.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:k]) for k in range(1, len(parts))]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                todo += [a.name for a in node.names if a.name.split(".")[0] == "plandvc"]
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "plandvc":
                todo += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value.startswith("plandvc.")
                and module_file(root, node.value.split(":")[0])
            ):
                todo.append(node.value.split(":")[0])
    return seen


def closure_files(root: Path, modules: set[str]) -> set[str]:
    """The modules' files, and the data files (not Python) of every package that holds one of them: files in
    the package folder and in its folders that are not packages themselves."""
    out = {module_file(root, m).relative_to(root).as_posix() for m in modules}  # type: ignore[union-attr]
    packages = {m for m in modules if module_file(root, m).name == "__init__.py"}  # type: ignore[union-attr]
    for pkg in packages:
        folder = root.joinpath(*pkg.split("."))
        stack = [folder]
        while stack:
            d = stack.pop()
            for f in d.iterdir():
                if f.is_dir() and f.name != "__pycache__" and not (f / "__init__.py").exists():
                    stack.append(f)
                elif f.is_file() and f.suffix != ".py" and f.suffix != ".pyc":
                    out.add(f.relative_to(root).as_posix())
    return out


def listed(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in run_files(root)}


def test_run_code_is_the_import_closure_of_the_run() -> None:
    modules = import_closure(ROOT)
    assert "plandvc.sites.server" in modules  # started as `python -m plandvc.sites.server`
    assert "plandvc.rows" not in modules and "plandvc.chains.walk" not in modules
    want, have = closure_files(ROOT, modules), listed(ROOT)
    assert have == want, (
        f"missing from RUN_CODE: {sorted(want - have)}; not imported by the run: {sorted(have - want)}"
    )
    assert list(RUN_CODE) == sorted(RUN_CODE)


def test_python_loads_nothing_outside_the_closure() -> None:
    """What the interpreter really imports for the run (its modules and its lazy imports) is in the closure."""
    code = (
        "import sys, json, plandvc.run.cli, plandvc.run.runner, plandvc.sites.server, plandvc.browser, "
        "plandvc.memory, plandvc.pool.prep, plandvc.sites.spec\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'plandvc')))"
    )
    loaded = set(
        json.loads(
            subprocess.run(
                [sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT
            ).stdout
        )
    )
    assert loaded and loaded <= import_closure(ROOT), sorted(loaded - import_closure(ROOT))


def test_the_closure_check_fails_on_a_new_import(tmp_path: Path) -> None:
    """A module of the run that starts importing plandvc.rows makes the closure differ from RUN_CODE."""
    root = copy_package(tmp_path)
    chain = root / "plandvc" / "run" / "chain.py"
    chain.write_text(
        chain.read_text() + "\n\ndef _later() -> None:\n    from plandvc.rows import png  # noqa\n"
    )
    assert "plandvc.rows.png" in import_closure(root)
    assert closure_files(root, import_closure(root)) != listed(root)


def test_dvc_yaml_run_chains_deps_are_run_code() -> None:
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["run_chains"]
    code = [d for d in stage["deps"] if d.startswith("plandvc")]
    assert code == list(RUN_CODE)


def covers(root: Path, entries: tuple[str, ...], entry_module: str) -> list[str]:
    """What is wrong with `entries` as the code of a stage whose CLI is `entry_module`: files of its import
    closure they miss, and entries naming no file of it (empty: they cover the closure and name nothing more)."""
    want = closure_files(root, import_closure(root, entry_module))
    have = {p.relative_to(root).as_posix() for p in run_files(root, entries)}
    idle = [e for e in entries if not any(f == e or f.startswith(e + "/") for f in want)]
    return [f"missing: {f}" for f in sorted(want - have)] + [f"not imported: {e}" for e in idle]


def test_eval_code_covers_the_evaluation_and_nothing_it_does_not_import() -> None:
    assert covers(ROOT, EVAL_CODE, "plandvc.eval.cli") == []
    assert list(EVAL_CODE) == sorted(EVAL_CODE)
    have = {p.relative_to(ROOT).as_posix() for p in run_files(ROOT, EVAL_CODE)}
    assert "plandvc/eval/llm.py" not in have and "plandvc/export/run.py" not in have


def test_the_eval_check_fails_on_a_new_import_and_on_an_idle_entry(tmp_path: Path) -> None:
    root = copy_package(tmp_path)
    run = root / "plandvc" / "eval" / "run.py"
    run.write_text(
        run.read_text() + "\n\ndef _later() -> None:\n    from plandvc.export import card  # noqa\n"
    )
    assert "missing: plandvc/export/card.py" in covers(root, EVAL_CODE, "plandvc.eval.cli")
    assert covers(ROOT, (*EVAL_CODE, "plandvc/view"), "plandvc.eval.cli") == ["not imported: plandvc/view"]


def test_dvc_yaml_eval_deps_are_eval_code() -> None:
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    for name in (
        "eval_specs",
        "eval_planner",
        "eval_reference",
        "eval_specs_training",
        "eval_reference_training",
    ):
        stage = stages[name]
        assert [d for d in stage["deps"] if d.startswith("plandvc")] == list(EVAL_CODE), name


def test_the_app_stages_code_covers_their_commands() -> None:
    """apps/dvc.yaml's stages (record_apps; held_apps, eval_apps) list exactly their commands' import closure."""
    from plandvc.apps.code import RECORD_CODE
    from plandvc.eval.apps_code import HELD_CODE

    assert covers(ROOT, RECORD_CODE, "plandvc.apps.cli") == []
    assert covers(ROOT, HELD_CODE, "plandvc.eval.apps_cli") == []
    assert list(RECORD_CODE) == sorted(RECORD_CODE) and list(HELD_CODE) == sorted(HELD_CODE)
    stages = yaml.safe_load((ROOT / "apps" / "dvc.yaml").read_text())["stages"]
    for name, code in (("record_apps", RECORD_CODE), ("held_apps", HELD_CODE), ("eval_apps", HELD_CODE)):
        assert [d for d in stages[name]["do"]["deps"] if d.startswith("plandvc")] == list(code), name
    # the record stage's list misses what eval-apps imports: the check tells them apart
    assert "missing: plandvc/eval/apps.py" in covers(ROOT, RECORD_CODE, "plandvc.eval.apps_cli")


# ── editing outside the list reruns nothing; editing inside reruns both ──────


def copy_package(tmp: Path) -> Path:
    root = tmp / "repo"
    shutil.copytree(ROOT / "plandvc", root / "plandvc", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def touch(path: Path) -> None:
    """A real edit: one more line of code at the end."""
    with path.open("a", encoding="utf-8") as f:
        f.write("\n# edited by the test\n" if path.suffix == ".py" else "\n<!-- edited by the test -->\n")


OUTSIDE = (
    "plandvc/rows/dataset.py",
    "plandvc/chains/cli.py",
    "plandvc/chains/walk.py",
    "plandvc/cli.py",
    "plandvc/pool/recorder.py",
    "plandvc/sites/cli.py",
)
INSIDE = (
    "plandvc/run/chain.py",
    "plandvc/replay.py",
    "plandvc/agent/prompts.py",
    "plandvc/sites/templates/list.html",
    "plandvc/browser/snapshot.js",
    "plandvc/macros/home.py",
)


def fingerprint(root: Path) -> str:
    chain = {"key": "plan-shop-0123456789", "site": "shop", "parts": [{"id": "a", "via": None}]}
    return chain_fingerprint(
        chain, "parts-hash", {"params": {}, "code": code_hash(root), "sites": "s", "env": {}}
    )


def test_code_hash_both_ways(tmp_path: Path) -> None:
    root = copy_package(tmp_path)
    assert code_hash(root) == code_hash(ROOT) == code_hash()
    before = fingerprint(root)
    for rel in OUTSIDE:
        touch(root / rel)
        assert fingerprint(root) == before, f"editing {rel} changed the chain fingerprint"
    for rel in INSIDE:
        last = fingerprint(root)
        touch(root / rel)
        assert fingerprint(root) != last, f"editing {rel} did not change the chain fingerprint"
    last = fingerprint(root)
    (root / "plandvc" / "run" / "export.py").write_text('"""a new module of the run package."""\n')
    assert fingerprint(root) != last  # a folder of RUN_CODE stands for every file in it


def dvc(repo: Path, *args: str) -> str:
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "DVC_NO_ANALYTICS": "1"}
    p = subprocess.run(
        [str(BIN / "dvc"), *args], cwd=repo, capture_output=True, text=True, env=env, timeout=300
    )
    assert p.returncode == 0, f"dvc {' '.join(args)}: {p.stdout}\n{p.stderr}"
    return p.stdout


@pytest.fixture
def dvc_repo(tmp_path: Path) -> Path:
    """A copy of the project's pipeline whose run_chains stage DVC has recorded (dvc commit, nothing run)."""
    repo = copy_package(tmp_path)
    for name in ("dvc.yaml", "params.yaml", "Dockerfile", "requirements/requirements.lock"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, repo / name)
    shutil.copytree(ROOT / "data" / "sites", repo / "data" / "world")  # any sites folder stands for the world
    (repo / "data" / "world-pool").mkdir(parents=True)
    (repo / "data" / "world-pool" / "kept.jsonl").write_text("")
    (repo / "data" / "chains.jsonl").write_text("{}\n")
    (repo / "data" / "raw").mkdir()
    (repo / "data" / "raw" / "results.jsonl").write_text("{}\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    dvc(repo, "init", "-q")
    dvc(repo, "commit", "-f", "-q", "run_chains")
    assert "up to date" in dvc(repo, "status", "run_chains")
    return repo


def test_dvc_reruns_run_chains_only_for_an_edit_inside(dvc_repo: Path) -> None:
    for rel in OUTSIDE:
        touch(dvc_repo / rel)
    out = dvc(dvc_repo, "status", "run_chains")
    assert "up to date" in out, out
    touch(dvc_repo / "plandvc" / "run" / "script.py")
    out = dvc(dvc_repo, "status", "run_chains")
    assert "changed deps" in out and "plandvc/run" in out, out


def test_pool_code_is_the_import_closure_of_make_pool_and_the_stage_deps() -> None:
    """make_pool's code deps (and a resumed recording's key) are exactly what `plandvc make-pool` imports."""
    assert covers(ROOT, POOL_CODE, "plandvc.pool.cli") == []
    assert list(POOL_CODE) == sorted(POOL_CODE)
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["make_pool"]
    assert [d for d in stage["deps"] if d.startswith("plandvc")] == list(POOL_CODE)
    assert covers(ROOT, (*POOL_CODE, "plandvc/agent"), "plandvc.pool.cli") == ["not imported: plandvc/agent"]
