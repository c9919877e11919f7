"""The parts of the docs that are made from the code, so they cannot drift from it.

- docs/COMMANDS.md's command table is written from each command's own `--help` (its first line and its `Example:`
  block): `python -m plandvc.docs` rewrites the table between its two markers; a test fails when the doc
  differs from what this would write.
- `cited_sections` finds every place that cites a doc section by name (a doc's path, then the section's name in
  double quotes: docs/POOL.md, "Layout") and `headings` lists a doc's sections, so a test fails when a citation
  names a section that does not exist.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from plandvc.cli import cli

ROOT = Path(__file__).resolve().parents[1]
TABLE_DOC = ROOT / "docs" / "COMMANDS.md"  # the doc that holds the command table
BEGIN = "<!-- commands: written by `python -m plandvc.docs` from each command's --help; do not edit -->"
END = "<!-- end of commands -->"
# a doc's path, then (after a comma, a backquote or an opening parenthesis) the section's name in double quotes
CITATION = re.compile(r'(docs/[A-Za-z_]+\.md)`?,? *\(?"([^"]+)"')


def _help_parts(command: click.Command) -> tuple[str, list[str]]:
    """A command's first help line and the command lines of its `Example:` block (a line ending in `\\` goes on
    on the next)."""
    text = command.help or ""
    first = text.strip().splitlines()[0].strip() if text.strip() else ""
    examples: list[str] = []
    going_on = False
    for line in text.partition("Example:")[2].strip().splitlines():
        line = line.strip()
        if not line:
            continue
        if going_on:
            examples[-1] += " " + line.rstrip("\\").strip()
        else:
            examples.append(line.rstrip("\\").strip())
        going_on = line.endswith("\\")
    return first, examples


def commands_table() -> str:
    """The command table (docs/COMMANDS.md): one row per command, from its --help."""
    ctx = click.Context(cli)
    rows = ["| command | what it does | example |", "|---|---|---|"]
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        if command is None:
            raise RuntimeError(f"plandvc {name}: the command cannot be loaded")
        first, examples = _help_parts(command)
        said = first.replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")  # text, not markup
        shown = "<br>".join(f"`{e}`" for e in examples)
        rows.append(f"| `{name}` | {said} | {shown} |")
    return "\n".join(rows)


def with_table(readme: str) -> str:
    """A doc's text (docs/COMMANDS.md's) with the command table between the markers rewritten."""
    head, sep, rest = readme.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise RuntimeError(f"{TABLE_DOC.name} has no command table markers ({BEGIN} ... {END})")
    return f"{head}{BEGIN}\n{commands_table()}\n{END}{tail}"


def headings(doc: Path) -> set[str]:
    """A markdown file's section names: each heading's text, and its text before a ` (` (`Pool` for
    `## Pool (plandvc.pool, data/pool/)`)."""
    out: set[str] = set()
    for line in doc.read_text(encoding="utf-8").splitlines():
        if m := re.match(r"#{1,6} +(.+?) *$", line):
            out |= {m[1], m[1].split(" (")[0].strip(), m[1].split(": ")[0].strip()}
    return out


def cited_sections(root: Path = ROOT) -> list[tuple[str, str, str]]:
    """Every (where, doc, section) cited by name in the code, the tests and the docs."""
    files = [*root.glob("plandvc/**/*.py"), *root.glob("tests/*.py"), *root.glob("bench/*.py")]
    files += [*root.glob("docs/*.md"), root / "README.md", root / "CONTRIBUTING.md"]
    out = []
    for f in sorted(p for p in files if p.is_file()):
        text = " ".join(f.read_text(encoding="utf-8").split())  # a citation may break across lines
        out += [(f.relative_to(root).as_posix(), m[1], m[2]) for m in CITATION.finditer(text)]
    return out


def missing_sections(root: Path = ROOT) -> list[str]:
    """One line per citation of a section its doc does not have."""
    bad = []
    for where, doc, section in cited_sections(root):
        path = root / doc
        if not path.is_file():
            bad.append(f"{where}: cites {doc}, which does not exist")
        elif section not in headings(path):
            bad.append(f"{where}: cites {doc}, {section!r}, which has no such section")
    return bad


def main() -> None:
    """Rewrite docs/COMMANDS.md's command table from the commands' --help."""
    TABLE_DOC.write_text(with_table(TABLE_DOC.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"{TABLE_DOC.name}: command table written", file=sys.stderr)


if __name__ == "__main__":
    main()
