"""chain-specs: the walk is the plain walk draw for draw, its chains obey every rule, and each rule can fail."""

from __future__ import annotations

import hashlib
import random
from collections import Counter, defaultdict
from typing import Any

import pytest
from chain_pools import can_chain, check_rules, dump, home_after_url_state, pools, rec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plandvc.chains.walk import HOME_RULES, chain_key, chain_specs, next_via
from plandvc.io import InputError
from plandvc.macros import REGISTRY

# The chain roles as the rules were first written, set by set; the registry's Macro records must give the same.
# the query-state parts: the filters, the sort, and paging to a page of a list (go_to_page, the world's)
URL_STATE = frozenset(
    {
        "filter_by_dropdown",
        "filter_by_options",
        "filter_by_slider",
        "filter_by_date_range",
        "sort_by_form",
        "go_to_page",
        "switch_tab",
    }
)
CHAIN_FIRST = URL_STATE | {"search_by_text", "choose_suggestion"}
CHAIN_SECOND = URL_STATE | {"search_by_text", "choose_suggestion", "copy_value"}

PROPS = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


# ── the plain walk, written literally (O(n²) per step), as the reference ─


def plain_next(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    if a["answers"]:
        return None
    if (
        a["macro"] in CHAIN_FIRST
        and a["stays"]
        and b["fresh"]
        and b["start"] == a["start"]
        and (b["macro"] in CHAIN_SECOND or b["answers"])
    ):
        return "page"
    if b["home_start"] and a["macro"] not in URL_STATE:
        return "home"
    return None


def plain_chain_specs(
    items, n_chains, sizes=(2, 3, 4), seed=0, tries=40, answer_share=0.5, home_rule="neighbour"
):
    """The plain walk; `home_rule="any_earlier"` adds the one new filter: no home step after a URL-state part."""
    by_site = defaultdict(list)
    for r in sorted(items, key=lambda r: r["id"]):
        by_site[r["site"]].append({**r, "scope": set(r["scope"])})
    rng, out, seen = random.Random(seed), [], set()
    sites = sorted(by_site)
    misses = Counter()
    while len(out) < n_chains and sites:
        for site in list(sites):
            if len(out) >= n_chains:
                break
            recs = by_site[site]
            got = None
            for _ in range(tries):
                k = rng.choice(sizes)
                a = rng.choice(recs)
                if a["answers"]:
                    continue
                chain = [(a, None)]
                while len(chain) < k:
                    used = {r["id"] for r, _ in chain}
                    ctrls = {r["control"] for r, _ in chain}
                    scopes = set().union(*(r["scope"] for r, _ in chain))
                    last = chain[-1][0]
                    nxt = [
                        (b, v)
                        for b in recs
                        if b["id"] not in used
                        and b["control"] not in ctrls
                        and not (b["scope"] & scopes)
                        and (v := plain_next(last, b))
                        and not (
                            home_rule == "any_earlier"
                            and v == "home"
                            and any(r["macro"] in URL_STATE for r, _ in chain)
                        )
                    ]
                    if not nxt:
                        break
                    ans = [x for x in nxt if x[0]["answers"]]
                    if len(chain) == k - 1 and ans and rng.random() < answer_share:
                        chain.append(rng.choice(ans))
                        break
                    nxt = [x for x in nxt if not x[0]["answers"]] or nxt
                    page = [x for x in nxt if x[1] == "page"]
                    chain.append(rng.choice(page if page and rng.random() < 0.75 else nxt))
                    if chain[-1][0]["answers"]:
                        break
                key = "+".join(r["id"] for r, _ in chain)
                if len(chain) >= 2 and key not in seen:
                    got = chain
                    seen.add(key)
                    break
            if got:
                out.append(got)
            else:
                misses[site] += 1
                if misses[site] >= 3:
                    sites.remove(site)
    rng.shuffle(out)
    return [
        {
            "key": f"plan-{c[0][0]['site']}-"
            + hashlib.sha1("+".join(r["id"] for r, _ in c).encode()).hexdigest()[:10],
            "site": c[0][0]["site"],
            "parts": [{"id": r["id"], "via": v} for r, v in c],
        }
        for c in out
    ]


# ── properties over generated pools ───────────────────────────────────────────


@PROPS
@given(pools(), st.integers(0, 2**32 - 1), st.sampled_from([(2,), (2, 3, 4), (3, 4), (4,)]), st.floats(0, 1))
def test_walk_is_the_plain_walk(records, seed, sizes, share) -> None:
    """The precomputed walk gives exactly the chains of the literal plain walk (same draws, same order): under
    the neighbour rule byte for byte the plain walk's chains, under any_earlier the plain walk with the one
    extra filter."""
    for rule in HOME_RULES:
        got = chain_specs(records, 30, sizes, seed, 40, share, home_rule=rule)
        want = plain_chain_specs(records, 30, sizes, seed, 40, share, home_rule=rule)
        assert dump(got) == dump(want), rule


@PROPS
@given(pools(), st.integers(0, 2**32 - 1), st.sampled_from([(3,), (2, 3, 4), (4,)]))
def test_no_trip_home_after_a_url_state_part(records, seed, sizes) -> None:
    """Under the default rule no chain has the failing shape; the neighbour rule's chains are a superset of
    shapes (every neighbour chain without the shape obeys the new rule too)."""
    by_id = {r["id"]: r for r in records}
    new = chain_specs(records, 40, sizes, seed=seed)
    assert new == chain_specs(records, 40, sizes, seed=seed, home_rule="any_earlier")
    assert not any(home_after_url_state(c, by_id) for c in new)
    old = chain_specs(records, 40, sizes, seed=seed, home_rule="neighbour")
    check_rules(old, records, home_rule="neighbour")


@PROPS
@given(pools(), st.integers(0, 2**32 - 1))
def test_every_chain_obeys_the_rules(records, seed) -> None:
    chains = chain_specs(records, 40, seed=seed)
    check_rules(chains, records)
    assert len(chains) <= 40


@PROPS
@given(pools(max_sites=4), st.integers(0, 1000))
def test_every_site_that_can_chain_contributes(records, seed) -> None:
    by_site = defaultdict(list)
    for r in records:
        by_site[r["site"]].append(r)
    chains = chain_specs(records, 200, seed=seed)
    contributed = {c["site"] for c in chains}
    assert contributed == {s for s, recs in by_site.items() if can_chain(recs)}


@PROPS
@given(pools(), st.integers(0, 1000))
def test_same_seed_same_bytes_and_input_order_does_not_matter(records, seed) -> None:
    a = dump(chain_specs(records, 25, seed=seed))
    assert dump(chain_specs(list(reversed(records)), 25, seed=seed)) == a


def big_pool() -> list[dict[str, Any]]:
    """Three sites, each with a page of filters and a home page of navigations: thousands of possible chains."""
    out = []
    for s in ("a", "b", "c"):
        for k in range(12):
            out.append(rec(f"{s}-f{k:02d}", s, scope=[f"q{k}"]))
            out.append(
                rec(
                    f"{s}-h{k:02d}",
                    s,
                    macro="navigate_to_page",
                    start=f"/sites/{s}",
                    home_start=True,
                    scope=[f"v{k}"],
                    stays=False,
                )
            )
    return out


def test_another_seed_gives_other_chains() -> None:
    records = big_pool()
    a, b = chain_specs(records, 60, seed=1), chain_specs(records, 60, seed=2)
    assert dump(a) == dump(chain_specs(records, 60, seed=1))
    assert dump(a) != dump(b)
    assert {c["key"] for c in a} != {c["key"] for c in b}
    check_rules(a, records)
    assert Counter(c["site"] for c in a) == {"a": 20, "b": 20, "c": 20}  # sites take turns


def test_chain_key_format() -> None:
    ids = ["shop-x-0001", "shop-y-0002"]
    want = "plan-shop-" + hashlib.sha1(b"shop-x-0001+shop-y-0002").hexdigest()[:10]
    assert chain_key("shop", ids) == want
    assert chain_key("shop", list(reversed(ids))) != want


# ── next_via, and each rule failing ───────────────────────────────────────────


def test_next_via_cases() -> None:
    f = rec("f")  # a filter that stays on /sites/shop/orders
    s = rec("s", macro="sort_by_form")
    q = rec("q", macro="count_entries", answers=True)
    home = rec("h", macro="navigate_to_page", start="/sites/shop", home_start=True)
    search = rec("x", macro="search_by_text")
    assert next_via(f, s) == "page"
    assert next_via(f, q) == "page"  # a question may follow on the page
    assert next_via(f, home) is None  # a trip home would undo the filter
    assert next_via(search, home) == "home"  # search is checked on pages seen, not the last one
    assert next_via(q, s) is None  # nothing follows an answer
    assert next_via(rec("g", stays=False), s) is None  # a did not stay on its page
    assert next_via(f, rec("t", fresh=False)) is None  # b does not start fresh
    assert next_via(f, rec("u", start="/sites/shop/items")) is None  # another page
    assert next_via(f, rec("e", macro="edit_entry")) is None  # not a chain-second macro
    assert next_via(rec("n", macro="navigate_to_page"), s) is None  # not a chain-first macro
    assert next_via(home, home) == "home"


def test_only_a_forbidden_transition_yields_no_chain() -> None:
    """Four sites, each with one transition the rules forbid (in both directions)."""
    records = [
        rec("a-1"),  # a filter, then a trip home: the trip home would undo the filter
        rec("a-2", "a", macro="navigate_to_page", start="/sites/a", home_start=True, stays=False),
        rec(
            "b-1", "b", macro="edit_entry"
        ),  # edit, then edit on the same page: not chain-first / chain-second
        rec("b-2", "b", macro="edit_entry"),
        rec("c-1", "c", stays=False),  # filters that do not stay on their page
        rec("c-2", "c", macro="sort_by_form", stays=False),
        rec("d-1", "d", macro="search_by_text", fresh=False),  # the next part does not start fresh
        rec("d-2", "d", macro="search_by_text", fresh=False),
    ]
    records[0]["site"] = "a"
    records[0]["start"] = "/sites/a/orders"
    assert all(
        next_via(a, b) is None for a in records for b in records if a is not b and a["site"] == b["site"]
    )
    assert chain_specs(records, 10, seed=0) == []
    # make one of them allowed (c-1 stays now): exactly the chain c-1 -> c-2 appears
    records[4] = {**records[4], "stays": True}
    chains = chain_specs(records, 10, seed=0)
    assert [[p["id"] for p in c["parts"]] for c in chains] == [["c-1", "c-2"]]
    assert chains[0]["parts"][1]["via"] == "page"


def shape_pool() -> list[dict[str, Any]]:
    """One site where the only 3-part chains are filter -(page)-> search -(home)-> navigation, the failing shape."""
    return [
        rec("a-f", "a", start="/sites/a/orders"),
        rec("a-s", "a", macro="search_by_text", start="/sites/a/orders"),
        rec("a-h", "a", macro="navigate_to_page", start="/sites/a", home_start=True, stays=False),
    ]


def test_the_home_rule_can_refuse_every_chain_of_a_shape() -> None:
    """A pool whose only 3-part chain has the failing shape: the neighbour rule makes it, the default never."""
    records = shape_pool()
    by_id = {r["id"]: r for r in records}
    old = chain_specs(records, 50, sizes=(3,), seed=0, home_rule="neighbour")
    assert [[(p["id"], p["via"]) for p in c["parts"]] for c in old if len(c["parts"]) == 3] == [
        [("a-f", None), ("a-s", "page"), ("a-h", "home")]
    ]
    assert any(home_after_url_state(c, by_id) for c in old)
    for seed in range(20):
        new = chain_specs(records, 50, sizes=(3,), seed=seed)
        assert new and not any(home_after_url_state(c, by_id) for c in new)
        assert all(len(c["parts"]) == 2 for c in new)  # the walk stops instead of going home
    # the check itself fails on the old chains
    try:
        check_rules(old, records)
    except AssertionError:
        pass
    else:
        raise AssertionError("check_rules passed a chain with a trip home after a filter")


def test_unknown_home_rule_is_an_input_error() -> None:
    with pytest.raises(InputError, match="home_rule: expected one of any_earlier, neighbour, got 'nope'"):
        chain_specs(shape_pool(), 5, home_rule="nope")


def test_shared_scope_or_control_is_never_chained() -> None:
    shared = [rec("a", scope=["table:orders"]), rec("b", macro="sort_by_form", scope=["table:orders", "x"])]
    assert chain_specs(shared, 10) == []
    assert chain_specs([rec("a", control="k"), rec("b", macro="sort_by_form", control="k")], 10) == []
    assert len(chain_specs([rec("a"), rec("b", macro="sort_by_form")], 10)) == 2  # a->b and b->a


def test_answers_only_at_the_end() -> None:
    records = [rec(f"f{k}") for k in range(6)] + [
        rec(f"q{k}", macro="count_entries", answers=True) for k in range(3)
    ]
    chains = chain_specs(records, 200, sizes=(4,), seed=3)
    check_rules(chains, records)
    assert all(len(c["parts"]) == 4 for c in chains)  # the walk never ends early on a question at step 2 or 3


def test_n_caps_and_the_walk_ends_when_sites_run_out() -> None:
    records = [rec("a"), rec("b", macro="sort_by_form")]
    assert len(chain_specs(records, 1)) == 1
    assert len(chain_specs(records, 100)) == 2  # only two distinct chains exist


# ── statistics with fixed seeds ───────────────────────────────────────────────
#
# Both pools make every chain a 2-part chain whose first part is one of S "openers": a search on one page
# (same control and scope, so two openers never chain; not fresh, so no opener is a candidate). Every other
# record is a dead end as a first part (it does not stay), so chains look like opener -> candidate.
# Duplicates are redrawn by the walk; with S·(candidates) ≫ draws² / 2 the redraws (a few percent)
# move the shares by well under a percent, so the tolerance is 4 binomial standard deviations plus 0.01.


def openers(n: int, **kw: Any) -> list[dict[str, Any]]:
    return [
        rec(
            f"o{k:04d}",
            macro="search_by_text",
            control="search",
            scope=["query:/sites/shop/orders:q"],
            fresh=False,
            **kw,
        )
        for k in range(n)
    ]


def test_share_ending_on_a_question_matches_answer_share() -> None:
    """At the last position with both answering and other candidates, the chain ends on a question with
    probability answer_share exactly (the seed draws random() < answer_share once)."""
    records = openers(400)
    records += [rec(f"f{k:02d}", stays=False) for k in range(20)]
    records += [rec(f"q{k:02d}", macro="count_entries", answers=True, stays=False) for k in range(20)]
    answering = {r["id"] for r in records if r["answers"]}
    n = 600
    for share in (0.5, 0.3):
        chains = chain_specs(records, n, sizes=(2,), seed=7, answer_share=share)
        check_rules(chains, records)
        assert len(chains) == n and all(c["parts"][0]["id"].startswith("o") for c in chains)
        got = sum(c["parts"][-1]["id"] in answering for c in chains) / n
        tol = 4 * (share * (1 - share) / n) ** 0.5 + 0.01
        assert abs(got - share) < tol, (share, got, tol)
    assert not any(
        c["parts"][-1]["id"] in answering for c in chain_specs(records, 200, sizes=(2,), answer_share=0)
    )
    assert all(
        c["parts"][-1]["id"] in answering for c in chain_specs(records, 200, sizes=(2,), answer_share=1)
    )


def test_page_over_home_is_three_to_one() -> None:
    """With p page and h home candidates, P(page) = 0.75 + 0.25 · p / (p + h): 0.75 from the page list, and the
    uniform draw over all candidates otherwise. Here p = h = 20, so 0.875, a page:home ratio of 7:1."""
    records = openers(400)
    records += [rec(f"f{k:02d}", stays=False) for k in range(20)]
    records += [
        rec(
            f"h{k:02d}",
            macro="navigate_to_page",
            start="/sites/shop",
            home_start=True,
            stays=False,
            scope=[f"nav{k}"],
        )
        for k in range(20)
    ]
    chains = [
        c for c in chain_specs(records, 700, sizes=(2,), seed=11) if c["parts"][0]["id"].startswith("o")
    ]
    check_rules(chains, records)
    n = len(chains)
    assert n >= 500
    page = sum(c["parts"][1]["via"] == "page" for c in chains) / n
    expected = 0.75 + 0.25 * 20 / 40
    tol = 4 * (expected * (1 - expected) / n) ** 0.5 + 0.01
    assert abs(page - expected) < tol, (page, expected, tol)
    # and with no page candidate at all, every opener goes home
    no_page = [r for r in records if not r["id"].startswith("f")]
    assert all(
        c["parts"][1]["via"] == "home"
        for c in chain_specs(no_page, 100, sizes=(2,))
        if c["parts"][0]["id"][0] == "o"
    )


def test_the_registry_gives_the_chain_roles_the_rules_were_written_in() -> None:
    """Each role set, read off the Macro records, is the set the plain walk above is written in; and the
    question macros are exactly the answer-checked ones."""
    assert {n for n, m in REGISTRY.items() if m.url_state} == URL_STATE
    assert {n for n, m in REGISTRY.items() if m.leaves_page} == CHAIN_FIRST
    assert {n for n, m in REGISTRY.items() if m.continues_page} == CHAIN_SECOND
    assert {n for n, m in REGISTRY.items() if m.question} == {"report_information", "count_entries"}
