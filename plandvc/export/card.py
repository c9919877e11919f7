"""The dataset card: `README.md` in each export folder and in the export's version folder.

A card is generated from the data, never hand-edited, and has no dates, hostnames or absolute paths, so the
same version gives the same bytes. It is a Hugging Face dataset card: a YAML header (`pretty_name`,
`license`, `task_categories`, `size_categories`, `configs` with the split files of the format,
`dataset_info` with the features when the format has one Arrow schema, and the examples and bytes per split) and a
datasheet body: what the rows are, how they were made (pipeline, params, planner version and prompt hash,
pool and sites hashes, Chromium and Playwright versions, image format and size), the counts by site, macro,
family and number of parts, the kept rate and the failure reasons, the split rule and the leak check, and
the known limitations.
"""

from __future__ import annotations

import fnmatch
import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import yaml

from plandvc.export.common import FormatReport
from plandvc.export.recovery import card_lines
from plandvc.macros import FAMILY_OF
from plandvc.rows.split import Leaks
from plandvc.rows.version import DatasetVersion

if TYPE_CHECKING:  # the type only: export runs none of filter-rows' code
    from plandvc.rows.dataset import FilterMetrics

TASK = "image-text-to-text"
HOW_TO_LOAD = {
    "hf": (
        "```python\nfrom datasets import load_dataset\n\n"
        'ds = load_dataset("parquet", data_files={"train": "data/train-*.parquet", '
        '"val": "data/val-*.parquet"})\n'
        "# TRL's SFTTrainer, loss on the completion only (its vision collator takes `messages` first):\n"
        'train = ds["train"].remove_columns("messages")\n'
        '# or the whole conversation: ds["train"].remove_columns(["prompt", "completion"])\n```'
    ),
    "llamafactory": (
        "Set `dataset_dir` to this folder, `dataset: plandvc_planner_train` and "
        "`eval_dataset: plandvc_planner_val`; `dataset_info.json` names the columns and role tags."
    ),
    "openai": "Upload `train.jsonl` as the training file and `val.jsonl` as the validation file.",
    "wds": (
        '```python\nimport webdataset as wds\n\nds = wds.WebDataset("train-{000000..000000}.tar")'
        '.decode("pil")\n# each sample: {"json": {...}, "img0.png": PIL.Image, ...}\n```'
    ),
}
FILES = {
    "hf": {"train": "data/train-*", "val": "data/val-*"},
    "llamafactory": {"train": "train.jsonl", "val": "val.jsonl"},
    "openai": {"train": "train.jsonl", "val": "val.jsonl"},
    "wds": {"train": "train-*.tar", "val": "val-*.tar"},
}
HF_FEATURES_YAML: list[Mapping[str, object]] = [
    {"name": "id", "dtype": "string"},
    *(
        {
            "name": col,
            "list": [
                {"name": "role", "dtype": "string"},
                {
                    "name": "content",
                    "list": [{"name": "type", "dtype": "string"}, {"name": "text", "dtype": "string"}],
                },
            ],
        }
        for col in ("prompt", "completion", "messages")
    ),
    {"name": "images", "list": "image"},
    {"name": "task_id", "dtype": "string"},
    {"name": "step", "dtype": "int32"},
    *({"name": col, "dtype": "string"} for col in ("site", "macro", "op", "delegated")),
]


@dataclass
class Provenance:
    """What the card says of how the rows were made, beyond the version itself."""

    license: str
    sites_hash: str | None = None
    pool_hash: str | None = None
    test_sites: list[str] = field(default_factory=list)
    filter_metrics: FilterMetrics | None = None


def size_category(n: int) -> str:
    for top, name in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
    ):
        if n < top:
            return name
    return "n>1M"


def split_bytes(report: FormatReport | None, pattern: str) -> int:
    """The bytes of one split's files in a format (its files matching `pattern`); 0 when none were written."""
    if report is None:
        return 0
    return sum(size for path, size in report.files.items() if fnmatch.fnmatchcase(path, pattern))


