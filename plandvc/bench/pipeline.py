"""The pipeline's own settings for the bench's world chains: params.yaml's `chains` and `prompt` sections.

`make bench` makes its world chains with chain-specs' params as the pipeline has them (request, goal share and
kinds, recovery share, phrasing, hygiene) and runs them with run-chains' dialect and marks, so what it
measures is what `dvc repro` runs; only the number of chains and the seed are the bench's own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from plandvc.agent.dialects import DIALECTS
from plandvc.chains.cli import parse_sizes
from plandvc.chains.make import ChainParams
from plandvc.io import InputError

# params.yaml `chains` keys that are not chain-specs' params of the chains' content (the bench sets n and seed)
_CHAIN_KEYS = {f.name for f in dataclasses.fields(ChainParams)} - {"n", "seed", "phrasing_set"}


@dataclass(frozen=True)
class PipelineParams:
    """The settings a world chain is made and run with, as params.yaml gives them."""

    chains: ChainParams  # chain-specs' (n and seed: the bench's)
    dialect: str  # run-chains --dialect
    marks: bool  # run-chains --marks


def _section(doc: Mapping[str, object], name: str, path: Path) -> Mapping[str, object]:
    sec = doc.get(name)
    if not isinstance(sec, Mapping):
        raise InputError(f"{path}: `{name}`: missing or not a mapping")
    return sec


def read_pipeline_params(path: Path, n: int, seed: int) -> PipelineParams:
    """params.yaml's chain and prompt settings, with the bench's `n` chains and `seed`; one InputError line
    naming the file and key for a missing or malformed value."""
    try:
        doc = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as e:
        raise InputError(f"{path}: cannot read: {type(e).__name__}: {str(e).splitlines()[0]}") from e
    if not isinstance(doc, Mapping):
        raise InputError(f"{path}: not a mapping")
    chains, prompt = _section(doc, "chains", path), _section(doc, "prompt", path)
    defaults = ChainParams()
    values: dict[str, object] = {}
    for key in sorted(_CHAIN_KEYS & set(chains)):
        want, got = type(getattr(defaults, key)), chains[key]
        if key == "sizes":
            values[key] = parse_sizes(str(got))
        elif want is float and isinstance(got, int | float) and not isinstance(got, bool):
            values[key] = float(got)
        elif isinstance(got, want):
            values[key] = got
        else:
            raise InputError(f"{path}: chains.{key}: expected {want.__name__}, got {got!r}")
    dialect, marks = prompt.get("dialect"), prompt.get("marks")
    if dialect not in DIALECTS:
        raise InputError(f"{path}: prompt.dialect: expected one of {', '.join(DIALECTS)}, got {dialect!r}")
    if not isinstance(marks, bool):
        raise InputError(f"{path}: prompt.marks: expected true or false, got {marks!r}")
    params = dataclasses.replace(defaults, n=n, seed=seed, **values)  # type: ignore[arg-type]
    return PipelineParams(params, str(dialect), marks)
