"""The `plandvc` command: a click group whose subcommands live beside the library they drive.

Commands are imported lazily, so `plandvc --help` stays fast and a command only loads what it uses.
"""

from __future__ import annotations

import importlib
import traceback

import click

from plandvc.errors import InputError, PlandvcError

# name -> "module:attribute" of the click command
COMMANDS = {
    "serve": "plandvc.sites.cli:serve",
    "make-pool": "plandvc.pool.cli:make_pool",
    "make-sites": "plandvc.world.cli:make_sites",
    "record-apps": "plandvc.apps.cli:record_apps",
    "pool-items": "plandvc.chains.cli:pool_items",
    "check-pool": "plandvc.contract.cli:check_pool",
    "chain-specs": "plandvc.chains.cli:chain_specs",
    "chain-structure": "plandvc.chains.structure:chain_structure",
    "chain-variety": "plandvc.chains.cli:chain_variety",
    "run-chains": "plandvc.run.cli:run_chains",
    "filter-rows": "plandvc.rows.cli:filter_rows",
    "export": "plandvc.export.cli:export",
    "view": "plandvc.view.cli:view",
    "eval-specs": "plandvc.eval.cli:eval_specs_cmd",
    "eval-planner": "plandvc.eval.cli:eval_planner_cmd",
    "eval-references": "plandvc.eval.cli:eval_references_cmd",
    "eval-apps": "plandvc.eval.apps_cli:eval_apps",
    "eval-table": "plandvc.eval.table:eval_table",
    "push": "plandvc.remote:push",
    "pull": "plandvc.remote:pull",
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

    def invoke(self, ctx: click.Context) -> object:
        """Run the subcommand. The one place an error a user can act on ends a command: its line (see
        `plandvc.errors`) and its exit code; `--debug` prints the traceback first. A bug is a traceback."""
        debug = bool(ctx.params.get("debug"))
        try:
            return super().invoke(ctx)
        except click.ClickException as e:
            if debug and e.__context__ is not None:  # the error a click type turned into its one line
                traceback.print_exception(e.__context__)
            raise
        except Exception as e:
            error = user_error(e)
            if error is None:
                raise
            if debug:
                traceback.print_exception(e)
            click.echo(error.line(ctx.invoked_subcommand or "plandvc"), err=True)
            ctx.exit(error.exit_code)


def user_error(e: Exception) -> PlandvcError | None:
    """The error a user can act on that `e` is (a path that cannot be read or written is bad input), or
    None for a bug, whose traceback is worth seeing."""
    if isinstance(e, PlandvcError):
        return e
    if isinstance(e, OSError) and e.strerror:
        return InputError(f"{e.strerror}: {e.filename}" if e.filename else e.strerror)
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
