"""The macro registry: one Macro record per macro in one table, views computed from it, a temporary registry
that leaves nothing behind, and (end to end) a new macro that is one module plus one registry line: recorded
by make-pool in real Chromium, chained by pool-items and the chain walk, and gated by run-chains' chain run."""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
from pathlib import Path

import pytest
from chain_run import run_chains
from toy_macro import OPEN_NEW_FORM

from plandvc import io
from plandvc.chains.items import pool_items
from plandvc.chains.walk import chain_specs
from plandvc.macros import FAMILY_OF, MACROS, QA_MACROS, REGISTRY, macro, registered
from plandvc.pool.schema import validate

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "sites"


def test_the_views_are_the_registry() -> None:
    assert list(MACROS) == list(REGISTRY) and len(MACROS) == 18
    assert dict(FAMILY_OF) == {n: m.family for n, m in REGISTRY.items()}
    assert set(QA_MACROS) == {"report_information", "count_entries"}
    assert macro("copy_value").check == "clipboard"
    with pytest.raises(KeyError, match="unknown macro 'teleport'"):
        macro("teleport")


def test_a_temporary_registry_adds_a_macro_for_its_block_only() -> None:
    before = dict(REGISTRY)
    with registered(OPEN_NEW_FORM):
        assert "open_new_form" in MACROS and FAMILY_OF["open_new_form"] == "Navigation"
        assert list(MACROS)[-1] == "open_new_form" and "open_new_form" not in QA_MACROS
        with pytest.raises(ValueError, match="registered already"), registered(OPEN_NEW_FORM):
            pass
    assert before == REGISTRY and "open_new_form" not in MACROS
    with pytest.raises(RuntimeError), registered(OPEN_NEW_FORM):
        raise RuntimeError("the block fails")
    assert before == REGISTRY


def test_a_macro_record_that_breaks_a_role_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="URL-state macro stays on its page"):
        dataclasses.replace(OPEN_NEW_FORM, url_state=True)
    with pytest.raises(ValueError, match="question macro is exactly one whose check is 'answer'"):
        dataclasses.replace(OPEN_NEW_FORM, question=True)
    with pytest.raises(ValueError, match="no phrases"):
        dataclasses.replace(OPEN_NEW_FORM, phrases=())


def test_a_generator_that_breaks_its_declared_check_or_scope_is_refused() -> None:
    """make-pool checks every candidate against its macro's check kind and scope kinds."""
    from plandvc.pool.tasks import generate
    from plandvc.sites.spec import load_sites

    specs = load_sites(EXAMPLE)
    wrong = dataclasses.replace(OPEN_NEW_FORM, name="open_new_form_query", check="query")
    with (
        registered(wrong),
        pytest.raises(ValueError, match="macro open_new_form_query: a task of check 'visited'"),
    ):
        generate(specs)
    with registered(OPEN_NEW_FORM):
        made = [t for t in generate(specs) if t["macro"] == "open_new_form"]
    assert len(made) == 2 and {t["start"]["url"] for t in made} == {"/sites/garden", "/sites/garden/plants"}


def test_the_schema_macro_enums_are_the_registry() -> None:
    """task.json's and trajectory.json's `macro` is one of the registered macros: the schema files name none
    (the registry is the one home), the contract fills them in, and a temporary registry's macro is valid
    inside its block only."""
    from plandvc.pool.schema import schema

    for name in ("task", "trajectory"):
        on_disk = io.read_json(ROOT / "plandvc" / "contract" / "schemas" / f"{name}.schema.json")
        assert "enum" not in on_disk["properties"]["macro"], f"{name}.schema.json lists macros by hand"
        assert schema(name)["properties"]["macro"]["enum"] == sorted(REGISTRY)
    task = io.read_json(ROOT / "data/pool/runs/r1/accepted/shop-navigate_to_page-0000/task.json")
    toy = {**task, "macro": "open_new_form"}
    assert validate("task", task, "t") == []
    assert [p.line() for p in validate("task", toy, "t")] == [
        "t: macro: 'open_new_form' is not a known value"
    ]
    with registered(OPEN_NEW_FORM):
        assert validate("task", toy, "t") == []
    assert validate("task", toy, "t") != []


def test_the_schema_check_kinds_are_the_checks() -> None:
    from typing import get_args

    from plandvc.checks import CheckKind

    task_schema = io.read_json(ROOT / "plandvc" / "contract" / "schemas" / "task.schema.json")
    assert task_schema["properties"]["check"]["properties"]["kind"]["enum"] == list(get_args(CheckKind))


# ── end to end ────────────────────────────────────────────────────────────────


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_new_macro_is_recorded_chained_and_gated_end_to_end(tmp_path: Path) -> None:
    from plandvc.pool.recorder import make_pool
    from plandvc.ports import free_ports

    sites, pool = tmp_path / "sites", tmp_path / "pool"
    shutil.copytree(EXAMPLE, sites)
    with registered(OPEN_NEW_FORM):
        summary = make_pool(sites, pool, workers=2, ports=free_ports(1), log=lambda _: None)
        assert summary.accepted[("garden", "open_new_form")] == 2 and not summary.rejected
        kept = [r for r in io.read_jsonl(pool / "kept.jsonl") if r["macro"] == "open_new_form"]
        ids = set((pool / "pool_ids.txt").read_text().split())
        assert len(kept) == 2 and {r["id"] for r in kept} <= ids

        records, report = pool_items(pool, sites)
        toys = [r for r in records if r["macro"] == "open_new_form"]
        assert len(toys) == 2 and not report["unreadable"] and {r["family"] for r in toys} == {"Navigation"}
        assert sorted(r["home_start"] for r in toys) == [False, True] and not any(r["stays"] for r in toys)

        chains = chain_specs(records, 60, seed=0)
        with_toy = [c for c in chains if any(p["id"] in {r["id"] for r in toys} for p in c["parts"])]
        toy_ids = {r["id"] for r in toys}
        first = next(c for c in with_toy if c["parts"][0]["id"] in toy_ids)
        after_home = next(
            c for c in with_toy if any(p["id"] in toy_ids and p["via"] == "home" for p in c["parts"])
        )
        results = asyncio.run(run_chains([first, after_home], pool, sites))
        assert [ok for ok, _ in results] == [True, True], results

        # the gate can fail: the toy part checked on the list page instead of the form
        toy_dir = pool / "runs" / "r1" / "accepted" / first["parts"][0]["id"]
        task = io.read_json(toy_dir / "task.json")
        task["check"]["path"] = task["check"]["path"].removesuffix("/new")
        io.write_json(toy_dir / "task.json", task)
        [(ok, error)] = asyncio.run(run_chains([first], pool, sites))
        assert (
            not ok
            and error.startswith("check failed: ")
            and "visited: expected /sites/garden/plants," in error
        )

    # outside the block the macro is unknown again: pool-items drops its parts by that rule
    _, report = pool_items(pool, sites)
    assert report["dropped"]["unknown_macro"] == 2
