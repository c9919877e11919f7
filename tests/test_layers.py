"""The import order docs/ARCHITECTURE.md states is the real one: a package imports only itself, the shared
leaves, and the packages upstream of it (sites → browser → world → pool → replay → contract → chains → agent → run → rows → export
→ view)."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "plandvc"
LEAVES = (
    "io",
    "macros",
    "ports",
    "urls",
    "records",
    "checks",
)  # anything may import these; they import only each other
ORDER = (
    "sites",
    "memory",
    "browser",
    "world",
    "pool",
    "replay",
    "contract",
    "chains",
    "agent",
    "run",
    "rows",
    "export",
    "view",
    "eval",
    "cli",
    "__main__",
)


def unit(module: str) -> str:
    """The package or top-level module a dotted `plandvc.` name belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "plandvc"


def imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("plandvc"):
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("plandvc")}
    return out


def upward_imports(pkg: Path = PKG) -> list[str]:
    """One line per import that goes downstream (or to a unit ORDER does not name)."""
    rank = {u: i for i, u in enumerate(ORDER)} | {leaf: -1 for leaf in LEAVES}
    bad = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg.parent)
        me = rel.with_suffix("").parts[1]
        if me == "__init__":
            continue
        for module in sorted(imports(path)):
            them = unit(module)
            if them == me or them == "plandvc":
                continue
            if them not in rank or me not in rank:
                bad.append(f"{rel}: {module} (a unit the layer list does not name)")
            elif rank[them] > rank[me]:
                bad.append(f"{rel} imports {module}, which is downstream of it")
    return bad


def test_every_import_goes_upstream() -> None:
    assert upward_imports() == []


def test_an_upward_import_is_caught(tmp_path: Path) -> None:
    """The check fails when a module imports downstream: a copy of the package with pool importing run."""
    import shutil

    copy = tmp_path / "plandvc"
    shutil.copytree(PKG, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "pool" / "upward.py").write_text("from plandvc.run.runner import run_chains\n")
    assert upward_imports(copy) == [
        "plandvc/pool/upward.py imports plandvc.run.runner, which is downstream of it"
    ]
