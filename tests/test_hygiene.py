"""Request hygiene (plandvc.chains.hygiene, issue 45 item 4): every check shown failing on the issue's quoted
requests (kept as fixtures, with the facts they were made from) and on hand-made words, today's default chains
counted, and chain-specs' `--hygiene` refusing every chain with a problem, byte for byte twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from run_helpers import plandvc

from plandvc import io
from plandvc.chains.hygiene import (
    CHECKS,
    ChainText,
    chain_problems,
    chain_text,
    float_noise,
    garbled_title,
    number_before_label,
    problems_of,
    self_contradiction,
)
from plandvc.chains.items import site_specs
from plandvc.chains.make import ChainParams, make_chains
from plandvc.records import Ask, ChainSpec, ItemRecord
from plandvc.sites.model import Spec

ROOT = Path(__file__).resolve().parents[1]
# the issue's quoted requests, each with its chain and its parts' facts as today's default chains made them
QUOTED = io.read_json(Path(__file__).with_name("hygiene_quoted.json"))


# the checks of what v3's chains cannot have (no goal of v3 carries a value from a report), so no quoted request
LATER_CHECKS = {"leaked_value"}
# the keys dataset v4 changed, at v3's values (docs/STAGES.md, "Dataset versions"): these tests read v3's chains
V3_CHAINS = {"goal_share": 0.4, "goal_kinds": "count,top", "hygiene": False, "phrasing": "v3"}


def default_params(**changes: Any) -> ChainParams:
    """params.yaml's `chains` as chain-specs reads them, with v3's values for the keys v4 changed."""
    c = yaml.safe_load((ROOT / "params.yaml").read_text())["chains"]
    sizes = tuple(int(s) for s in str(c.pop("sizes")).split(","))
    return ChainParams(sizes=sizes, **{**c, **V3_CHAINS, **changes})


@pytest.fixture(scope="module")
def specs(world0: Path) -> dict[str, Spec]:
    return site_specs(world0)


@pytest.fixture(scope="module")
def default_chains(world_items: list[ItemRecord], specs: dict[str, Spec]) -> list[ChainSpec]:
    return make_chains(world_items, default_params(), specs)


def text(request: str = "", asks: tuple[Ask, ...] = (), **kw: Any) -> ChainText:
    """A hand-made chain's words and facts (no spec unless given)."""
    n = len(asks)
    fields: dict[str, Any] = {
        "key": "k", "request": request, "says": ("",) * n, "final": "", "asks": asks,
        "starts": ("/sites/s",) * n, "vias": (None,) + ("page",) * (n - 1), "site": "s",
    }  # fmt: skip
    return ChainText(**{**fields, **kw})


def ask(macro: str, page: str, **kw: Any) -> Ask:
    return {"macro": macro, "site": "S", "page": page, "plural": page, "singular": page[:-1], **kw}  # type: ignore[typeddict-item]


# ── the issue's quoted requests ──────────────────────────────────────────────


@pytest.mark.parametrize("case", QUOTED, ids=[c["check"] for c in QUOTED])
def test_each_quoted_request_fails_its_check(case: dict[str, Any], specs: dict[str, Spec]) -> None:
    """The request the issue quotes (or the language review's, issue 46: the request or the final message of
    v4's chains before the fix) is in the fixture's words, and its check names it."""
    chain = case["chain"]
    words = chain["request"] + " ".join(p["say"] for p in chain["parts"]) + " " + chain["final"]
    assert case["quote"] in words
    found = problems_of(chain_text(chain, {r["id"]: r for r in case["items"]}, specs))
    assert case["check"] in found, found


def test_every_check_has_a_quoted_request() -> None:
    assert sorted({c["check"] for c in QUOTED}) == sorted(set(CHECKS) - LATER_CHECKS)


# ── each check on hand-made words: passing and failing ───────────────────────


def test_float_noise_counts_decimals_against_what_the_site_shows() -> None:
    assert float_noise(text("versions of at most 2.4000000000000004")) != []
    assert float_noise(text("prices up to 12.99, license GPL-3.0, rated 4.5")) == []
    assert float_noise(text("a price of 12.999")) != []  # three decimals: more than a site shows


