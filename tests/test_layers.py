"""The import order is the real one: a package imports only itself, the shared leaves, and the units before it
in ORDER. ORDER and LEAVES are the one statement of the layers; docs/ARCHITECTURE.md shows them, checked here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "plandvc"
LEAVES = (
    "errors",
    "io",
    "ports",
    "urls",
    "records",
    "checks",
    "options",
)  # anything may import these; they import only each other
ORDER = (
    "sites",
    "memory",
    "browser",
    "world",
    "macros",
    "pool",
    "replay",
    "contract",
    "chains",
    "apps",
    "agent",
    "run",
    "rows",
    "export",
    "view",
    "eval",
    "bench",
    "remote",
    "cli",
    "docs",
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


def module_name(path: Path, pkg: Path) -> str:
    """`plandvc/run/engine.py` -> `plandvc.run.engine` (a package is its `__init__`)."""
    parts = path.relative_to(pkg.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(pkg: Path = PKG) -> dict[str, set[str]]:
    """Module -> the plandvc modules it imports (at the top, inside a function or for type checking alike):
    `from plandvc.run import runner` counts as `plandvc.run.runner`, `from plandvc.io import x` as
    `plandvc.io`; the package `plandvc` itself (its version) is no edge."""
    paths = {module_name(p, pkg): p for p in sorted(pkg.rglob("*.py"))}

    def known(name: str) -> str:
        while name not in paths:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        out = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("plandvc"):
                out |= {known(f"{node.module}.{a.name}") for a in node.names}
            elif isinstance(node, ast.Import):
                out |= {known(a.name) for a in node.names if a.name.startswith("plandvc")}
        graph[name] = out - {name, "plandvc"}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import each other, directly or round a loop (the strongly connected
    components of more than one module, or one importing itself), each sorted."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        order[v] = low[v] = len(order)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            group = stack[stack.index(v) :]
            del stack[stack.index(v) :]
            if len(group) > 1 or v in graph.get(v, ()):
                cycles.append(sorted(group))

    for v in sorted(graph):
        if v not in order:
            visit(v)
    return sorted(cycles)


def test_no_module_imports_itself_round_a_loop() -> None:
    assert import_cycles(import_graph()) == []


def test_an_import_cycle_is_caught(tmp_path: Path) -> None:
    """The check fails on a loop: a copy of the package whose engine interface imports the runner back."""
    import shutil

    copy = tmp_path / "plandvc"
    shutil.copytree(PKG, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "run" / "engine.py").open("a") as f:
        f.write("\n\ndef _late() -> None:\n    from plandvc.run import runner  # noqa: F401\n")
    cycles = import_cycles(import_graph(copy))
    assert len(cycles) == 1 and {"plandvc.run.engine", "plandvc.run.runner"} <= set(cycles[0]), cycles


def documented_layers(doc: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(order, leaves) as docs/ARCHITECTURE.md's "Layers" section states them: the arrow line of its code block
    and the backquoted names of its "Shared leaves" sentence."""
    section = doc.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    order = tuple(u.strip() for u in block.strip().split("→"))
    leaves_text = section.split("Shared leaves", 1)[1].split(".", 1)[0]
    return order, tuple(re.findall(r"`([a-z_]+)`", leaves_text))


def test_the_map_states_this_order() -> None:
    doc = (PKG.parent / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert documented_layers(doc) == (ORDER, LEAVES)


def test_a_map_that_drifts_is_caught() -> None:
    doc = (PKG.parent / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    swapped = doc.replace("chains → apps", "apps → chains", 1)
    assert swapped != doc and documented_layers(swapped)[0] != ORDER
    fewer = doc.replace("`checks`", "`chex`", 1)
    assert fewer != doc and documented_layers(fewer)[1] != LEAVES
