"""The `template` reference planner: its parsers come from the phrasing registry's training forms, so it reads
requests worded in training phrasings and not those worded in held-out ones. End to end: the same six held-out
chains of the school test site made twice by eval-specs (training phrasings, held-out phrasings), run in real
Chromium, and the template planner served over real HTTP and scored teacher-forced by the strict rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plandvc.chains.phrasing import PHRASINGS, SETS, PhrasingSplit
from plandvc.eval.closed import LoopConfig
from plandvc.eval.run import EvalConfig, evaluate
from plandvc.eval.specs import SpecsConfig, eval_specs, load_held_out
from plandvc.eval.template import form_regex, live_answer, read_request, steps, training_forms

ROOT = Path(__file__).resolve().parents[1]
POOL, SITES = ROOT / "data" / "pool", ROOT / "data" / "sites"
N = 6


@pytest.fixture(scope="module")
def chain_sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same six held-out chains (goal chains among them, as params.yaml's eval) in training and in held-out
    phrasings (composed, varied requests)."""
    root = tmp_path_factory.mktemp("template")
    out = {}
    for which in SETS:
        cfg = SpecsConfig(POOL, SITES, root / which, n=N, seed=0, workers=2, cache=root / "cache",
                          request="composed", goal_share=0.4, phrasing="varied", phrasing_set=which)  # fmt: skip
        assert eval_specs(cfg)["held_out"] == N
        out[which] = root / which
    return out


def teacher_forced(specs: Path, out: Path) -> dict[str, float]:
    cfg = EvalConfig(specs=specs, out=out / "run", metrics=out / "eval.json", loop=LoopConfig(POOL, SITES),
                     mode="teacher-forced", reference="template")  # fmt: skip
    return evaluate(cfg)["teacher_forced"]


def test_the_two_sets_ask_the_same_steps_in_other_words(chain_sets: dict[str, Path]) -> None:
    train, held = (load_held_out(chain_sets[w]) for w in SETS)
    assert [c.line["key"] for c in train] == [c.line["key"] for c in held]
    assert [[t.instruction for t in c.turns] for c in train] == [
        [t.instruction for t in c.turns] for c in held
    ]
    assert all(a.line["request"] != b.line["request"] for a, b in zip(train, held, strict=True))


def test_template_is_high_on_training_phrasings_and_low_on_held_out_ones(
    chain_sets: dict[str, Path], tmp_path: Path
) -> None:
    train = teacher_forced(chain_sets["training"], tmp_path / "training")
    held = teacher_forced(chain_sets["held-out"], tmp_path / "held-out")
    assert train["turns"] == held["turns"] > 0
    assert train["step_accuracy"] >= 0.8, train
    assert held["step_accuracy"] <= 0.45, held
    assert all(read_request(c.line["request"]) is not None for c in load_held_out(chain_sets["training"]))


def test_parsers_are_the_training_forms_and_no_held_out_one() -> None:
    split = PhrasingSplit(0)
    for kind in ("open", "max", "sort.number.desc", "search", "open_entry"):
        forms = PHRASINGS[kind]
        regexes = training_forms(kind)
        assert len(regexes) == len(split.usable(kind, "training"))
        for i in split.usable(kind, "held-out"):  # a held-out form's own words are not read as that kind
            said = forms[i].format(np="courses", l="credits", v="3", e="Algebra", s="course", p="courses")
            assert not any(r.fullmatch(said) for r in regexes), forms[i]


