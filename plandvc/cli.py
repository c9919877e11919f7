"""The `plandvc` command: a click group whose subcommands live beside the library they drive.

Commands are imported lazily, so `plandvc --help` stays fast and a command only loads what it uses.
"""

from __future__ import annotations

import importlib
import traceback
from typing import Any

import click

# name -> "module:attribute" of the click command
COMMANDS = {
    "serve": "plandvc.sites.cli:serve",
    "make-pool": "plandvc.pool.cli:make_pool",
    "make-sites": "plandvc.world.cli:make_sites",
    "pool-items": "plandvc.chains.cli:pool_items",
    "check-pool": "plandvc.contract.cli:check_pool",
    "chain-specs": "plandvc.chains.cli:chain_specs",
    "run-chains": "plandvc.run.cli:run_chains",
    "filter-rows": "plandvc.rows.cli:filter_rows",
    "export": "plandvc.export.cli:export",
    "view": "plandvc.view.cli:view",
    "eval-specs": "plandvc.eval.cli:eval_specs_cmd",
    "eval-planner": "plandvc.eval.cli:eval_planner_cmd",
}


class LazyGroup(click.Group):
    """A group that imports each subcommand only when it is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the subcommand; an error the user can cause is one line (a traceback only with --debug)."""
        debug = bool(ctx.params.get("debug"))
        try:
            return super().invoke(ctx)
        except click.ClickException as e:
            if debug and e.__context__ is not None:  # the error a command turned into its one line
                traceback.print_exception(e.__context__)
            raise
        except (click.exceptions.Exit, click.Abort):
            raise
        except Exception as e:
            line = user_error(e)
            if line is None or debug:
                raise
            raise click.ClickException(line) from None


def user_error(e: BaseException) -> str | None:
    """The one-line message of an error a user can cause (bad input, a missing browser, a port in use, a
    path that cannot be written), or None for a bug, whose traceback is worth seeing."""
    from plandvc.io import InputError

    if isinstance(e, InputError):
        return str(e)
    if isinstance(e, OSError) and e.strerror:
        where = f": {e.filename}" if e.filename else ""
        return f"{e.strerror}{where}"
    names = {c.__name__ for c in type(e).__mro__}
    if names & {"BrowserError", "ServerError", "InfrastructureError"}:
        lines = [ln for ln in str(e).splitlines() if ln.strip()]
        return lines[0] if lines else type(e).__name__
    return None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="plandvc")
@click.option("--debug", is_flag=True, help="show the traceback of every error, not one line")
def cli(debug: bool) -> None:
    """plandvc: planner training rows for a hierarchical web agent, by construction.

    The pipeline is pool-items -> chain-specs -> run-chains -> filter-rows -> export; `dvc repro` runs it.
    An error you can fix (a bad input, a path that cannot be written, a missing Chromium, a port in use) is
    one line and a non-zero exit; `plandvc --debug <command>` shows its traceback.

    \b
    Example:
        plandvc serve --sites data/sites --ports 8320,8321
        dvc repro
    """
