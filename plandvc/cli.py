"""The `plandvc` command: a click group whose subcommands live beside the library they drive.

Commands are imported lazily, so `plandvc --help` stays fast and a command only loads what it uses.
"""

from __future__ import annotations

import importlib

import click

# name -> "module:attribute" of the click command
COMMANDS = {
    "serve": "plandvc.sites.cli:serve",
    "make-pool": "plandvc.pool.cli:make_pool",
    "pool-items": "plandvc.chains.cli:pool_items",
    "chain-specs": "plandvc.chains.cli:chain_specs",
    "run-chains": "plandvc.run.cli:run_chains",
    "filter-rows": "plandvc.rows.cli:filter_rows",
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


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="plandvc")
def cli() -> None:
    """plandvc: planner training rows for a hierarchical web agent, by construction.

    The pipeline is pool-items -> chain-specs -> run-chains -> filter-rows; `dvc repro` runs it.

    \b
    Example:
        plandvc serve --sites data/sites --ports 8320,8321
        dvc repro
    """