def test_a_form_added_to_the_registry_is_read_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Derived, not copied: new phrasings of a constraint are parsed with no code changed when the split draws
    them for training, and stay unread when it holds them out."""
    new = ("that weigh at most {v} {l}", "that run to at most {v} {l}", "that reach at most {v} {l}")
    opening = PHRASINGS["open"][PhrasingSplit(0).usable("open", "training")[0]]
    requests = [opening.format(np="courses " + f.format(v="3", l="credits")) for f in new]
    training_forms.cache_clear()
    assert all(read_request(r) is None for r in requests)
    monkeypatch.setitem(PHRASINGS, "max", (*PHRASINGS["max"], *new))
    training_forms.cache_clear()
    try:
        first = len(PHRASINGS["max"]) - len(new)
        usable = PhrasingSplit(0).usable("max", "training")
        read = [read_request(r) for r in requests]
        assert [p is not None for p in read] == [first + i in usable for i in range(len(new))]
        assert any(p is not None for p in read)  # the split drew one of them for training
        for plan in (p for p in read if p is not None):
            (part,) = plan.runs[0]
            assert (part.macro, part.slots["v"], part.slots["l"]) == ("filter_by_slider", "3", "credits")
    finally:
        monkeypatch.undo()
        training_forms.cache_clear()


def test_form_regex_slots_and_words() -> None:
    rx = form_regex('open the {s} "{e}"')
    m = rx.fullmatch('Open the course "Algebra, part 2".')
    assert m is not None and m.group("e") == "Algebra, part 2"
    assert rx.fullmatch('open the course "Algebra" now') is None


def test_the_training_phrasings_folder_is_made_by_the_cli_byte_for_byte_and_scored_teacher_forced_only(
    chain_sets: dict[str, Path], tmp_path: Path
) -> None:
    """The pipeline's eval_specs_training and eval_reference_training: `eval-specs --phrasing-set training`
    writes the fixture's training folder again byte for byte; the template scored teacher-forced twice gives
    the same bytes and no closed loop."""
    from run_helpers import plandvc

    cli = tmp_path / "cli"
    got = plandvc("eval-specs", "--pool", POOL, "--sites", SITES, "--out", cli, "--n", N, "--seed", 0,
                  "--request", "composed", "--goal-share", 0.4, "--phrasing", "varied", "--phrasing-set",
                  "training", "--workers", 2, "--cache", tmp_path / "cache")  # fmt: skip
    assert got.returncode == 0, got.stderr
    for name in ("specs.jsonl", "summary.json"):
        assert (cli / name).read_bytes() == (chain_sets["training"] / name).read_bytes(), name
    wrong = plandvc(
        "eval-specs", "--pool", POOL, "--sites", SITES, "--out", tmp_path / "x", "--phrasing-set", "heldout"
    )
    assert wrong.returncode != 0 and "--phrasing-set" in wrong.stderr
    outs = []
    for i in (1, 2):
        out, metrics = tmp_path / f"tf{i}", tmp_path / f"tf{i}.json"
        ran = plandvc("eval-planner", "--specs", cli, "--pool", POOL, "--sites", SITES, "--out", out,
                      "--metrics", metrics, "--reference", "template", "--mode", "teacher-forced")  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        outs.append((metrics.read_bytes(), (out / "replies.jsonl").read_bytes()))
        assert "closed_loop" not in json.loads(metrics.read_text())
    assert outs[0] == outs[1]
    assert json.loads(outs[0][0])["teacher_forced"]["step_accuracy"] >= 0.8


def test_a_live_goal_in_training_forms_is_read_back_into_its_steps() -> None:
    """The goal kinds with live steps (detail, lookup, compare, act): the request in training forms read back
    into its constraints, the find, the open of the reported name and each read, in the composer's words."""
    split = PhrasingSplit(0)

    def form(kind: str) -> str:
        return PHRASINGS[kind][split.usable(kind, "training")[0]]

    x = form("find.sorted").format(
        s="course", np="courses with credits up to 3", sup=form("sup.number.desc").format(l="rating")
    )
    request = form("goal.detail").format(x=x, X=x[:1].upper() + x[1:], f="level and teacher")
    plan = read_request(request)
    assert plan is not None and plan.live is not None, request
    assert [p.macro for p in plan.runs[0]] == ["filter_by_slider", "sort_by_form"]
    assert plan.live.fields == ["level", "teacher"] and plan.live.sorted
    todo = steps(plan, "", "School", ["Algebra", "Advanced", "Ms Lee"])
    assert todo[2:] == [
        ("Information", "Read the name of the first course shown, as the list is sorted now."),
        ("Navigation", 'Open the course "Algebra".'),
        ("Information", 'Read the Level of the course "Algebra".'),
        ("Information", 'Read the Teacher of the course "Algebra".'),
    ]
    assert live_answer(plan.live, ["Algebra", "Advanced", "Ms Lee"]) == "Advanced and Ms Lee"
    held = PHRASINGS["goal.detail"][split.usable("goal.detail", "held-out")[0]]
    assert (
        read_request(held.format(x=x, X=x, f="level")) is None
        or read_request(held.format(x=x, X=x, f="level")).live is None
    )  # a held-out form of the goal is not read as one


def test_v3s_words_are_read_by_the_registry_v4_was_made_with(tmp_path: Path) -> None:
    """Held-out chains in v3's words (no phrasing recorded) are read by the frozen registry, so the registry
    can grow without changing v3's template replies; a form added since is read only by today's."""
    from plandvc.eval.reference import varied_words
    from plandvc.eval.template import frozen, frozen_forms, training_texts

    added = "Ping me when you have it."  # a closing registered after v4 was made
    assert added in PHRASINGS["closing"] and added not in frozen_forms()["closing"]
    with frozen(True):
        assert added not in training_texts("closing", 0)
        said = training_texts("closing", 0)
    assert said == [
        frozen_forms()["closing"][i]
        for i in PhrasingSplit(0).usable("closing", "training", frozen_forms()["closing"])
    ]
    assert training_texts("closing", 0) != said
    folder = tmp_path / "specs"
    (folder / "raw" / "k").mkdir(parents=True)
    (folder / "chains.jsonl").write_text('{"key": "k"}\n')
    chain = type("C", (), {"dir": folder / "raw" / "k"})()
    assert not varied_words([chain])  # type: ignore[list-item]
    (folder / "chains.jsonl").write_text('{"key": "k", "phrasing": {"set": "held-out"}}\n')
    assert varied_words([chain])  # type: ignore[list-item]
