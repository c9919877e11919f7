"""eval-references: every reference planner in one process and one served session writes, per reference,
exactly what `eval-planner --reference <name>` writes alone, the same bytes twice; a page-blind reference's
episode that its first reply ends off script is the episode the played loop records; and the pipeline's
stages name every reference of params.yaml's `eval.references` as an output.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml

from plandvc import io
from plandvc.eval.client import PlannerClient
from plandvc.eval.closed import LoopConfig, closed_loop, episode_steps, load_chain_parts, refused_at_once
from plandvc.eval.metrics import episode_record
from plandvc.eval.reference import PAGE_BLIND, REFERENCES, Oracle, PlannerServer, reference_planner
from plandvc.eval.references import ReferencesConfig, eval_references, parse_references
from plandvc.eval.run import EvalConfig, evaluate
from plandvc.eval.specs import SpecsConfig, eval_specs, load_held_out
from plandvc.ports import free_ports
from plandvc.run.chain import SiteInfo
from plandvc.sites.servers import Servers
from plandvc.sites.spec import load_sites, site_name

ROOT = Path(__file__).resolve().parents[1]
POOL, SITES = ROOT / "data" / "pool", ROOT / "data" / "sites"
N = 4


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four held-out chains (eval-specs on the committed pool), built once for the module."""
    root = tmp_path_factory.mktemp("refs")
    summary = eval_specs(
        SpecsConfig(POOL, SITES, root / "eval", n=N, seed=0, workers=2, cache=root / "cache")
    )
    assert summary["held_out"] == N, summary
    return root / "eval"


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def together(specs: Path, out: Path, mode: str = "both") -> ReferencesConfig:
    return ReferencesConfig(
        specs, str(out / "eval" / "reference-{name}"), str(out / "metrics" / "{name}.json"), LoopConfig(POOL, SITES),
        mode=mode,
    )  # fmt: skip


def test_one_process_writes_each_reference_as_its_own_run_and_the_same_bytes_twice(
    specs: Path, tmp_path: Path
) -> None:
    first = eval_references(together(specs, tmp_path / "a"))
    assert list(first) == list(REFERENCES)
    eval_references(together(specs, tmp_path / "b"))
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    assert len(tree(tmp_path / "a")) == 4 * len(
        REFERENCES
    )  # replies, episodes, metrics.json; the metrics file
    for name in REFERENCES:  # each alone, as eval_reference ran it: one eval-planner process a reference
        alone = tmp_path / "alone" / name
        evaluate(EvalConfig(specs, alone / "run", alone / "m.json", LoopConfig(POOL, SITES), reference=name))
        assert tree(alone / "run") == tree(tmp_path / "a" / "eval" / f"reference-{name}"), name
        assert (alone / "m.json").read_bytes() == (tmp_path / "a" / "metrics" / f"{name}.json").read_bytes()
    oracle = first["oracle"]
    assert oracle["teacher_forced"]["step_accuracy"] == 1.0 and oracle["closed_loop"]["success"] == N
    # teacher-forced only (eval_reference_training): no episodes, no closed loop
    tf = eval_references(together(specs, tmp_path / "tf", "teacher-forced"))
    assert all("closed_loop" not in m for m in tf.values())
    assert not list((tmp_path / "tf").rglob("episodes.jsonl"))


