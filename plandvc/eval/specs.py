"""eval-specs: the held-out chains, walked on the test sites only, and the planner inputs of every turn.

The records are pool-items' own, with the site split's roles swapped (`pool_items(held_out=True)`), so no
trajectory of a training site can enter; the walk is chain-specs' own, seeded by `eval.seed`. Each chain is
then run exactly as run-chains runs a training chain (the scripted planner in Chromium, replayed specialists,
every part gated) into `raw/`: its rows hold what the planner reads at each turn (the messages and the
screenshot), the input of the teacher-forced evaluation. Only chains whose scripted run passed every gate
and whose rows pass filter-rows' checks are held out; the others are counted by reason.

An existing folder is replaced only when it is a previous eval-specs output (only the entries below, its
summary.json the summary), checked before any work. The folder (published atomically):
- `items.jsonl`, `chains.jsonl`: the test-site records and the walked chains;
- `raw/`: run-chains' output for those chains (rows, screenshots, episodes, results);
- `specs.jsonl`: one line per held-out chain, sorted by key: `{key, site, parts, via, request, answer,
  turns: [{kind, family, instruction, macro, answer, role?}], failure?}` (a held-out recovery chain, made
  with `recovery_share` as chain-specs makes them, has its `failure` and every turn's `role`);
- `summary.json`: the counts (records, chains walked, held out, dropped by reason, turns by kind).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NotRequired, TypedDict, cast

from jsonschema import Draft202012Validator

from plandvc import io
from plandvc.agent.dialects import DEFAULT as DEFAULT_DIALECT
from plandvc.chains.items import pool_items, site_specs
from plandvc.chains.make import ChainParams, make_chains
from plandvc.memory.text import answer_text
from plandvc.records import Answer, ChainFailure, ChainGoal, Episode, TurnRole, Via
from plandvc.records import Turn as EpisodeTurn
from plandvc.rows.shape import shape_error
from plandvc.rows.validate import Reason, check_chain, check_key
from plandvc.run.chain import RunParams


@dataclass(frozen=True)
class Turn:
    """One turn of a held-out chain: a delegation (family, instruction, macro) or the final `done`."""

    kind: str  # "delegate" | "done"
    family: str | None
    instruction: str | None
    macro: str | None
    answer: Answer = None
    role: str | None = None  # in a recovery chain: "normal" or "after_failure"
    # an after_failure turn's task: the failed turn's own instruction, whose values a recovery must keep (the
    # right ones; the corrective instruction also names the wrong one, which a planner need not repeat)
    task: str | None = None
    # a delegation whose right instruction carries a value only an earlier turn's report revealed
    after_report: bool = False

    @property
    def needs(self) -> str:
        """The text whose values a delegation for this turn must keep."""
        return self.task if self.task is not None else self.instruction or ""

    @property
    def group(self) -> str:
        """The family a turn is scored under ("done" for the final turn)."""
        return self.family if self.kind == "delegate" and self.family else "done"


@dataclass(frozen=True)
class HeldOut:
    """A held-out chain: its line of specs.jsonl (key, site, parts, request, answer, failure...), the line's
    turns read as `Turn`s, and where its rows are (`dir`, inside `raw/`)."""

    line: SpecLine
    turns: list[Turn]
    dir: Path

    @property
    def dialect(self) -> str:
        """The dialect its rows were written in (episode.json's `dialect`; absent: plandvc-v1), the one the
        planner under test is sent."""
        return str(io.read_json(self.dir / "episode.json").get("dialect", DEFAULT_DIALECT))

    @property
    def marks(self) -> bool:
        """Whether its rows' screenshots carry the dialect's set-of-marks (episode.json's `marks`; absent: no),
        as the planner under test is sent them too."""
        return bool(io.read_json(self.dir / "episode.json").get("marks", False))

    @property
    def asks(self) -> bool:
        """Whether the chain asks a question (its done must carry the answer)."""
        return bool(answer_text(self.line["answer"]))

    @property
    def goal_kind(self) -> str:
        """The chain's goal kind (`records.ChainGoal`), or "walk" for a walked chain."""
        goal = self.line.get("goal")
        return str(goal["kind"]) if goal is not None else WALK


@dataclass
class SpecsConfig:
    pool: Path
    sites: Path
    out: Path
    n: int = 24
    # the walk's other defaults are the training chains' (`ChainParams`, chain-specs' params)
    seed: int = ChainParams.seed
    sizes: tuple[int, ...] = ChainParams.sizes
    tries: int = ChainParams.tries
    answer_share: float = ChainParams.answer_share
    recovery_share: float = ChainParams.recovery_share
    request: str = ChainParams.request  # or "composed" (plandvc.chains.compose), as `chains.request`
    goal_share: float = ChainParams.goal_share  # goal chains among the held-out ones (composed requests only)
    hygiene: bool = ChainParams.hygiene  # refuse the chains with a hygiene problem (`chains.hygiene`)
    phrasing: str = (
        ChainParams.phrasing
    )  # as chains.phrasing; varied: the held-out chains draw the held-out phrasings
    goal_kinds: str = ChainParams.goal_kinds  # their kinds (chains.goal_kinds; plandvc.chains.goal_kinds)
    # the phrasing set a varied request draws from: the held-out one for the evaluation; "training" makes the
    # same chains in the phrasings training rows use (the `template` reference's high mark)
    phrasing_set: str = "held-out"
    params: RunParams = field(default_factory=RunParams)
    workers: int = 1
    cache: Path = Path(".plandvc/cache/eval_chains")
    progress: bool = False


WALK = "walk"  # a held-out chain without a goal, as the metrics group it by goal kind
# v3's goal kinds read their answer off the list; the others use what the team finds (issue 45)
LIST_KINDS = frozenset({WALK, "count", "top"})


class SpecTurn(TypedDict):
    """A turn of a specs.jsonl line (`Turn` once read); `after_report` only on a delegation that carries a
    value only an earlier turn's report revealed (the episode's `found` values, by construction)."""

    kind: str
    family: str | None
    instruction: str | None
    macro: str | None
    answer: Answer
    role: NotRequired[TurnRole]
    after_report: NotRequired[bool]


class SpecLine(TypedDict):
    """A line of specs.jsonl: a held-out chain (`HeldOut.line` once read; `SPEC` checks it)."""

    key: str
    site: str
    parts: list[str]
    via: list[Via]
    request: str
    answer: Answer
    turns: list[SpecTurn]
    failure: NotRequired[ChainFailure]  # a held-out recovery chain's planned failure
    goal: NotRequired[ChainGoal]  # a held-out goal chain's ending


SPEC: dict[str, object] = {  # what load_held_out reads of a specs.jsonl line
    "type": "object",
    "required": ["key", "site", "parts", "via", "request", "answer", "turns"],
    "properties": {
        "key": {"type": "string"},
        "site": {"type": "string"},
        "parts": {"type": "array", "items": {"type": "string"}},
        "via": {"type": "array"},
        "request": {"type": "string"},
        "turns": {"type": "array", "items": {"type": "object", "required": ["kind"]}},
    },
}
_SPECS = Draft202012Validator(SPEC)


class SpecsSummary(TypedDict):
    """eval-specs' summary.json: the counts of records, chains walked and held out, drops and turns."""

    records: int
    records_by_site: dict[str, int]
    records_dropped: dict[str, int]
    chains: int
    held_out: int
    dropped: dict[str, int]
    by_size: dict[str, int]
    asking: int
    turns: int
    turns_by_kind: dict[str, int]
    seed: int
    recovery: NotRequired[dict[str, int]]
    # only when a held-out chain has a goal kind that uses what is found (v3's summaries keep their bytes)
    by_goal: NotRequired[dict[str, int]]
    turns_after_report: NotRequired[int]  # delegations carrying a value only an earlier report revealed


def spec_turn(t: EpisodeTurn) -> SpecTurn:
    """A turn of the episode as specs.jsonl holds it (`role` only in a recovery chain)."""
    turn: SpecTurn = {
        "kind": t["kind"],
        "family": t.get("family"),
        "instruction": t.get("instruction"),
        "macro": t.get("macro"),
        "answer": t.get("answer"),
    }
    if "role" in t:
        turn["role"] = t["role"]
    return turn


def found_value(t: EpisodeTurn) -> str | None:
    """The value a turn's report reveals (a goal's find step: the episode turn's `found`), or None."""
    found = cast(Mapping[str, object], t).get("found")
    return found if isinstance(found, str) and found else None


def report_turns(turns: Sequence[EpisodeTurn], request: str = "") -> list[bool]:
    """Per turn: a delegation whose instruction carries a value that only an earlier turn's report revealed
    (a found value, verbatim, that the user's request does not hold, and not in the turn that found it)."""
    found: list[str] = []
    out = []
    for t in turns:
        said = t.get("instruction") or ""
        out.append(t["kind"] == "delegate" and any(v in said for v in found))
        value = found_value(t)
        if value is not None and value not in request:
            found.append(value)
    return out


def spec_line(episode: Episode) -> SpecLine:
    """A held-out chain's line in specs.jsonl, from its episode.json."""
    turns = [spec_turn(t) for t in episode["turns"]]
    for turn, after in zip(turns, report_turns(episode["turns"], episode["instruction"]), strict=True):
        if after:
            turn["after_report"] = True
    line: SpecLine = {
        "key": episode["task_id"],
        "site": episode["site"],
        "parts": episode["parts"],
        "via": episode["via"],
        "request": episode["instruction"],
        "answer": episode["answer"],
        "turns": turns,
    }
    if "failure" in episode:
        line["failure"] = episode["failure"]
    if "goal" in episode:
        line["goal"] = episode["goal"]
    return line


COMMAND = "eval-specs"
# a previous eval-specs folder: only the entries it writes, and its summary.json
is_specs_out = io.owned_folder(
    ("items.jsonl", "chains.jsonl", "raw", "specs.jsonl", "summary.json"),
    "summary.json",
    lambda found: isinstance(found, dict) and {"held_out", "chains", "turns"} <= found.keys(),
)


def held_lines(raw: Path, results: Iterable[Mapping[str, object]]) -> tuple[list[SpecLine], dict[str, int]]:
    """The held-out lines of the chains that ran ok and pass filter-rows' checks (`raw/<key>/`), sorted by key,
    and what dropped the others by reason ("run: <error>", "rows: <kind>")."""
    dropped: Counter[str] = Counter()
    lines = []
    for res in results:
        key = str(res["key"])
        if not res["ok"]:
            dropped["run: " + str(res.get("error")).split(":")[0]] += 1
            continue
        got = check_chain(raw / key, key)
        if isinstance(got, Reason):
            dropped["rows: " + got.kind] += 1
            continue
        lines.append(spec_line(got.episode))
    return sorted(lines, key=lambda x: x["key"]), dict(sorted(dropped.items()))


def eval_specs(cfg: SpecsConfig) -> SpecsSummary:
    """Walk, run and check the held-out chains into `cfg.out`; returns the summary (also written). OUT is
    checked first and held (`io.exclusive`) while it is built."""
    io.check_output_dir(cfg.out, is_specs_out, COMMAND)
    with io.exclusive(cfg.out, COMMAND):
        return _eval_specs(cfg)


def _eval_specs(cfg: SpecsConfig) -> SpecsSummary:
    from plandvc.run.runner import RunConfig, run_chains

    records, report = pool_items(cfg.pool, cfg.sites, qa=True, held_out=True)
    if not records:
        raise io.InputError(
            f"{cfg.sites / 'site_split.json'}: no usable trajectory of a test site in {cfg.pool}"
        )
    walk = ChainParams(
        n=cfg.n,
        sizes=cfg.sizes,
        seed=cfg.seed,
        tries=cfg.tries,
        answer_share=cfg.answer_share,
        recovery_share=cfg.recovery_share,
        request=cfg.request,
        goal_share=cfg.goal_share,
        hygiene=cfg.hygiene,
        phrasing=cfg.phrasing,
        phrasing_set=cfg.phrasing_set,
        goal_kinds=cfg.goal_kinds,
    )
    chains = make_chains(records, walk, site_specs(cfg.sites) if cfg.goal_share or cfg.hygiene else None)
    tmp = io.staging(cfg.out)
    io.write_jsonl(tmp / "items.jsonl", records)
    io.write_jsonl(tmp / "chains.jsonl", chains)
    run_chains(
        RunConfig(
            chains=tmp / "chains.jsonl",
            pool=cfg.pool,
            sites=cfg.sites,
            out=tmp / "raw",
            params=cfg.params,
            workers=cfg.workers,
            cache=cfg.cache,
            progress=cfg.progress,
        )
    )
    lines, dropped = held_lines(tmp / "raw", io.read_jsonl(tmp / "raw" / "results.jsonl"))
    io.write_jsonl(tmp / "specs.jsonl", lines)
    turns = [t for x in lines for t in x["turns"]]
    summary: SpecsSummary = {
        "records": len(records),
        "records_by_site": report["by_site"],
        "records_dropped": report["dropped"],
        "chains": len(chains),
        "held_out": len(lines),
        "dropped": dropped,
        "by_size": dict(sorted(Counter(str(len(x["parts"])) for x in lines).items())),
        "asking": sum(bool(answer_text(x["answer"])) for x in lines),
        "turns": len(turns),
        "turns_by_kind": dict(sorted(Counter(t["kind"] for t in turns).items())),
        "seed": cfg.seed,
    }
    recovering = Counter(x["failure"]["kind"] for x in lines if "failure" in x)
    if recovering:  # only with held-out recovery chains
        summary["recovery"] = dict(sorted(recovering.items()))
    kinds = Counter(x["goal"]["kind"] if "goal" in x else WALK for x in lines)
    if set(kinds) - LIST_KINDS:
        summary["by_goal"] = dict(sorted(kinds.items()))
    after = sum(bool(t.get("after_report")) for t in turns)
    if after:
        summary["turns_after_report"] = after
    io.write_json(tmp / "summary.json", summary)
    io.publish_dir(tmp, cfg.out)
    return summary


def held_out(line: SpecLine, folder: Path) -> HeldOut:
    """The held-out chain of a specs.jsonl line whose rows are in `folder`: an after_failure turn's task is the
    failed turn's instruction (the turn before it)."""
    turns: list[Turn] = []
    for t in line["turns"]:
        after = t.get("role") == "after_failure" and turns
        task = turns[-1].instruction if after else None
        turns.append(
            Turn(
                t["kind"],
                t.get("family"),
                t.get("instruction"),
                t.get("macro"),
                t.get("answer"),
                t.get("role"),
                task,
                t.get("after_report", False),
            )
        )
    return HeldOut(line, turns, folder)


def load_held_out(specs: Path) -> list[HeldOut]:
    """The held-out chains of an eval-specs folder, sorted by key; a bad line is an InputError naming it."""
    path = specs / "specs.jsonl"
    out = []
    for n, line in enumerate(io.read_jsonl(path), 1):
        where = f"{path}:{n}"
        problem = shape_error(SPEC, _SPECS, line)
        if problem is not None:
            raise io.InputError(f"{where}: not a held-out chain ({problem})")
        held = held_out(line, specs / "raw" / check_key(line["key"], where))
        turns = held.turns
        if not turns or turns[-1].kind != "done" or any(t.kind not in ("delegate", "done") for t in turns):
            raise io.InputError(f"{where}: turns must be delegations ending on one done")
        out.append(held)
    if not out:
        raise io.InputError(f"{path}: no held-out chain (run eval-specs first)")
    return sorted(out, key=lambda h: h.line["key"])
