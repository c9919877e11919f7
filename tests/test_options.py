"""`plandvc.options`: a command's options reach the record they feed by name, and a name that feeds nothing is
an error when the command is defined, not a value dropped."""

from __future__ import annotations

from dataclasses import dataclass

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
    @click.option("--seed", type=int)
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
