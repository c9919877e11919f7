"""The docs that are made from the code cannot drift: docs/COMMANDS.md's command table is what each command's --help
says, and every doc section the code or the docs cite by name exists (`plandvc.docs`)."""

from __future__ import annotations

import html
import shutil
from pathlib import Path

from click.testing import CliRunner

from plandvc.cli import cli
from plandvc.docs import BEGIN, END, ROOT, TABLE_DOC, commands_table, missing_sections, with_table


def test_the_readme_command_table_is_the_help_of_every_command() -> None:
    readme = TABLE_DOC.read_text(encoding="utf-8")
    assert with_table(readme) == readme, (
        "docs/COMMANDS.md's command table is stale: run `python -m plandvc.docs`"
    )


def test_the_table_follows_each_commands_help() -> None:
    """Every command has a row, and the row holds its --help's first line and its example."""
    table = commands_table()
    for name in cli.list_commands(None):  # type: ignore[arg-type]
        out = CliRunner().invoke(cli, [name, "--help"]).output
        first = "".join(out.split("\n\n")[1].split())  # the first paragraph, without click's wrapping
        example = out.split("Example:")[1].strip().splitlines()[0].strip().rstrip("\\").strip()
        row = next(line for line in table.splitlines() if line.startswith(f"| `{name}` |"))
        said = "".join(html.unescape(row.split(" | ")[1]).replace("\\|", "|").split())
        assert first.startswith(said) and example in row, (name, said, first)


def test_a_stale_readme_is_caught() -> None:
    readme = TABLE_DOC.read_text(encoding="utf-8")
    head, _, rest = readme.partition(BEGIN)
    table, _, tail = rest.partition(END)
    stale = f"{head}{BEGIN}{table.replace('check-pool', 'check-the-pool', 1)}{END}{tail}"
    assert stale != readme and with_table(stale) != stale


def test_every_cited_doc_section_exists() -> None:
    assert missing_sections() == []


def test_a_citation_of_a_missing_section_is_caught(tmp_path: Path) -> None:
    for name in ("docs", "plandvc"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("README.md", "CONTRIBUTING.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    assert missing_sections(tmp_path) == []
    nowhere = "docs/" + "NOWHERE.md"  # not written whole, or this file would cite it
    (tmp_path / "plandvc" / "cites.py").write_text(
        f'"""The pool\'s layout (docs/POOL.md,\n"No such section") and ({nowhere}, "Layout")."""\n'
    )
    assert missing_sections(tmp_path) == [
        "plandvc/cites.py: cites docs/POOL.md, 'No such section', which has no such section",
        "plandvc/cites.py: cites docs/NOWHERE.md, which does not exist",
    ]