def _table(header: tuple[str, ...], rows: Sequence[tuple[object, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows] or [
        "| none |" + " |" * (len(header) - 1)
    ]
    return "\n".join(lines)


def _prompt_hashes(version: DatasetVersion) -> list[tuple[str, str]]:
    from plandvc.agent.prompts import VERSIONS

    out = []
    for v in sorted({str(c.episode.get("version")) for c in version.contents.chains}):
        spec = VERSIONS.get(v)
        system = spec["system"] if spec else None
        out.append((v, hashlib.sha256(system.encode()).hexdigest()[:16] if system else "unknown"))
    return out


def _env(version: DatasetVersion, key: str) -> str:
    found = {(c.episode.get("env") or {}).get(key) for c in version.contents.chains}
    return ", ".join(sorted(str(v) for v in found if v is not None)) or "unknown"


def header(
    version: DatasetVersion, fmt: str | None, reports: dict[str, FormatReport], prov: Provenance
) -> dict[str, object]:
    """The card's YAML header as a dict (key order kept)."""
    counts = {s: len(ex) for s, ex in version.by_split.items()}
    prefix = "" if fmt else "hf/"
    files = FILES[fmt or "hf"]
    head: dict[str, object] = {
        "pretty_name": f"plandvc planner rows {version.name}" + (f" ({fmt})" if fmt else ""),
        "license": prov.license,
        "task_categories": [TASK],
        "tags": ["web-agent", "planner", "synthetic", "screenshots"],
        "size_categories": [size_category(sum(counts.values()))],
        "configs": [
            {
                "config_name": "default",
                "data_files": [{"split": s, "path": prefix + files[s]} for s in counts],
            }
        ],
    }
    info: dict[str, object] = {}
    if fmt in (None, "hf"):
        info["features"] = HF_FEATURES_YAML
    rep = reports.get(fmt or "hf")
    # name, num_examples and num_bytes (the bytes of the split's files in this format): `datasets` ignores a
    # split entry that lacks any of the three, with a warning
    info["splits"] = [
        {"name": s, "num_examples": n, "num_bytes": split_bytes(rep, files[s])} for s, n in counts.items()
    ]
    if rep is not None:
        info["download_size"] = rep.bytes
    head["dataset_info"] = info
    return head


INTRO = [
    "Training rows for the **planner** of a hierarchical web agent. Each example is one planner turn: the",
    "prompt is what the planner saw (its system prompt, the merged user request, the page, its history",
    "and a screenshot of the page) and the completion is its reply, a JSON action that delegates one step",
    "to a specialist (Navigation, Filter, Form, Information) or finishes the task. The rows are made by",
    "construction: recorded single-step executor trajectories of one site are chained into one request,",
    "the real planner agent runs in a real Chromium with a scripted model that answers each turn with the",
    "known next delegation, the specialists replay the recorded trajectories, every part is checked on",
    "the site's backend state, and a chain's rows are kept only when every check passes.",
    "",
]


def _title(version: DatasetVersion, fmt: str | None) -> list[str]:
    """The title (the version, and the format of an export folder's card) and what the rows are."""
    return [f"# plandvc planner rows {version.name}" + (f" — {fmt} export" if fmt else ""), "", *INTRO]


def _loading(fmt: str | None, reports: dict[str, FormatReport]) -> list[str]:
    """How to load the format (an export folder's card), or the formats and their sizes (the version's)."""
    if fmt:
        return ["## Loading", "", HOW_TO_LOAD[fmt], ""]
    return [
        "## Formats",
        "",
        *(
            f"- `{name}/`: {rep.examples.get('train', 0)} train / {rep.examples.get('val', 0)} val examples, "
            f"{len(rep.files)} files, {rep.bytes:,} bytes"
            for name, rep in sorted(reports.items())
        ),
        "",
    ]


def _how_made(version: DatasetVersion, prov: Provenance) -> list[str]:
    """The pipeline, the planner and executor versions, the code and data hashes, the images and the split."""
    m = version.manifest
    chains = version.contents.chains
    ep = chains[0].episode if chains else {}
    return [
        "## How the rows were made",
        "",
        "Pipeline (DVC): `pool_items -> chain_specs -> run_chains -> filter_rows -> export`.",
        "",
        _table(
            ("what", "value"),
            [
                (
                    "planner version (prompt sha256[:16])",
                    ", ".join(f"{v} ({h})" for v, h in _prompt_hashes(version)),
                ),
                ("executor", ep.get("executor", "unknown")),
                ("specialist step budget", ep.get("budget", "unknown")),
                ("planner turn cap", ep.get("planner_turns", "unknown")),
                ("Chromium", _env(version, "chromium")),
                ("Playwright", _env(version, "playwright")),
                ("plandvc", _env(version, "plandvc")),
                ("sites (tree sha256[:16])", (prov.sites_hash or "not given")[:16]),
                ("executor pool (tree sha256[:16])", (prov.pool_hash or "not given")[:16]),
                ("held-out test sites (never in any split)", ", ".join(prov.test_sites) or "none"),
                ("images", f"PNG screenshots, {'x'.join(map(str, m.image_size)) or 'any size'}"),
                *_marks(version),
                ("val_share / split seed", f"{m.split.val_share} / {m.split.fields.get('seed')}"),
            ],
        ),
        "",
    ]


def _marks(version: DatasetVersion) -> list[tuple[str, str]]:
    """The screenshots' set-of-marks row, only when some chain's screenshots carry marks (episode `marks`): a
    version without them keeps its card's bytes."""
    marked = sorted(
        {str(c.episode.get("dialect")) for c in version.contents.chains if c.episode.get("marks")}
    )
    if not marked:
        return []
    every = all(c.episode.get("marks") for c in version.contents.chains)
    return [
        (
            "screenshot marks",
            f"{'every' if every else 'some'} screenshot as dialect {', '.join(marked)} sends it: its agent's "
            "highlight boxes and index labels drawn over the elements, the numbers the page text's [index]",
        )
    ]


def _counts(version: DatasetVersion) -> list[str]:
    """The chains and examples per split, and the chains of a split by site, parts, macro and family."""
    counts = version.manifest.counts
    chains = [c.entry for c in version.contents.chains]
    in_split = [c for c in chains if c.split in ("train", "val")]
    by_site = Counter(c.site for c in in_split)
    by_parts = Counter(len(c.parts) for c in in_split)
    by_macro = Counter(mac for c in in_split for mac in c.macros)
    by_family = Counter(e.delegated for e in version.contents.examples if e.op == "delegate")
    by_split = Counter(c.split for c in chains)
    return [
        "## Counts",
        "",
        _table(
            ("", "n"),
            [
                ("chains in the raw run", counts.get("chains_raw")),
                ("chains kept by filter-rows", counts.get("chains")),
                (
                    "chains in train / val / excluded",
                    f"{by_split['train']} / {by_split['val']} / {by_split['excluded']}",
                ),
                (
                    "examples in train / val",
                    f"{version.count('train')} / {version.count('val')}",
                ),
            ],
        ),
        "",
        "By site (chains in a split):",
        "",
        _table(("site", "chains"), sorted(by_site.items())),
        "",
        "By number of parts:",
        "",
        _table(("parts", "chains"), sorted(by_parts.items())),
        "",
        "By macro (parts):",
        "",
        _table(
            ("macro", "family", "parts"), [(k, FAMILY_OF.get(k, "?"), n) for k, n in sorted(by_macro.items())]
        ),
        "",
        "By family (delegations):",
        "",
        _table(("family", "delegations"), sorted((str(k), n) for k, n in by_family.items())),
        "",
    ]


def _kept_rate(version: DatasetVersion, prov: Provenance) -> list[str]:
    """The kept rate and the failures of the run from filter-rows' metrics, else the drops of the manifest."""
    fm = prov.filter_metrics
    out = ["## Kept rate and failures", ""]
    if not fm:
        dropped = Counter(d.kind for d in version.manifest.dropped)
        return [*out, _table(("dropped by filter-rows", "chains"), sorted(dropped.items())), ""]
    return [
        *out,
        f"Kept {fm.get('kept')} of {fm.get('chains_raw')} chains (kept rate {fm.get('kept_rate')}, "
        f"{fm.get('kept_of_ok')} of the chains that ran through).",
        "",
        _table(("failure in the run", "chains"), sorted((fm.get("failures_raw") or {}).items())),
        "",
        _table(("dropped by filter-rows", "chains"), sorted((fm.get("dropped") or {}).items())),
        "",
    ]


def _split_and_leaks(version: DatasetVersion, leaks: Leaks) -> list[str]:
    """The split rule and the leak check recomputed on export."""
    return [
        "## Split and leak check",
        "",
        f"Rule: {version.manifest.split.rule or 'unknown'}.",
        "",
        "A part is one recorded trajectory (a page and a delegation); two chains that share one would put the",
        "same trajectory in train and in val. Chains that share a part or an identical prompt with val but",
        "are not in val are excluded from both splits (they stay in the dataset version).",
        "",
        f"Leak check, recomputed on export: parts in both train and val = {len(leaks.shared_parts)}, identical "
        f"prompts in both = {len(leaks.shared_prompts)}, rows whose prompt is another's in the same split = "
        f"{len(leaks.duplicate_rows)}.",
        "",
    ]


def _request_limit(version: DatasetVersion) -> list[str]:
    """How the requests were made, as a limitation line: joined (v1) or composed (v2 on)."""
    chains = version.contents.chains
    if not any(c.entry.request_by for c in chains):
        return [
            "- Chains are 2-4 parts of one site; the request is the parts' instructions joined (or merged by a",
            "  memory model when one was configured).",
        ]
    return [
        "- Chains are 1-4 parts of one site. The requests are composed from the parts' facts by templates (a",
        "  few registers, the sites' own nouns and labels), not written by people; the answers of goal chains",
        "  are counts and first entries of one list.",
    ]


def _requests(version: DatasetVersion) -> list[str]:
    """What the requests are (a composed version's card): how made, goal chains by kind, an example each."""
    chains = version.contents.chains
    composed = [c for c in chains if c.entry.request_by]
    if not composed:
        return []
    goals = Counter(c.entry.goal for c in composed if c.entry.goal)
    asking = sum(bool(c.episode.get("answer")) for c in chains)
    lines = [
        "## Requests",
        "",
        "The request states the user's goal and its constraints, not the steps (`chains.request: composed`):",
        "constraints on one list merge into one phrase, parts on other pages follow in order, a question ends it;",
        "it names no widget and no page, tab or trip home. Each delegation names the control by its label, the",
        "value and only the widget this site draws. Goal chains end on a question whose answer depends on every",
        "step before it, computed by the site's query semantics and read live by the Information specialist.",
        'Version v1 joined the parts\' instructions with "Then" (`chains.request: joined`).',
        "",
        _table(
            ("what", "chains"),
            [
                ("composed requests", f"{len(composed)} of {len(chains)}"),
                ("ending on a question", f"{asking} of {len(chains)}"),
                *((f"goal chains: {kind}", str(n)) for kind, n in sorted(goals.items())),
            ],
        ),
        "",
    ]
    for c in sorted(composed, key=lambda c: c.entry.key)[:3]:
        lines.append(f"- {c.episode['instruction']}")
    return [*lines, ""]


def _limitations(version: DatasetVersion) -> list[str]:
    """What the rows are not, and how many kept chains no split holds."""
    excluded = sum(c.entry.split == "excluded" for c in version.contents.chains)
    teach = (
        "  the rows teach the delegation format and order, and recovery only from failures made by construction."
        if any(e.role for e in version.contents.examples)
        else "  the rows teach the delegation format and order, not recovery from a wrong step."
    )
    return [
        "## Known limitations",
        "",
        "- The sites are synthetic back-office sites served on loopback; their pages are simpler than the web.",
        "- The planner's replies are scripted from the chain's known decomposition, not sampled from a model:",
        teach,
        *_request_limit(version),
        f"- {excluded} kept chains are in no split, because they share a part with val.",
        "",
    ]


def body(
    version: DatasetVersion, fmt: str | None, reports: dict[str, FormatReport], leaks: Leaks, prov: Provenance
) -> str:
    """The datasheet in markdown, one section after the other."""
    return "\n".join(
        [
            *_title(version, fmt),
            *_loading(fmt, reports),
            *_how_made(version, prov),
            *_requests(version),
            *_counts(version),
            *_kept_rate(version, prov),
            *_split_and_leaks(version, leaks),
            *card_lines([e.role for e in version.contents.examples]),
            *_limitations(version),
        ]
    )


def card(
    version: DatasetVersion, fmt: str | None, reports: dict[str, FormatReport], leaks: Leaks, prov: Provenance
) -> bytes:
    """The README.md bytes of one export folder (`fmt`) or of the version folder (`fmt` None)."""
    head = yaml.safe_dump(header(version, fmt, reports, prov), sort_keys=False, allow_unicode=True, width=100)
    return f"---\n{head}---\n\n{body(version, fmt, reports, leaks, prov)}".encode()