def test_a_goal_steps_delegations_are_read_too() -> None:
    """A goal that uses what is found delegates each live step: each `say` is checked like a part's."""
    item = {"id": "a", "start": "/sites/s", "ask": ask("search_by_text", "matches", values=["Kings"])}
    chain = {
        "key": "k", "site": "s", "parts": [{"id": "a", "via": None, "say": 'Search for "Kings".'}],
        "request": "r", "final": "f",
        "goal": {"kind": "detail", "page": "/sites/s/matches", "expected": "x", "steps": [
            {"do": "find", "name": "Kingsbridge vs Kingsbridge", "say": "Read the first match's name."},
            {"do": "open", "name": "Kingsbridge vs Kingsbridge", "say": 'Open "Kingsbridge vs Kingsbridge".'},
        ]},
    }  # fmt: skip
    found = problems_of(chain_text(chain, {"a": item}, {}))  # type: ignore[arg-type, dict-item]
    assert found == {
        "self_contradiction": ['self-contradiction: "Kingsbridge vs Kingsbridge" in the goal delegation 1']
    }


def test_a_value_the_request_already_says_is_no_value_carried() -> None:
    """A carry goal narrows by the value a read revealed: the request saying it (any case) is a leak."""
    item = {"id": "a", "start": "/sites/s", "ask": ask("navigate_to_page", "recipes")}
    steps = [
        {"do": "open", "name": "Pad Kra Pao", "say": 'Open the recipe "Pad Kra Pao".'},
        {"do": "read", "name": "Pad Kra Pao", "reveals": True, "say": 'Read the Cuisine of the recipe "Pad Kra Pao".'},
        {"do": "narrow", "name": "Pad Kra Pao", "value": "Thai", "say": 'Filter the recipes by cuisine "Thai".'},
        {"do": "count", "name": "Pad Kra Pao", "say": "Read how many recipes the list shows now."},
    ]  # fmt: skip

    def chain(request: str) -> Any:
        return {
            "key": "k", "site": "s", "parts": [{"id": "a", "via": None, "say": "Go to the recipes."}],
            "request": request, "final": "f",
            "goal": {"kind": "carry", "page": "/sites/s/recipes", "expected": "4", "steps": steps},
        }  # fmt: skip

    leaked = problems_of(
        chain_text(chain('How many THAI recipes share the cuisine of "Pad Kra Pao"?'), {"a": item}, {})
    )  # type: ignore[dict-item]
    assert leaked == {"leaked_value": ['leaked value: the request says "Thai", which a report is to reveal']}
    fine = 'How many recipes share the cuisine of "Pad Kra Pao"? Thailand trip coming up.'
    assert problems_of(chain_text(chain(fine), {"a": item}, {})) == {}  # type: ignore[dict-item]


def test_self_contradiction_and_garbled_title() -> None:
    assert self_contradiction(text('Open the match "Kingsbridge vs Kingsbridge".')) != []
    assert self_contradiction(text('Open the match "Kingsbridge vs Northvale".')) == []
    assert garbled_title(text('Open "Best the Roman empire".')) != []
    assert garbled_title(text('Open "How to the Roman empire".')) != []
    assert garbled_title(text('Open "History of the Roman empire".')) == []


def test_a_link_holds_only_when_the_entry_is_opened_from_that_list() -> None:
    search = ask("search_by_text", "recipes", values=["Lemon"], query=[["q", "Lemon"]])
    opened = ask("open_entry", "recipes", entry="Lemon Tart")
    req = 'Find recipes about "Lemon", and then among them, open "Lemon Tart".'
    on_list = text(req, (search, opened), starts=("/sites/s/recipes", "/sites/s/recipes"))
    assert problems_of(on_list) == {}
    from_home = text(req, (search, opened), vias=(None, "home"))
    assert list(problems_of(from_home)) == ["false_link"]


