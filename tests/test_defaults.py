"""One source for every default: the walk's params types (`ChainParams` for chain-specs, `SpecsConfig` for
eval-specs, `RunParams` for the run and the prompt) are where the defaults live. Checked here, against each
other: every option of the two walking commands defaults to its params type's field; every value params.yaml
gives takes the option's type and becomes a value of the field's type; and where params.yaml's value is not the
code's default, its comment says the default (what a stage gets without the key)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import click
import pytest
import yaml

from plandvc.chains.cli import chain_specs
from plandvc.chains.make import ChainParams
from plandvc.chains.options import WALK, defaults_of
from plandvc.eval.cli import eval_specs_cmd
from plandvc.eval.specs import SpecsConfig
from plandvc.run.chain import RunParams

ROOT = Path(__file__).resolve().parents[1]
PARAMS = ROOT / "params.yaml"
# params.yaml's section -> (the command whose options take its values, the params type holding their defaults)
SECTIONS: dict[str, tuple[click.Command, type]] = {
    "chains": (chain_specs, ChainParams),
    "eval": (eval_specs_cmd, SpecsConfig),
    "run": (chain_specs, RunParams),
    "prompt": (eval_specs_cmd, RunParams),
}


def option(command: click.Command, name: str) -> click.Parameter | None:
    return next((p for p in command.params if p.name == name), None)


def shown(value: object) -> str:
    """A default as an option takes it and params.yaml writes it (a tuple as its comma list)."""
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def comments(text: str, section: str) -> dict[str, tuple[object, str]]:
    """params.yaml's `section`: key -> (its value, its line's comment)."""
    values = yaml.safe_load(text)[section]
    out, inside = {}, False
    for line in text.splitlines():
        if not line.startswith(" "):
            inside = line.split(":")[0] == section
            continue
        m = re.match(r"  (\w+):[^#]*(?:#(.*))?$", line)
        if inside and m and m[1] in values:
            out[m[1]] = (values[m[1]], m[2] or "")
    return out


def mentions(comment: str, default: object) -> bool:
    """Whether a comment names `default` as a word (a number by its value: `0` names 0.0)."""
    words = re.findall(r"[\w.,:-]+", comment)
    if isinstance(default, float) and not isinstance(default, bool):
        return any(
            re.fullmatch(r"-?\d+(\.\d+)?", w.rstrip(",.:")) and float(w.rstrip(",.:")) == default
            for w in words
        )
    return any(w.rstrip(",.:)") == shown(default) for w in words)


def same(value: object, default: object) -> bool:
    """Whether params.yaml's value is the default (120 is 120.0, "2,3,4" is (2, 3, 4))."""
    if isinstance(value, int | float) and isinstance(default, int | float) and not isinstance(value, bool):
        return value == default
    return shown(value) == shown(default)


def drift(text: str) -> list[str]:
    """Each disagreement between params.yaml, the options and the params types, one line each."""
    out = []
    for section, (command, params) in SECTIONS.items():
        declared = {n: p.default for n, p in inspect.signature(params).parameters.items()}
        for key, (value, comment) in comments(text, section).items():
            if key not in declared:
                continue  # a key the section's params type does not hold (e.g. eval's planner settings)
            want = declared[key]
            opt = option(command, key)
            if opt is not None:
                try:
                    got = opt.type.convert(shown(value) if isinstance(value, bool) else value, opt, None)
                except click.BadParameter as e:
                    out.append(
                        f"{section}.{key}: {value!r} is refused by --{key.replace('_', '-')}: {e.message}"
                    )
                    continue
                if key == "sizes":
                    got = tuple(int(s) for s in str(got).split(","))
                if type(got) is not type(want) and not (isinstance(want, float) and type(got) is int):
                    out.append(
                        f"{section}.{key}: {value!r} is a {type(got).__name__}, {params.__name__}.{key} a {type(want).__name__}"
                    )
                if shown(opt.default) != shown(want):
                    out.append(
                        f"{section}.{key}: the option defaults to {opt.default!r}, {params.__name__} to {want!r}"
                    )
            if not same(value, want) and not mentions(comment, want):
                out.append(
                    f"{section}.{key}: {shown(value)}, and its comment does not say the default {shown(want)}"
                )
    return out


def test_the_walk_options_default_to_their_params_types() -> None:
    for command, params in ((chain_specs, ChainParams), (eval_specs_cmd, SpecsConfig)):
        for name, want in defaults_of(params).items():
            opt = option(command, name)
            assert opt is not None, (command.name, name)
            assert shown(opt.default) == shown(want), (command.name, name)
    assert set(WALK) <= {p.name for p in chain_specs.params} & {p.name for p in eval_specs_cmd.params}


def test_params_yaml_the_options_and_the_params_types_agree() -> None:
    assert drift(PARAMS.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        (
            "  goal_share: 0.95        # goal chains",
            "  goal_share: most        # goal chains",
            "chains.goal_share: 'most'",
        ),
        (
            "  request: composed       # the user's",
            "  request: asked       # the user's",
            "chains.request: 'asked' is refused",
        ),
        (
            "# refuse held-out chains that fail a hygiene check (chains.hygiene; v3: false)",
            "# refuse them",
            "eval.hygiene: true, and its comment does not say the default false",
        ),
        ("  n: 24 ", "  n: 25 ", "eval.n: 25, and its comment does not say the default 24"),
    ],
)
def test_a_disagreement_is_named(old: str, new: str, problem: str) -> None:
    """A value of the wrong type, a value the option refuses, and a changed value whose default is not said."""
    text = PARAMS.read_text(encoding="utf-8")
    assert old in text
    found = drift(text.replace(old, new, 1))
    assert any(line.startswith(problem) for line in found), found


def test_a_walk_params_type_without_a_default_is_refused() -> None:
    def bare(n: int, sizes: tuple[int, ...] = (2,)) -> None: ...

    with pytest.raises(KeyError, match="bare has no default for n, seed"):
        defaults_of(bare)
