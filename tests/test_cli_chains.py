"""The pool-items and chain-specs commands through the lead's click group: outputs, summaries, bad values."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from chain_pools import rec, task_files, write_pool
from click.testing import CliRunner

from plandvc.cli import cli
from plandvc.io import read_jsonl, write_jsonl


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def small_pool(root: Path) -> tuple[Path, Path]:
    parts = [task_files(f"shop-filter_by_dropdown-{k:04d}") for k in range(4)]
    parts += [task_files(f"shop-sort_by_form-{k:04d}", macro="sort_by_form") for k in range(4, 7)]
    parts += [
        task_files(
            "shop-count_entries-0009",
            macro="count_entries",
            check={"kind": "answer", "expected": "2"},
            answer="2",
        ),
        task_files("shop-open_entry-0010", macro="open_entry", start_kind="mid_chain", history_macro="x"),
        task_files("fleet-sort_by_form-0011", site="fleet", macro="sort_by_form"),
    ]
    return write_pool(root, parts)


def test_pool_items_then_chain_specs(tmp_path: Path) -> None:
    pool, sites = small_pool(tmp_path)
    items, chains = tmp_path / "items.jsonl", tmp_path / "chains.jsonl"
    code, _, err = run("pool-items", "--pool", str(pool), "--sites", str(sites), "--out", str(items))
    assert code == 0, err
    assert "8 records" in err and "mid_chain 1" in err and "test_site 1" in err and "shop 8" in err
    recs = read_jsonl(items)
    assert [r["id"] for r in recs] == sorted(r["id"] for r in recs)
    assert str(tmp_path) not in items.read_text()

    code, _, err = run("chain-specs", "--items", str(items), "--out", str(chains), "--n", "20", "--seed", "3")
    assert code == 0, err
    out = read_jsonl(chains)
    assert len(out) == 20 and "20 chains" in err and "by size" in err and "home steps" in err
    assert all(set(c) == {"key", "site", "parts"} for c in out)
    first = chains.read_bytes()
    assert run("chain-specs", "--items", str(items), "--out", str(chains), "--n", "20", "--seed", "3")[0] == 0
    assert chains.read_bytes() == first
    run("chain-specs", "--items", str(items), "--out", str(chains), "--n", "20", "--seed", "4")
    assert chains.read_bytes() != first


def test_no_qa(tmp_path: Path) -> None:
    pool, sites = small_pool(tmp_path)
    items = tmp_path / "items.jsonl"
    assert (
        run("pool-items", "--pool", str(pool), "--sites", str(sites), "--out", str(items), "--no-qa")[0] == 0
    )
    assert "shop-count_entries-0009" not in items.read_text()


def test_pool_items_names_unreadable_files(tmp_path: Path) -> None:
    pool, sites = small_pool(tmp_path)
    (pool / "runs/r1/accepted/shop-sort_by_form-0004/trajectory.json").write_text("[")
    code, _, err = run(
        "pool-items", "--pool", str(pool), "--sites", str(sites), "--out", str(tmp_path / "i.jsonl")
    )
    assert code == 0
    assert "unreadable: 1" in err and "shop-sort_by_form-0004/trajectory.json: not valid JSON" in err


def test_pool_items_counts_a_bad_kept_line_and_goes_on(tmp_path: Path) -> None:
    """A kept.jsonl line that breaks its schema is named and counted as unreadable; the other lines still make
    their records (the ids check reads the index the same lenient way)."""
    pool, sites = small_pool(tmp_path)
    with (pool / "kept.jsonl").open("a") as f:
        f.write('{"id": "shop-ghost-0099"}\n')
    code, _, err = run(
        "pool-items", "--pool", str(pool), "--sites", str(sites), "--out", str(tmp_path / "i.jsonl")
    )
    assert code == 0, err
    assert "8 records" in err and "unreadable: 1" in err and "kept.jsonl:11: run: missing" in err


def test_pool_items_without_a_kept_index_is_one_line(tmp_path: Path) -> None:
    pool, sites = small_pool(tmp_path)
    (pool / "kept.jsonl").unlink()
    code, _, err = run(
        "pool-items", "--pool", str(pool), "--sites", str(sites), "--out", str(tmp_path / "i.jsonl")
    )
    assert code != 0 and err.strip().splitlines() == [f"Error: {pool / 'kept.jsonl'}: file not found"]


def test_pool_items_bad_pool_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "items.jsonl"
    code, _, err = run(
        "pool-items", "--pool", str(tmp_path / "none"), "--sites", str(tmp_path), "--out", str(out)
    )
    assert code != 0 and "site_split.json: file not found" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.fixture
def items(tmp_path: Path) -> Path:
    p = tmp_path / "items.jsonl"
    write_jsonl(p, [rec("a"), rec("b", macro="sort_by_form")])
    return p


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sizes", "2,5"], "--sizes: every size must be 2, 3 or 4, got 5"),
        (["--sizes", "1"], "--sizes"),
        (["--sizes", "two"], "--sizes: expected sizes like 2,3,4"),
        (["--answer-share", "1.5"], "--answer-share: must be in [0, 1]"),
        (["--answer-share", "-0.1"], "--answer-share"),
        (["--n", "0"], "--n: must be at least 1"),
        (["--tries", "0"], "--tries"),
    ],
)
def test_chain_specs_bad_values(tmp_path: Path, items: Path, args: list[str], message: str) -> None:
    out = tmp_path / "chains.jsonl"
    code, _, err = run("chain-specs", "--items", str(items), "--out", str(out), *args)
    assert code != 0 and message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_chain_specs_items_missing_key(tmp_path: Path) -> None:
    bad = tmp_path / "items.jsonl"
    r = rec("b")
    del r["home_start"]
    bad.write_bytes(orjson.dumps(rec("a")) + b"\n" + orjson.dumps(r) + b"\n")
    out = tmp_path / "chains.jsonl"
    code, _, err = run("chain-specs", "--items", str(bad), "--out", str(out))
    assert code != 0 and "items.jsonl:2: missing key 'home_start'" in err
    assert not out.exists()
    bad.write_bytes(orjson.dumps(rec("a")) + b"\n" + orjson.dumps(rec("a")) + b"\n")
    code, _, err = run("chain-specs", "--items", str(bad), "--out", str(out))
    assert code != 0 and "duplicate id 'a'" in err
    code, _, err = run("chain-specs", "--items", str(tmp_path / "nope.jsonl"), "--out", str(out))
    assert code != 0 and "nope.jsonl: file not found" in err
    assert not out.exists()


def test_help_has_examples() -> None:
    for name in ("pool-items", "chain-specs"):
        code, out, _ = run(name, "--help")
        assert code == 0 and "Example:" in out and f"plandvc {name}" in out


def test_chain_specs_home_rule_option(tmp_path: Path) -> None:
    """--home-rule picks the walk's rule; the summary names it; an unknown rule is refused."""
    items, chains = tmp_path / "items.jsonl", tmp_path / "chains.jsonl"
    write_jsonl(
        items,
        [
            rec("a-f", "a", start="/sites/a/orders"),
            rec("a-s", "a", macro="search_by_text", start="/sites/a/orders"),
            rec("a-h", "a", macro="navigate_to_page", start="/sites/a", home_start=True, stays=False),
        ],
    )
    shapes = {}
    for rule in ("neighbour", "any_earlier"):
        args = ["chain-specs", "--items", str(items), "--out", str(chains), "--sizes", "3", "--n", "9"]
        code, _, err = run(*args, "--home-rule", rule)
        assert code == 0 and f"home rule {rule}" in err, err
        shapes[rule] = {tuple(p["via"] for p in c["parts"]) for c in read_jsonl(chains)}
    assert (None, "page", "home") in shapes["neighbour"]
    assert all("home" not in s[2:] for s in shapes["any_earlier"])
    code, _, err = run("chain-specs", "--items", str(items), "--out", str(chains), "--home-rule", "both")
    assert code != 0 and "--home-rule" in err