def test_a_trip_back_to_a_narrowed_list_undoes_it_and_a_hop_nobody_uses_is_idle() -> None:
    search = ask("search_by_text", "players", values=["Duarte"], query=[["q", "Duarte"]])
    back = ask("navigate_to_page", "players")
    assert list(problems_of(text("", (search, back), vias=(None, "home")))) == ["undone_step"]
    letters = ask("navigate_to_page", "letters")
    count = ask("count_entries", "stories", values=["Politics"], label="Section")
    assert list(problems_of(text("", (letters, count), vias=(None, "home")))) == ["idle_hop"]
    used = text("", (letters, count), starts=("/sites/s", "/sites/s/letters"))
    assert problems_of(used) == {}


def test_a_non_integer_bound_on_whole_numbers_is_a_fractional_count(specs: dict[str, Spec]) -> None:
    case = next(c for c in QUOTED if c["check"] == "fractional_count")
    items = {r["id"]: r for r in case["items"]}
    c = chain_text(case["chain"], items, specs)
    whole = [
        {**a, "values": [str(int(float(a["values"][0]) + 0.5))]} if a["macro"] == "filter_by_slider" else a
        for a in c.asks
    ]
    fixed = ChainText(**{**c.__dict__, "asks": tuple(whole)})
    assert "fractional_count" in problems_of(c) and "fractional_count" not in problems_of(fixed)


# ── today's default chains and the switch ────────────────────────────────────


def test_todays_default_chains_have_every_kind_of_problem(
    default_chains: list[ChainSpec], world_items: list[ItemRecord], specs: dict[str, Spec]
) -> None:
    """v3's params (hygiene off) keep today's chains, problems and all: every check finds some but the language
    review's of the varied words alone (issue 46: their fixtures are v4's chains before the fix)."""
    by_id = {r["id"]: r for r in world_items}
    found = {k for c in default_chains for k in problems_of(chain_text(c, by_id, specs))}
    assert found == set(CHECKS) - LATER_CHECKS - {
        "doubled_preposition",
        "article_sound",
        "verb_as_noun",
        "number_before_label",
    }


def test_with_hygiene_no_chain_has_a_problem(world_items: list[ItemRecord], specs: dict[str, Spec]) -> None:
    params = default_params(hygiene=True)
    chains = make_chains(world_items, params, specs)
    by_id = {r["id"]: r for r in world_items}
    assert len(chains) == params.n
    assert [line for c in chains for line in chain_problems(c, by_id, specs)] == []


def test_chain_specs_hygiene_twice_byte_for_byte_and_refused_without_composed_words(
    tmp_path: Path, world_items: list[ItemRecord], world0: Path
) -> None:
    items = tmp_path / "items.jsonl"
    io.write_jsonl(items, world_items)
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name / "chains.jsonl"
        out.parent.mkdir()
        p = plandvc(
            "chain-specs", "--items", items, "--out", out, "--n", "60", "--request", "composed",
            "--goal-share", "0.4", "--sites", world0, "--recovery-share", "0.2", "--hygiene", "true",
        )  # fmt: skip
        assert p.returncode == 0, p.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and len(outs[0].splitlines()) == 60
    p = plandvc("chain-specs", "--items", items, "--out", tmp_path / "c.jsonl", "--hygiene", "true")
    assert p.returncode == 1 and "hygiene: the checks read composed words" in p.stderr
    assert not (tmp_path / "c.jsonl").exists()


def test_held_out_chains_with_hygiene_have_none_either(world0: Path, specs: dict[str, Spec]) -> None:
    """eval-specs' walk (the test sites' records, `eval.hygiene`) refuses the same problems."""
    from plandvc.chains.items import pool_items

    records, _ = pool_items(ROOT / "data" / "world-pool", world0, qa=True, held_out=True)
    params = default_params(n=60, hygiene=True)
    held = make_chains(records, params, specs)
    by_id = {r["id"]: r for r in records}
    assert len(held) == 60
    assert [line for c in held for line in chain_problems(c, by_id, specs)] == []
    plain = make_chains(records, default_params(n=60), specs)
    assert any(chain_problems(c, by_id, specs) for c in plain)  # without it, some held-out chain has one


