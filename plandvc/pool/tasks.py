"""Task generation: a site spec -> single-primitive tasks for all 14 macros, seeded and pure.

Each task names its start, the control it uses, the check its gate runs and the scope it reads or changes
(docs/ARCHITECTURE.md, "Pool"). Every expected value (answers, counts, created fields) is computed from the spec's
own rows, and every name, label, number and value an executor needs is written in the instruction exactly
(labels and values in double quotes), so a rewrite of it can be checked for keeping them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from plandvc.macros import FAMILY_OF, home_path
from plandvc.pool.prep import fmt
from plandvc.records import Control as TaskControl
from plandvc.records import PoolTask, TaskDraft
from plandvc.sites.query import select_rows
from plandvc.sites.spec import Control, Page, Spec, Table
from plandvc.sites.state import next_id

MACROS = tuple(FAMILY_OF)  # the order tasks are generated and numbered in
PER_MACRO = 8  # tasks per (site, macro), fewer when the site has fewer distinct ones
MID_CHAIN_SHARE = 0.06  # of the tasks of the macros below: they assume an earlier step
MID_CHAIN_HISTORY = {
    "filter_by_dropdown": "navigate_to_page",
    "sort_by_form": "navigate_to_page",
    "open_entry": "filter_by_dropdown",
    "copy_value": "open_entry",
}
KEEP_SHARE = 0.05  # of the tasks of these macros: they keep state from an earlier task
KEEP_MACROS = frozenset({"report_information", "copy_value"})

PHRASES: dict[str, tuple[str, ...]] = {
    "navigate_to_page": (
        'Go to the "{title}" page.',
        'Open the "{title}" page of the site.',
        'Navigate to the "{title}" list.',
    ),
    "open_entry": (
        'Open the {singular} "{entry}".',
        'Go to the details of the {singular} "{entry}".',
        'Show the detail page of the {singular} "{entry}".',
    ),
    "navigate_home": (
        "Go back to the home page of {site_name}.",
        "Return to the {site_name} home page using the site's home link.",
        "Navigate to the home page of {site_name}.",
    ),
    "filter_by_dropdown": (
        'Show only the {plural} whose {label} is "{value}".',
        'Filter the {plural} by {label} "{value}".',
        'Use the {label} filter to list only {plural} with {label} "{value}".',
    ),
    "filter_by_options": (
        "Show only the {plural} whose {label} is {values}.",
        "Filter the {plural} to {label} {values} using the checkboxes.",
        "Tick {values} under {label} to list only those {plural}.",
    ),
    "filter_by_slider": (
        "Show only the {plural} with {label} up to {value}.",
        "Set the {label} slider to {value}.",
        "Use the {label} slider to limit the {plural} to {value} at most.",
    ),
    "filter_by_date_range": (
        'Show only the {plural} with {label} from "{start}" to "{end}".',
        'Filter the {plural} to a {label} between "{start}" and "{end}".',
        'Limit the {plural} to {label} dates from "{start}" through "{end}".',
    ),
    "sort_by_form": (
        'Sort the {plural} by "{column}" in {direction} order.',
        'Order the {plural} by "{column}", {direction}.',
        'Use the sort form to sort the {plural} by "{column}" ({direction}).',
    ),
    "search_by_text": (
        'Search the {plural} for "{text}".',
        'Find the {plural} matching "{text}" with the search box.',
        'Use the search to look for "{text}" among the {plural}.',
    ),
    "create_entry": (
        "Create a new {singular} with {fields}.",
        "Add a {singular} with {fields}.",
        "Use the new {singular} form to add one with {fields}.",
    ),
    "edit_entry": (
        'Change the {label} of the {singular} "{entry}" to "{value}".',
        'Edit the {singular} "{entry}" and set its {label} to "{value}".',
        'Update the {singular} "{entry}": {label} "{value}".',
    ),
    "report_information": (
        'What is the {label} of the {singular} "{entry}"?',
        'Tell me the {label} of the {singular} "{entry}".',
        'Look up the {singular} "{entry}" and report its {label}.',
    ),
    "count_entries": (
        'How many {plural} have {label} "{value}"?',
        'Count the {plural} whose {label} is "{value}".',
        'Tell me how many {plural} there are with {label} "{value}".',
    ),
    "copy_value": (
        'Copy the {label} of the {singular} "{entry}" to the clipboard.',
        'On the {singular} "{entry}", use the copy button to copy its {label}.',
        'Copy the {singular} "{entry}"\'s {label} with its copy button.',
    ),
}


# ── the spec, read as the site serves it ──────────────────────────────────────


def list_path(site: str, page: str) -> str:
    return f"/sites/{site}/{page}"


def detail_path(site: str, page: str, entry_id: str) -> str:
    return f"/sites/{site}/{page}/{entry_id}"


def page_params(page: Page) -> list[str]:
    """Every query parameter the page's controls set (a part reading its rows takes all of them)."""
    return sorted({q for c in page.controls for q in c.query_params})


