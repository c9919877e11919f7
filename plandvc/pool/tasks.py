"""Task generation: a site spec -> single-primitive tasks for every registered macro, seeded and pure.

Each macro's generator (`Macro.tasks`, with a `plandvc.macros.make.TaskMaker`) lists its candidate tasks of a
site in a fixed order; here they are sampled, numbered `<site>-<macro>-<nnnn>` and given their start kind. Each
task names its start, the control it uses, the check its gate runs and the scope it reads or changes
(docs/ARCHITECTURE.md, "Pool"). Every expected value (answers, counts, created fields) is computed from the
spec's own rows, and every name, label, number and value an executor needs is written in the instruction
exactly, so a rewrite of it can be checked for keeping them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from plandvc.macros import Macro, registered_macros
from plandvc.macros.make import PER_MACRO, TaskMaker
from plandvc.records import PoolTask, TaskDraft
from plandvc.sites.spec import Spec

MID_CHAIN_SHARE = 0.06  # of the tasks of a macro with `mid_chain_after`: they assume an earlier step
KEEP_SHARE = 0.05  # of the tasks of a macro that `keeps_state`: they keep state from an earlier task


def candidates(m: Macro, spec: Spec, site_name: str, rng: random.Random) -> list[TaskDraft]:
    """The macro's candidate tasks on one site; each is checked to be of the macro's check and scope kinds."""
    drafts = list(m.tasks(TaskMaker(spec, site_name, m.name, m.phrases), rng))
    for d in drafts:
        kinds = {token.split(":", 1)[0] for token in d["scope"]}
        if d["check"]["kind"] != m.check or not kinds <= m.scope:
            raise ValueError(
                f"macro {m.name}: a task of check {d['check']['kind']!r} and scope {sorted(kinds)} "
                f"(the macro declares {m.check!r} and {sorted(m.scope)})"
            )
    return drafts


def site_tasks(
    spec: Spec, seed: int = 0, site_name: str | None = None, per_macro: int = PER_MACRO
) -> list[PoolTask]:
    """All tasks of one site, numbered `<site>-<macro>-<nnnn>`; a function of (spec, seed) only."""
    out: list[PoolTask] = []
    for m in registered_macros():
        rng = random.Random(f"{seed}:{spec.site}:{m.name}")
        cands = candidates(m, spec, site_name or spec.name, rng)
        picked = sorted(rng.sample(range(len(cands)), min(per_macro, len(cands))))
        for n, i in enumerate(picked):
            task: PoolTask = {**cands[i], "task_id": f"{spec.site}-{m.name}-{n:04d}", "history_macro": None}
            if m.mid_chain_after and rng.random() < MID_CHAIN_SHARE:
                task["start"]["kind"] = "mid_chain"
                task["history_macro"] = m.mid_chain_after
            elif m.keeps_state and rng.random() < KEEP_SHARE:
                task["start"]["keep"] = True
            out.append(task)
    return out


def generate(
    specs: Mapping[str, Spec],
    seed: int = 0,
    names: Mapping[str, str] | None = None,
    per_macro: int = PER_MACRO,
) -> list[PoolTask]:
    """The tasks of every site, sorted by task id."""
    out: list[PoolTask] = []
    for site in sorted(specs):
        out += site_tasks(specs[site], seed, (names or {}).get(site), per_macro)
    return sorted(out, key=lambda t: t["task_id"])
