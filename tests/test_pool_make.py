"""make-pool end to end: the same seed gives byte-identical files whatever the worker count, progress and
a summary as it goes, and a run made again replaces the old one whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from bundled import SITES_DIR, SPECS
from click.testing import CliRunner

from plandvc.cli import cli
from plandvc.pool.cli import make_pool as make_pool_cmd
from plandvc.pool.recorder import make_pool
from plandvc.ports import free_ports


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_make_pool_twice_with_the_same_seed_gives_the_same_bytes(tmp_path: Path) -> None:
    site = sorted(SPECS)[-1]
    logs: list[str] = []
    a = make_pool(SITES_DIR, tmp_path / "a", seed=0, workers=1, ports=free_ports(1), limit=10, only_site=site,
                  log=logs.append)  # fmt: skip
    make_pool(SITES_DIR, tmp_path / "b", seed=0, workers=2, ports=free_ports(2), limit=10,
              only_site=site, log=logs.append)  # fmt: skip
    ta, tb = _tree(tmp_path / "a"), _tree(tmp_path / "b")
    assert ta == tb
    assert sum(a.accepted.values()) == 10 and "kept.jsonl" in ta and "pool_ids.txt" in ta
    assert any(line.startswith("[10/10]") for line in logs)  # progress as it goes
    assert any("per trajectory" in line for line in logs)
    # a run made again replaces the old one whole (no stale task left behind)
    make_pool(SITES_DIR, tmp_path / "a", seed=0, workers=1, ports=free_ports(1), limit=4, only_site=site,
              log=logs.append)  # fmt: skip
    assert len(list((tmp_path / "a" / "runs" / "r1" / "accepted").iterdir())) == 4


def test_make_pool_help_has_an_example() -> None:
    out = CliRunner().invoke(make_pool_cmd, ["--help"])
    assert out.exit_code == 0 and "Example:" in out.output and "plandvc make-pool --sites" in out.output


@pytest.mark.parametrize(
    "args, says",
    [
        (["--ports", "80x"], "--ports: '80x' is not a port number"),
        (["--only-site", "nowhere"], "--only-site: no site 'nowhere'"),
        (["--run", ".hidden"], "--run: '.hidden' is not a run name"),
    ],
)
def test_make_pool_bad_input_is_one_line_and_nonzero(tmp_path: Path, args: list[str], says: str) -> None:
    out = CliRunner().invoke(
        cli, ["make-pool", "--sites", str(SITES_DIR), "--out", str(tmp_path / "p"), *args]
    )
    assert out.exit_code != 0 and says in out.output
    assert not (tmp_path / "p" / "kept.jsonl").exists()