def plural(table: Table) -> str:
    return table.title.lower()


def count(page: Page, table: Table, pairs: list[tuple[str, str]]) -> int:
    """How many rows the list page shows for these query pairs (the server's own semantics)."""
    return len(select_rows(page, table, list(table.rows), pairs))


# ── one task ──────────────────────────────────────────────────────────────────


class _Maker:
    """Builds the tasks of one site from its spec; each macro's generator gets its own seeded RNG."""

    def __init__(self, spec: Spec, site_name: str):
        self.spec = spec
        self.site = spec.site
        self.site_name = site_name
        self.pages = list(spec.pages)
        self.home = home_path(self.site)

    def table(self, page: Page) -> Table:
        return self.spec.table_of(page)

    def controls(self, kind: str) -> Iterator[tuple[Page, Control]]:
        for p in self.pages:
            for c in p.controls:
                if c.kind == kind:
                    yield p, c

    def words(self, page: Page) -> dict[str, str]:
        t = self.table(page)
        return {"title": page.title, "plural": plural(t), "singular": t.singular, "site_name": self.site_name}

    def task(
        self,
        macro: str,
        page: Page | None,
        start_url: str,
        control: TaskControl,
        check: dict[str, Any],
        scope: list[str],
        words: dict[str, str],
        rng: random.Random,
        verifier: dict[str, Any] | None = None,
        **target: Any,
    ) -> TaskDraft:
        text = rng.choice(PHRASES[macro]).format(**words)
        if page is not None:
            target["page"] = page.page
        return {
            "site": self.site,
            "macro": macro,
            "instruction": text,
            "start": {"url": start_url, "kind": "fresh", "keep": False},
            "control": control,
            "check": check,
            "verifier": verifier or {},
            "scope": sorted(set(scope)),
            "target": target,
        }

    # one generator per macro: candidates in a fixed order; the caller samples and numbers them

    def navigate_to_page(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p in self.pages:
            starts = [self.home] + [list_path(self.site, q.page) for q in self.pages if q is not p]
            for s in starts:
                path = list_path(self.site, p.page)
                out.append(
                    self.task(
                        "navigate_to_page",
                        p,
                        s,
                        {"control_id": f"nav-{p.page}", "role": "link", "prep": {}},
                        {"kind": "visited", "path": path, "last": True},
                        [],
                        self.words(p),
                        rng,
                    )
                )
        return out

    def open_entry(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p in self.pages:
            t, lp = self.table(p), list_path(self.site, p.page)
            for r in list(t.rows):
                rid = str(r[t.key])
                for s in (lp, lp, self.home):
                    out.append(
                        self.task(
                            "open_entry",
                            p,
                            s,
                            {"control_id": f"{p.page}-row-{rid}", "role": "entry", "prep": {}},
                            {"kind": "visited", "path": detail_path(self.site, p.page, rid), "last": True},
                            [f"query:{lp}:{q}" for q in page_params(p)],
                            {**self.words(p), "entry": str(r[t.label])},
                            rng,
                            entry=rid,
                        )
                    )
        return out

    def navigate_home(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p in self.pages:
            t = self.table(p)
            starts = [list_path(self.site, p.page)]
            starts += [detail_path(self.site, p.page, str(r[t.key])) for r in t.rows[:3]]
            for s in starts:
                out.append(
                    self.task(
                        "navigate_home",
                        p,
                        s,
                        {"control_id": "home", "role": "home", "prep": {}},
                        {"kind": "visited", "path": self.home, "last": True},
                        [],
                        self.words(p),
                        rng,
                    )
                )
        return out

    def _url_start(self, lp: str, rng: random.Random) -> str:
        return self.home if rng.random() < 0.2 else lp

    def list_task(
        self,
        macro: str,
        p: Page,
        c: Control,
        rng: random.Random,
        params: dict[str, list[str]],
        words: dict[str, str],
        check: str = "query",
        **target: Any,
    ) -> TaskDraft:
        """A task done with control `c` of list page `p`: it starts there (or, one in five, at home), its check
        (`query` or `visited`) is the list page with `params`, each param is in its scope, and only one part of
        a chain may set them (exclusive). `words` are added to the page's for the phrase."""
        lp = list_path(self.site, p.page)
        return self.task(
            macro,
            p,
            self._url_start(lp, rng),
            {"control_id": c.control_id, "role": c.kind, "prep": {}},
            {"kind": check, "path": lp, "params": params},
            [f"query:{lp}:{k}" for k in params],
            {**self.words(p), **words},
            rng,
            {"exclusive": True},
            control_id=c.control_id,
            **target,
        )

    def filter_by_dropdown(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p, c in self.controls("dropdown"):
            t = self.table(p)
            for v in list(t.column(str(c.column)).values):
                if count(p, t, [(str(c.param), v)]):
                    words = {"label": c.label, "value": v}
                    out.append(
                        self.list_task("filter_by_dropdown", p, c, rng, {str(c.param): [v]}, words, value=v)
                    )
        return out

    def filter_by_options(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p, c in self.controls("options"):
            t = self.table(p)
            vals = [v for v in t.column(str(c.column)).values if count(p, t, [(str(c.param), v)])]
            pairs = [[a, b] for i, a in enumerate(vals) for b in vals[i + 1 :]] if c.multiple else []
            combos = [[v] for v in vals] + pairs  # radios hold one value
            for combo in combos:
                words = {"label": c.label, "values": " or ".join(f'"{v}"' for v in combo)}
                out.append(
                    self.list_task("filter_by_options", p, c, rng, {str(c.param): combo}, words, values=combo)
                )
        return out

    def filter_by_slider(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p, c in self.controls("slider"):
            t = self.table(p)
            n = len(t.rows)
            lo, hi, step = float(c.min or 0), float(c.max or 0), float(c.step or 1)
            k = 1
            while lo + k * step < hi:
                v = fmt(lo + k * step)
                hits = count(p, t, [(str(c.param), v)])
                if 0 < hits < n:
                    words = {"label": c.label, "value": v}
                    out.append(
                        self.list_task("filter_by_slider", p, c, rng, {str(c.param): [v]}, words, value=v)
                    )
                k += 1
        return out

    def filter_by_date_range(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p, c in self.controls("date_range"):
            t = self.table(p)
            dates = sorted({str(r[str(c.column)]) for r in t.rows})
            for i in range(len(dates)):
                for j in range(i + 2, len(dates), 3):
                    a, b = dates[i], dates[j]
                    pa, pb = c.params
                    words = {"label": c.label, "start": a, "end": b}
                    out.append(
                        self.list_task(
                            "filter_by_date_range", p, c, rng, {pa: [a], pb: [b]}, words, start=a, end=b
                        )
                    )
        return out

    def sort_by_form(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p, c in self.controls("sort"):
            t = self.table(p)
            ps, pd = c.params
            for col in c.columns:
                for d, word in (("asc", "ascending"), ("desc", "descending")):
                    words = {"column": t.column(col).label, "direction": word}
                    out.append(
                        self.list_task(
                            "sort_by_form", p, c, rng, {ps: [col], pd: [d]}, words, column=col, dir=d
                        )
                    )
        return out

    def _search_terms(self, p: Page, t: Table, c: Control) -> list[str]:
        """Words of the searchable columns that match some but not all rows."""
        terms: list[str] = []
        for r in t.rows:
            for col in c.columns:
                for w in re.findall(r"[A-Za-z][A-Za-z'-]{3,}", str(r[col])):
                    hits = count(p, t, [(str(c.param), w)])
                    if 0 < hits < len(t.rows) and w not in terms:
                        terms.append(w)
        return terms

    def search_by_text(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p, c in self.controls("search"):
            t = self.table(p)
            for w in self._search_terms(p, t, c):
                params = {str(c.param): [w]}
                out.append(
                    self.list_task("search_by_text", p, c, rng, params, {"text": w}, "visited", text=w)
                )
        return out

    def _new_value(self, t: Table, name: str, rng: random.Random, avoid: Any = None) -> Any:
        """A realistic value for a field, made from the table's own data (so it reads like the site)."""
        col = t.column(name)
        values = [r[name] for r in t.rows]
        for _ in range(50):
            if col.type == "enum":
                v: Any = rng.choice(col.values)
            elif col.type == "number":
                nums = [float(x) for x in values]
                step = 1 if all(float(x).is_integer() for x in values) else 0.5
                lo, hi = min(nums), max(nums)
                v = round(rng.uniform(lo, hi) / step) * step
                v = int(v) if step == 1 else v
            elif col.type == "date":
                v = rng.choice(sorted({str(x) for x in values}))
                day = int(v[8:10])
                v = f"{v[:8]}{min(28, max(1, day + rng.choice((-2, -1, 1, 2)))):02d}"
            else:
                a, b = rng.choice(values), rng.choice(values)
                pa, pb = str(a).split(), str(b).split()
                v = " ".join(pa[:1] + pb[1:]) if len(pa) > 1 and len(pb) > 1 else f"{a} {rng.randint(2, 9)}"
            if str(v) != str(avoid) and str(v) not in {str(x) for x in values if col.type == "text"}:
                return v
        raise ValueError(f"no new value for column {name!r}")

    def create_entry(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p in self.pages:
            t = self.table(p)
            if not t.create:
                continue
            for _ in range(PER_MACRO):
                fields = {f: self._new_value(t, f, rng) for f in t.create}
                listed = ", ".join(f'{t.column(f).label} "{fmt(v)}"' for f, v in fields.items())
                out.append(
                    self.task(
                        "create_entry",
                        p,
                        list_path(self.site, p.page),
                        {"control_id": f"{p.page}-create", "role": "create_form", "prep": {}},
                        {"kind": "entry_created", "table": p.table, "fields": fields},
                        [f"table:{p.table}"],
                        {**self.words(p), "fields": listed},
                        rng,
                        {"exclusive": True},
                        fields=dict(fields),
                    )
                )
        return out

    def edit_entry(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p in self.pages:
            t = self.table(p)
            if not t.edit:
                continue
            for r in list(t.rows)[:6]:
                rid = str(r[t.key])
                f = rng.choice(t.edit)
                v = self._new_value(t, f, rng, avoid=r[f])
                out.append(self._edit(p, t, rid, str(r[t.label]), f, v, {}, rng))
            if t.create:
                for _ in range(2):  # an entry the control prep creates first
                    fields = {f: self._new_value(t, f, rng) for f in t.create}
                    rid = next_id(t, list(t.rows))
                    f = rng.choice(t.edit)
                    v = self._new_value(t, f, rng, avoid=fields.get(f))
                    label = str(fields.get(t.label, rid))
                    out.append(
                        self._edit(
                            p,
                            t,
                            rid,
                            label,
                            f,
                            v,
                            {"create": {"table": p.table, "page": p.page, "fields": fields}},
                            rng,
                        )
                    )
        return out

    def _edit(
        self,
        p: Page,
        t: Table,
        rid: str,
        label: str,
        f: str,
        v: Any,
        prep: dict[str, Any],
        rng: random.Random,
    ) -> TaskDraft:
        return self.task(
            "edit_entry",
            p,
            detail_path(self.site, p.page, rid),
            {"control_id": f"{p.page}-edit", "role": "prepared" if prep else "edit_form", "prep": prep},
            {"kind": "entry_updated", "table": p.table, "id": rid, "fields": {f: v}},
            [f"table:{p.table}", f"entry:{p.table}/{rid}"],
            {**self.words(p), "entry": label, "label": t.column(f).label, "value": fmt(v)},
            rng,
            {"exclusive": True},
            entry=rid,
            field=f,
            value=v,
        )

    def _entry_start(
        self, p: Page, rid: str, from_list_share: float, rng: random.Random
    ) -> tuple[str, list[str]]:
        """(start URL, scope) of a task read off one entry: on its list page with probability `from_list_share`
        (then the list's query is in the scope too), else on its detail page."""
        lp = list_path(self.site, p.page)
        if rng.random() < from_list_share:
            return lp, [f"entry:{p.table}/{rid}", *(f"query:{lp}:{q}" for q in page_params(p))]
        return detail_path(self.site, p.page, rid), [f"entry:{p.table}/{rid}"]

    def report_information(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p in self.pages:
            t = self.table(p)
            cols = [c for c in t.columns if c.name not in (t.key, t.label)]
            for r in list(t.rows):
                rid = str(r[t.key])
                c = rng.choice(cols)
                start, scope = self._entry_start(p, rid, 0.3, rng)
                out.append(
                    self.task(
                        "report_information",
                        p,
                        start,
                        {"control_id": f"{p.page}-detail", "role": "table", "prep": {}},
                        {"kind": "answer", "expected": fmt(r[c.name]), "number": c.type == "number"},
                        scope,
                        {**self.words(p), "entry": str(r[t.label]), "label": c.label},
                        rng,
                        entry=rid,
                        column=c.name,
                    )
                )
        return out

    def count_entries(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p, c in list(self.controls("dropdown")) + list(self.controls("options")):
            t, lp = self.table(p), list_path(self.site, p.page)
            for v in list(t.column(str(c.column)).values):
                n = count(p, t, [(str(c.param), v)])
                if n == 0:
                    continue
                out.append(
                    self.task(
                        "count_entries",
                        p,
                        self._url_start(lp, rng),
                        {"control_id": c.control_id, "role": c.kind, "prep": {}},
                        {"kind": "answer", "expected": str(n), "number": True},
                        [f"query:{lp}:{q}" for q in page_params(p)] + [f"table:{p.table}"],
                        {**self.words(p), "label": c.label, "value": v},
                        rng,
                        control_id=c.control_id,
                        value=v,
                    )
                )
        return out

    def copy_value(self, rng: random.Random) -> list[TaskDraft]:
        out = []
        for p in self.pages:
            t = self.table(p)
            if not t.copy:
                continue
            for r in list(t.rows):
                rid = str(r[t.key])
                start, scope = self._entry_start(p, rid, 0.25, rng)
                out.append(
                    self.task(
                        "copy_value",
                        p,
                        start,
                        {"control_id": f"{p.page}-copy", "role": "copy", "prep": {}},
                        {"kind": "clipboard", "value": fmt(r[t.copy])},
                        scope,
                        {**self.words(p), "entry": str(r[t.label]), "label": t.column(t.copy).label},
                        rng,
                        entry=rid,
                    )
                )
        return out


def site_tasks(
    spec: Spec, seed: int = 0, site_name: str | None = None, per_macro: int = PER_MACRO
) -> list[PoolTask]:
    """All tasks of one site, numbered `<site>-<macro>-<nnnn>`; a function of (spec, seed) only."""
    maker = _Maker(spec, site_name or spec.name)
    out: list[PoolTask] = []
    for macro in MACROS:
        rng = random.Random(f"{seed}:{maker.site}:{macro}")
        gen: Callable[[random.Random], list[TaskDraft]] = getattr(maker, macro)
        cands = gen(rng)
        picked = sorted(rng.sample(range(len(cands)), min(per_macro, len(cands))))
        for n, i in enumerate(picked):
            task: PoolTask = {**cands[i], "task_id": f"{maker.site}-{macro}-{n:04d}", "history_macro": None}
            history = None
            if macro in MID_CHAIN_HISTORY and rng.random() < MID_CHAIN_SHARE:
                task["start"]["kind"] = "mid_chain"
                history = MID_CHAIN_HISTORY[macro]
            elif macro in KEEP_MACROS and rng.random() < KEEP_SHARE:
                task["start"]["keep"] = True
            task["history_macro"] = history
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
