"""An application is one package of one shape that registers its `APP` by keyword, and the registry is one line
per package; an app's macros are registered where their functions are defined and drawn in one shared order
(`plandvc.apps.script.DRAW_ORDER`), and a half or wrong registration is refused."""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from plandvc.apps import REGISTRY
from plandvc.apps.script import DRAW_ORDER, AppExecutor, Draft, Macros
from plandvc.macros import REGISTRY as MACROS

APPS = Path(__file__).resolve().parents[1] / "plandvc" / "apps"
SHAPE = {"__init__.py", "adapter.py", "facts.py", "goals.py", "tasks.py"}
# how `APP` is made: `App(...)` with keywords only, or `app_of(adapter, facts, tasks, ...)` (the package's own
# three modules, then keywords)
BUILDERS = {"App": [], "app_of": ["adapter", "facts", "tasks"]}


def app_packages(root: Path) -> list[str]:
    """The application packages under `root`: the folders with an `__init__.py`."""
    return sorted(p.parent.name for p in root.glob("*/__init__.py"))


def shape_problems(root: Path) -> list[str]:
    """Each app package whose modules are not `SHAPE`, or whose `__init__.py` does not assign `APP = App(...)`
    by keywords alone."""
    out = []
    for name in app_packages(root):
        pkg = root / name
        if (mods := {p.name for p in pkg.glob("*.py")}) != SHAPE:
            out.append(f"{name}: modules {sorted(mods)}, not {sorted(SHAPE)}")
        calls = [
            n.value
            for n in ast.walk(ast.parse((pkg / "__init__.py").read_text()))
            if isinstance(n, ast.Assign) and [ast.unparse(t) for t in n.targets] == ["APP"]
        ]
        if (
            len(calls) != 1
            or not isinstance(call := calls[0], ast.Call)
            or ast.unparse(call.func) not in BUILDERS
        ):
            out.append(f"{name}: no `APP = App(...)` in __init__.py")
        elif [ast.unparse(a) for a in call.args] != BUILDERS[ast.unparse(call.func)]:
            out.append(f"{name}: App(...) takes {len(call.args)} positional arguments")
    return out


def test_every_app_is_a_package_of_one_shape_in_the_registry() -> None:
    assert app_packages(APPS) == sorted(REGISTRY) == ["mediawiki", "oscar", "trac"]
    assert shape_problems(APPS) == []
    for name, app in REGISTRY.items():
        assert app.name == name


def test_the_shape_check_names_a_package_off_shape(tmp_path: Path) -> None:
    good = tmp_path / "good"
    good.mkdir()
    for m in SHAPE:
        (good / m).write_text("APP = App(name='good')\n" if m == "__init__.py" else "")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "__init__.py").write_text("APP = App('bad', 'Bad')\n")
    (bad / "bad_tasks.py").write_text("")
    assert shape_problems(tmp_path) == [
        "bad: modules ['__init__.py', 'bad_tasks.py'], not ['__init__.py', 'adapter.py', 'facts.py', 'goals.py', 'tasks.py']",
        "bad: App(...) takes 2 positional arguments",
    ]


def test_app_macros_are_registry_macros_in_the_draw_order() -> None:
    assert set(DRAW_ORDER) <= set(MACROS)
    for app in REGISTRY.values():
        assert list(app.macros) == [m for m in DRAW_ORDER if m in app.macros]
        for m in app.macros:
            assert app.solution(m).__name__.endswith("_solve")


def _draw(o: int, rng: random.Random) -> Iterator[Draft]:
    yield f"task {o}", {"kind": "answer", "expected": str(o)}, {}, [], "/"


async def _solve(run: AppExecutor) -> None:
    run.rec.done = "done"


def test_macros_refuse_a_half_twice_or_unknown_registration() -> None:
    m: Macros[int] = Macros("toy")
    m.draws("go_to_page")(_draw)
    m.solves("go_to_page")(_solve)
    m.draws("open_entry")(_draw)
    with pytest.raises(ValueError, match="without both a generator and a solution: open_entry"):
        m.names()
    m.solves("open_entry")(_solve)
    assert m.names() == ("go_to_page", "open_entry")
    assert [t["task_id"] for t in m.tasks(7, seed=0, per_macro=1)] == [
        "toy-go_to_page-0000",
        "toy-open_entry-0000",
    ]
    with pytest.raises(ValueError, match="'open_entry' is registered twice"):
        m.solves("open_entry")(_solve)
    with pytest.raises(ValueError, match="'copy_value' is not an app macro"):
        m.draws("copy_value")(_draw)