def test_a_page_blind_first_reply_that_ends_the_episode_is_what_the_played_loop_records(specs: Path) -> None:
    """copy and random-family, played in Chromium and decided by their first reply: the same episodes, the
    same traffic (the first reply is asked once either way)."""
    chains = load_held_out(specs)
    cfg = LoopConfig(POOL, SITES)

    async def both(name: str, base: str, url: str) -> tuple[list[object], list[object], dict[str, int]]:
        got = []
        traffic = []
        for page_blind in (False, True):
            client = await PlannerClient.connect(url, f"reference-{name}")
            try:
                episodes = await closed_loop(chains, client, cfg, base, None, page_blind)
            finally:
                await client.close()
            got.append([episode_record(e) for e in episodes])
            traffic.append(dict(client.traffic))
        assert traffic[0] == traffic[1], name
        return got[0], got[1], traffic[0]

    assert {"copy", "random-family"} <= PAGE_BLIND and "template" not in PAGE_BLIND  # template reads the page
    planners = {f"reference-{n}": reference_planner(n, chains) for n in ("copy", "random-family")}
    decided = 0
    with Servers(free_ports(1), SITES) as servers, PlannerServer.serving(planners) as server:
        for name in ("copy", "random-family"):
            played, known, _ = asyncio.run(both(name, servers.bases[0], server.url))
            assert played == known, name
            decided += sum(e["end"] == "off_script" and e["turns"] == 1 for e in known)  # type: ignore[index]
    assert decided > 0  # the rule was used, not only the loop


def test_the_first_reply_ends_the_episode_only_when_the_loop_refuses_it(specs: Path) -> None:
    chains = load_held_out(specs)
    chain = chains[0]
    parts = load_chain_parts(POOL, chain)
    site = SiteInfo(site_name(SITES, chain.line["site"]), load_sites(SITES)[chain.line["site"]].today)
    steps = episode_steps(chain, parts, site, None)
    cfg = LoopConfig(POOL, SITES)
    right = Oracle(chains).targets[(chain.line["request"], 0)]
    first = json.loads(right)["action"][0]["delegate"]
    wrong_family = next(f for f in ("Filter", "Navigation", "Form") if f != first["family"])
    wrong = json.dumps({"memory": "", "action": [{"delegate": {**first, "family": wrong_family}}]})
    done = json.dumps({"memory": "", "action": [{"done": {"text": "The task is done.", "success": True}}]})
    assert refused_at_once(chain, steps, right, cfg) is None  # the right step: the loop runs
    assert refused_at_once(chain, steps, done, cfg) is None  # done: the gates are read in the loop
    assert refused_at_once(chain, steps, "not json", cfg) is None  # invalid: the loop retries with feedback
    ended = refused_at_once(chain, steps, wrong, cfg)
    assert ended is not None and (ended.end, ended.turns, ended.off_script_turn) == ("off_script", 1, 1)
    assert (ended.steps_done, ended.steps, ended.gates, ended.replies) == (0, len(steps), [], [wrong])
    assert "family" in ended.detail
    no_budget = LoopConfig(POOL, SITES, budget=0)  # the loop would not reach the delegation check
    assert refused_at_once(chain, steps, wrong, no_budget) is None


def test_bad_references_or_outputs_are_one_clear_error(specs: Path, tmp_path: Path) -> None:
    with pytest.raises(io.InputError, match="unknown 'nope'"):
        parse_references("oracle,nope")
    with pytest.raises(io.InputError, match="twice"):
        parse_references("oracle,oracle")
    cfg = together(specs, tmp_path)
    cfg.out = str(tmp_path / "eval" / "reference")
    with pytest.raises(io.InputError, match=r"--out: .* does not name the reference by \{name\}"):
        eval_references(cfg)
    assert not (tmp_path / "eval").exists()


def test_the_stages_name_every_reference_of_the_params() -> None:
    """dvc.yaml's eval_reference and eval_reference_training: one process each, an output per reference of
    params.yaml's eval.references (a name added to one list and not the other fails here)."""
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    names = parse_references(yaml.safe_load((ROOT / "params.yaml").read_text())["eval"]["references"])
    for stage, prefix, metrics in (
        ("eval_reference", "eval/reference-", "metrics/eval-reference-"),
        ("eval_reference_training", "eval/training-", "metrics/eval-training-"),
    ):
        assert "eval-references" in stages[stage]["cmd"] and "${eval.references}" in stages[stage]["cmd"]
        assert stages[stage]["outs"] == [f"{prefix}{n}" for n in names], stage
        assert [next(iter(m)) for m in stages[stage]["metrics"]] == [f"{metrics}{n}.json" for n in names]
