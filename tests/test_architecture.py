"""docs/ARCHITECTURE.md stays true of the code: a row for every package and top-level module, the macro count
the registry has, the command count `COMMANDS` has and every command module that is not a package's `cli.py`
named where the doc says where commands live. (The layer order is tests/test_layers.py's.)"""

from __future__ import annotations

import re
from pathlib import Path

from plandvc.cli import COMMANDS
from plandvc.macros import REGISTRY as MACROS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ARCHITECTURE.md"


def rooms(pkg: Path) -> set[str]:
    """The package's folders and top-level modules as the doc's table names them (`plandvc/x/`, `plandvc/y.py`)."""
    out = {f"plandvc/{p.name}/" for p in pkg.iterdir() if (p / "__init__.py").is_file()}
    return out | {
        f"plandvc/{p.name}" for p in pkg.glob("*.py") if p.name not in ("__init__.py", "__main__.py")
    }


def problems(doc: str, pkg: Path) -> list[str]:
    """What `doc` says that the code under `pkg` contradicts, one line each."""
    out = []
    firsts = re.findall(r"^\| (`plandvc/[^|]+)\|", doc, re.M)  # a row's first cell: one name or a few
    rows = {name for cell in firsts for name in re.findall(r"`(plandvc/[^`]+)`", cell)}
    out += [f"no row for {r}" for r in sorted(rooms(pkg) - rows)]
    out += [f"a row for {r}, which does not exist" for r in sorted(rows - rooms(pkg))]
    said = re.search(r"\.\.\. (\d+) in all\)", doc)
    if said is None or int(said[1]) != len(MACROS):
        out.append(f"macros: the doc says {said and said[1]}, the registry has {len(MACROS)}")
    cli_row = next((line for line in doc.splitlines() if line.startswith("| `plandvc/cli.py` |")), "")
    commands = re.search(r"`COMMANDS`: (\d+) commands", cli_row)
    if commands is None or int(commands[1]) != len(COMMANDS):
        out.append(f"commands: the doc says {commands and commands[1]}, COMMANDS has {len(COMMANDS)}")
    for name, target in sorted(COMMANDS.items()):
        module = target.split(":")[0]
        path = module.replace(".", "/") + ".py"
        if not module.endswith(".cli") and f"`{path}`" not in cli_row:
            out.append(f"command {name}: {path} is not named in the cli.py row")
    return out


def test_the_architecture_doc_matches_the_code() -> None:
    assert problems(DOC.read_text(encoding="utf-8"), ROOT / "plandvc") == []


def test_a_drifted_doc_is_caught() -> None:
    doc = DOC.read_text(encoding="utf-8")
    drifted = (
        doc.replace(f"... {len(MACROS)} in all)", "... 14 in all)")
        .replace(f"`COMMANDS`: {len(COMMANDS)} commands", "`COMMANDS`: 13 commands")
        .replace("push and pull in `plandvc/remote.py`", "push and pull")
        .replace("| `plandvc/ports.py`, `plandvc/urls.py` |", "| `plandvc/ports.py`, `plandvc/links.py` |")
    )
    assert problems(drifted, ROOT / "plandvc") == [
        "no row for plandvc/urls.py",
        "a row for plandvc/links.py, which does not exist",
        f"macros: the doc says 14, the registry has {len(MACROS)}",
        f"commands: the doc says 13, COMMANDS has {len(COMMANDS)}",
        "command pull: plandvc/remote.py is not named in the cli.py row",
        "command push: plandvc/remote.py is not named in the cli.py row",
    ]
