"""A macro is one module: no module outside `plandvc/macros/` and the applications' task tables names a macro
by a string to know a fact of it (the facts are `Macro`'s fields, read from `plandvc.macros.REGISTRY`).

The modules that still name macros (the composer's entry words, the phrasing registry, the goal kinds' words,
the template planner, the scripted runs) are counted in `LEFT`: a count may only fall. A new string naming a
macro anywhere else fails here; the test below plants one to show it."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from plandvc.macros import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "plandvc"

# where a macro's name belongs: its own module (and the registry), and each application's table of its tasks
HOMES = ("plandvc/macros/",)
APP_TASK_TABLES = "plandvc/apps/*/tasks.py"

# the strings naming a macro still left outside its module, per file (each may only fall; 0 once gone)
LEFT: dict[str, int] = {
    "plandvc/apps/mediawiki/facts.py": 11,
    "plandvc/apps/oscar/facts.py": 19,
    "plandvc/apps/trac/facts.py": 16,
    "plandvc/bench/chains.py": 22,
    "plandvc/chains/compose.py": 46,
    "plandvc/chains/goal_kinds.py": 2,
    "plandvc/chains/goal_words.py": 4,
    "plandvc/chains/goals.py": 2,
    "plandvc/chains/hygiene.py": 3,
    "plandvc/chains/phrasing.py": 9,
    "plandvc/chains/structure.py": 2,
    "plandvc/eval/apps.py": 1,
    "plandvc/eval/score.py": 10,
    "plandvc/eval/template.py": 24,
    "plandvc/run/plan.py": 1,
    "plandvc/run/corrective.py": 1,
    "plandvc/run/script.py": 3,
    "plandvc/view/build.py": 1,
}


def macro_names_in(source: str) -> int:
    """How many string constants in `source` are exactly a registered macro's name."""
    return sum(
        1 for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Constant) and node.value in REGISTRY
    )


def named_outside(root: Path = ROOT) -> Counter[str]:
    """Per module of the package outside the macros' homes and the apps' task tables: its macro-name strings."""
    out: Counter[str] = Counter()
    for path in sorted((root / "plandvc").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(HOMES) or Path(rel).match(APP_TASK_TABLES):
            continue
        n = macro_names_in(path.read_text(encoding="utf-8"))
        if n:
            out[rel] = n
    return out


def over(found: Counter[str]) -> dict[str, tuple[int, int]]:
    """The modules naming more macros than `LEFT` allows them: module -> (found, allowed)."""
    return {rel: (n, LEFT.get(rel, 0)) for rel, n in found.items() if n > LEFT.get(rel, 0)}


def test_no_new_macro_name_outside_the_macros() -> None:
    assert over(named_outside()) == {}


def test_a_planted_macro_name_fails(tmp_path: Path) -> None:
    """A module that names a macro to know a fact of it (as `LIST_MACROS` did) is caught, in a fresh module and
    in one of those `LEFT` counts."""
    planted = tmp_path / "plandvc" / "chains"
    planted.mkdir(parents=True)
    (planted / "new_rule.py").write_text('NARROWS = frozenset({"filter_by_slider"})\n', encoding="utf-8")
    compose = (PACKAGE / "chains" / "compose.py").read_text(encoding="utf-8")
    (planted / "compose.py").write_text(compose + '\nSORTS = "sort_by_form"\n', encoding="utf-8")
    assert over(named_outside(tmp_path)) == {
        "plandvc/chains/new_rule.py": (1, 0),
        "plandvc/chains/compose.py": (
            LEFT["plandvc/chains/compose.py"] + 1,
            LEFT["plandvc/chains/compose.py"],
        ),
    }


def test_the_homes_are_read() -> None:
    """The macros' own modules and the apps' task tables do name macros (the scan reads the right files)."""
    tables = [p for p in PACKAGE.glob("apps/*/tasks.py")]
    assert tables and all(macro_names_in(p.read_text(encoding="utf-8")) for p in tables)
    assert macro_names_in((PACKAGE / "macros" / "open_entry.py").read_text(encoding="utf-8"))
