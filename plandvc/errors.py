"""plandvc's error model: an error a user can act on carries its exit code and the line that says it.

The command group (`plandvc.cli`) is the one place that prints that line and exits; library code raises and
command bodies catch nothing. The exit codes say what kind of end it was:

- 1 (`InputError`, `SetupError`): the input or this machine needs fixing (a bad file, key or value; a
  missing Chromium, a port taken). Running again unchanged gives the same error.
- 75 (`InfrastructureError`, EX_TEMPFAIL): the machinery failed and did not recover (a browser, a server, a
  Ray cluster gone); nothing was published, and running again may work.
- 130 / 143 (`Interrupted`, `Terminated`): stopped by SIGINT (Ctrl-C, `kill -INT`) or SIGTERM, the shell's
  128 + signal number.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import ClassVar

EXIT_INPUT = 1
EXIT_INFRA = 75  # EX_TEMPFAIL: try again
EXIT_SIGINT = 130
EXIT_SIGTERM = 143


class PlandvcError(Exception):
    """An error a user can act on: `line` is what the command prints, `exit_code` how it ends."""

    exit_code: ClassVar[int] = EXIT_INPUT

    def line(self, command: str) -> str:
        """The command's last line: `Error: <message>` (every problem of an input, one line each)."""
        return f"Error: {self}"


class InputError(PlandvcError):
    """Bad input: the message is one line that names the file, key or value."""


class SetupError(PlandvcError):
    """This machine cannot run the command as set up (no Chromium, a port taken): the message's first line
    says what to fix (what follows it, e.g. a browser's launch log, is for `--debug`)."""

    def line(self, command: str) -> str:
        lines = [ln for ln in str(self).splitlines() if ln.strip()]
        return f"Error: {lines[0] if lines else type(self).__name__}"


class InfrastructureError(PlandvcError):
    """The machinery failed and could not be recovered: nothing was published (one line)."""

    exit_code = EXIT_INFRA

    def line(self, command: str) -> str:
        return f"{command}: {self}"


class Stopped(PlandvcError):
    """Stopped by a signal before the end: the message says what was kept."""

    exit_code = EXIT_SIGINT

    def line(self, command: str) -> str:
        return f"{command}: {self}"


class Interrupted(Stopped):
    """Stopped by SIGINT (Ctrl-C, `kill -INT`)."""


class Terminated(Stopped):
    """Stopped by SIGTERM."""

    exit_code = EXIT_SIGTERM


def script_main(prog: str, body: Callable[[], int]) -> int:
    """The end of a `python -m` helper script (not a command, so not `plandvc.cli`'s): what `body` returns, or 2
    after the one line `<prog>: <message>` on stderr when it raises an InputError."""
    try:
        return body()
    except InputError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
