"""What a command's import costs: a command that neither asks a model server nor drives a browser does not
import openai or Playwright (about 1.5 CPU-s per `plandvc` subprocess together); the ones that do still get
them, and the packages' lazily exported names are the same objects as their modules'."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("openai", "playwright")

# the commands that run without a model server or a browser ...
CHEAP = ["chain-specs", "pool-items", "filter-rows", "eval-specs", "eval-table", "chain-structure", "view"]
# ... and the ones that use one of them, which import it only when they run
LATER = ["make-pool", "run-chains", "eval-planner", "eval-apps", "record-apps"]


def loaded_by(*imports: str, command: str | None = None, before: str = "") -> set[str]:
    """The heavy top-level packages a fresh interpreter holds after importing `imports`, running the code
    `before` and, when given, resolving the `plandvc` subcommand `command` (what `plandvc COMMAND` imports
    before it runs)."""
    code = "import sys, json\n" + "".join(f"import {m}\n" for m in imports) + before + "\n"
    if command:
        code += (
            f"import click\nfrom plandvc.cli import cli\ncli.get_command(click.Context(cli), {command!r})\n"
        )
    code += f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return set(json.loads(out.stdout))


@pytest.mark.parametrize("command", CHEAP + LATER)
def test_resolving_a_command_imports_neither(command: str) -> None:
    assert loaded_by(command=command) == set()


def test_the_run_and_a_model_client_still_load_what_they_use() -> None:
    """The check can fail: the modules that use Playwright and openai load them (so `loaded_by` sees them)."""
    assert loaded_by("plandvc.browser.session") == {"playwright"}
    assert loaded_by("plandvc.memory.model") == {"openai"}


def test_help_lists_every_command_without_either() -> None:
    """`plandvc --help` imports every command for its one-line help; none of them imports either at import
    time (a browser or a model client is imported when a command runs, e.g. make-pool's Chromium)."""
    code = ["import io, contextlib", "from plandvc.cli import cli"]
    code += [
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit): cli(['--help'])"
    ]
    assert loaded_by(before="\n".join(code)) == set()


def test_lazy_names_are_their_modules_objects() -> None:
    import plandvc.browser as browser
    import plandvc.memory as memory
    from plandvc.browser.chromium import Browser, chromium_path
    from plandvc.browser.session import Session
    from plandvc.memory.model import MemoryModel, MemoryUnavailable, connect_or_none

    assert (browser.Browser, browser.chromium_path, browser.Session) == (Browser, chromium_path, Session)
    assert (memory.MemoryModel, memory.MemoryUnavailable, memory.connect_or_none) == (
        MemoryModel,
        MemoryUnavailable,
        connect_or_none,
    )
    assert set(browser.__all__) <= set(dir(browser)) | {"Browser", "chromium_path", "Session"}
    with pytest.raises(AttributeError, match=r"'plandvc\.browser' has no attribute 'Brwoser'"):
        browser.Brwoser  # noqa: B018
    with pytest.raises(ImportError):
        from plandvc.memory import MemoryModle  # noqa: F401