def test_the_structure_table_of_v3s_chains_agrees_with_the_issues_reading(
    default_chains: list[ChainSpec], world_items: list[ItemRecord]
) -> None:
    """Labelled by construction, v3's 300 default chains give the issue's hand-made v3 column (within a few
    points where a reader and the construction may differ on a chain or two)."""
    from plandvc.chains.structure import structure_table

    t = structure_table(default_chains, {r["id"]: r for r in world_items})
    issue = {"top": 13.0, "count": 27.3, "narrowed": 25.7, "unrelated": 33.0, "coherent": 67.0}
    assert all(abs(t.shares[k] - v) <= 3.0 for k, v in issue.items()), t.shares
    assert [t.shares[k] for k in ("detail", "lookup", "compare", "act", "carried")] == [0.0] * 5
    assert abs(t.mean_steps - 2.7) <= 0.1 and t.max_steps == 4
    assert len(t.misses()) == 7


def test_a_greeting_there_is_no_link_but_a_lone_there_is() -> None:
    """ "Hey there." greets (the varied phrasing's greetings); "open the one there" with nothing opened from
    that list is still a false link."""
    search = ask("search_by_text", "recipes", values=["Lemon"], query=[["q", "Lemon"]])
    assert problems_of(text('Hey there. Find recipes about "Lemon".', (search,))) == {}
    assert problems_of(text('Hi there, quick task. Find recipes about "Lemon".', (search,))) == {}
    assert list(problems_of(text('Find recipes about "Lemon" and look there.', (search,)))) == ["false_link"]


# ── the language review (issue 46) ───────────────────────────────────────────

LANGUAGE = ("doubled_preposition", "count_agreement", "article_sound", "counted_owner", "verb_as_noun",
            "number_before_label")  # fmt: skip


def test_the_language_checks_fail_on_forms_no_user_writes_and_pass_on_their_fixes() -> None:
    wrong = {
        "doubled_preposition": "Tell me the level of among courses capped at 10 weeks.",
        "count_agreement": "There are 1 study lists.",
        "article_sound": "answers with an unit of m",
        "counted_owner": "How many my trips are there?",
        "verb_as_noun": "Note the opened of the issue.",
        "number_before_label": "Find issues with comments kept to 30.",
    }
    right = {
        "doubled_preposition": "Tell me the level of the one among courses capped at 10 weeks.",
        "count_agreement": "There are 12 study lists; just 1 is new.",
        "article_sound": "answers with a unit of m, a European city, an hour, a one-way trip",
        "counted_owner": "How many of my trips are there? I count 2 of my bookings.",
        "verb_as_noun": "Note the opened date of the issue, the speed of it, and its byline.",
        "number_before_label": "Find issues with at most 30 comments, kept in order.",
    }
    for check in LANGUAGE:
        assert check in problems_of(text(wrong[check])), check
        assert problems_of(text(right[check])) == {}, check
        said = text(final=wrong[check])  # the final message is read too (a bound: the request alone)
        assert (check in problems_of(said)) == (check != "number_before_label"), check
    quoted = text('Find the "Best of among" list and the "an unit" entry.')  # a value is no wording
    assert problems_of(quoted) == {}
    slider = ask("filter_by_slider", "stories", label="Max read time", values=["14"])
    assert number_before_label(text("Find stories with no more than 14 read time.", (slider,))) != []
    assert number_before_label(text("Find stories with read time up to 14.", (slider,))) == []
    weeks = ask("filter_by_slider", "courses", label="Max weeks", values=["14"])
    assert number_before_label(text("Find courses with no more than 14 weeks.", (weeks,))) == []


def test_v4s_varied_words_pass_the_language_checks(
    world_items: list[ItemRecord], specs: dict[str, Spec]
) -> None:
    """params.yaml's (v4's) chains with hygiene off: no language problem left to refuse."""
    params = default_params(**{k: v for k, v in yaml.safe_load((ROOT / "params.yaml").read_text())["chains"].items()
                               if k in V3_CHAINS} | {"hygiene": False})  # fmt: skip
    chains = make_chains(world_items, params, specs)
    by_id = {r["id"]: r for r in world_items}
    found = [line for c in chains for k, v in problems_of(chain_text(c, by_id, specs)).items()
             if k in LANGUAGE for line in v]  # fmt: skip
    assert len(chains) == params.n and found == []
