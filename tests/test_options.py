"""`plandvc.options`: a command's options reach the record they feed by name, and a name that feeds nothing is
an error when the command is defined, not a value dropped; so is an option whose default is not its record's
(the record is the one home of a default; params.yaml names every field of the chains' and the run's)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from plandvc.options import feeds, fill


@dataclass
class Config:
    out: str
    seed: int = 0
    workers: int = 1


def test_fill_takes_each_field_from_its_option_or_from_given() -> None:
    got = fill(Config, {"out": "o", "seed": 3, "other": "x"}, workers=4)
    assert got == Config(out="o", seed=3, workers=4)
    assert fill(Config, {"out": "o"}) == Config(out="o")  # a field with no option keeps its default
    with pytest.raises(TypeError, match="Config has no parameter sede"):
        fill(Config, {"out": "o"}, sede=1)


def test_an_option_that_feeds_nothing_fails_when_the_command_is_defined() -> None:
    @feeds(Config)
    @click.command("ok")
    @click.option("--out")
    @click.option("--seed", type=int, default=Config.seed)
    def ok(**values: object) -> None:
        click.echo(repr(fill(Config, values)))

    done = CliRunner().invoke(ok, ["--out", "o", "--seed", "3"])
    assert done.exit_code == 0 and done.output == "Config(out='o', seed=3, workers=1)\n", done.output
    with pytest.raises(TypeError, match="bad: option sede feeds none of Config"):

        @feeds(Config)
        @click.command("bad")
        @click.option("--out")
        @click.option("--sede", type=int)
        def bad(**values: object) -> None:
            pass


def test_an_option_whose_default_is_not_its_records_fails_when_the_command_is_defined() -> None:
    with pytest.raises(TypeError, match=r"drift: option seed defaults to 7, Config\.seed to 0"):

        @feeds(Config)
        @click.command("drift")
        @click.option("--out")
        @click.option("--seed", type=int, default=7)
        def drift(**values: object) -> None:
            pass

    # no default passes None, which would override the record's 1
    with pytest.raises(TypeError, match=r"none: option workers defaults to None, Config\.workers to 1"):

        @feeds(Config)
        @click.command("none")
        @click.option("--out")
        @click.option("--workers", type=int)
        def none(**values: object) -> None:
            pass


def test_every_commands_option_defaults_are_its_records() -> None:
    from plandvc.cli import cli

    ctx = click.Context(cli)
    assert len(cli.list_commands(ctx)) >= 17
    for name in cli.list_commands(ctx):
        assert cli.get_command(ctx, name) is not None, name  # loading a command runs its `feeds` checks


def test_params_yaml_names_every_field_of_the_chains_and_the_run() -> None:
    import yaml

    from plandvc.chains.make import ChainParams
    from plandvc.run.chain import RunParams

    params = yaml.safe_load((Path(__file__).resolve().parents[1] / "params.yaml").read_text())
    # the phrasing set is the stage's, never a param: chain-specs draws the training set, eval-specs the held-out
    assert set(params["chains"]) == {f.name for f in fields(ChainParams)} - {"phrasing_set"}
    run = {f.name for f in fields(RunParams)} - {"memory_url", "memory_model", "dialect", "marks"}
    assert set(params["run"]) == run
    assert {"url", "model"} == set(params["memory"]) and set(params["prompt"]) == {"dialect", "marks"}
