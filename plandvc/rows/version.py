"""A dataset version, `data/planner_rows/<version>/`: its one writer (filter-rows) and its one reader (export,
view, eval).

The folder is `manifest.json` (counts, the sha256 of every file, the index of chains, the train/val split, the
dropped chains) and per kept chain `<key>/rows.jsonl`, `<key>/episode.json` and `<key>/step_*.png`, copied byte
for byte from run-chains' output. `write_version` writes it; `DatasetVersion.open` reads the manifest once into
typed records (`plandvc.rows.manifest`: every key and file path confined to the version, anything else one
line) and checks every listed chain folder exists. A version fetched from someone else's repository is read
the same way.

`DatasetVersion.contents` reads every chain's episode and rows (the rows as typed `Example`s,
`plandvc.rows.examples`) for the exporters, checking what an exporter must not trust: every listed file exists
with its sha256, a kept chain has rows, every image part names a file of its chain, and `image()` returns
only an image that still has its sha256 and decodes as a whole PNG.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from plandvc.io import InputError, read_json, read_jsonl, write_json
from plandvc.records import ChainResult, Episode
from plandvc.rows.examples import Contents, Example, VersionChain, chain_examples
from plandvc.rows.manifest import (
    MANIFEST,
    ChainEntry,
    ChainRecord,
    Manifest,
    VersionError,
    parse_manifest,
    strings,
)
from plandvc.rows.png import PngError, read_png_info
from plandvc.rows.recovery import index_fields, recovery_counts
from plandvc.rows.split import RULE, SPLITS, SplitChain, group_split, leak_check, prompt_fingerprint
from plandvc.rows.validate import Chain

# ── the version ─────────────────────────────────────────────────────────────


@dataclass
class DatasetVersion:
    """A dataset version folder, its manifest read once (`open`); its examples read on demand."""

    root: Path
    manifest: Manifest

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    @classmethod
    def open(cls, root: str | Path) -> DatasetVersion:
        """Read the manifest of the version at `root`; a folder that is not one is a VersionError."""
        root = Path(root)
        if not root.exists():
            raise VersionError(f"{root}: no such dataset folder")
        if not root.is_dir():
            raise VersionError(f"{root}: not a folder (expected a dataset version made by filter-rows)")
        if not (root / MANIFEST).is_file():
            raise VersionError(f"{root}: not a dataset version (no {MANIFEST}; filter-rows writes one)")
        manifest = parse_manifest(read_json(root / MANIFEST), str(root / MANIFEST))
        for c in manifest.chains:
            if not (root / c.key).is_dir():
                raise VersionError(f"{root / c.key}: missing (listed in {MANIFEST})")
        return cls(root, manifest)

    @staticmethod
    def owns(folder: Path) -> bool:
        """Whether `folder` is a previous filter-rows output: its manifest.json indexes every entry in it."""
        try:
            manifest = parse_manifest(read_json(folder / MANIFEST), MANIFEST)
        except InputError:
            return False
        keys = {c.key for c in manifest.chains}
        return all(p.name == MANIFEST or p.name in keys for p in folder.iterdir())

    # ── for the exporters ──

    def check_present(self) -> None:
        """Every file the manifest lists exists (a screenshot included): what export and view both refuse."""
        for rel in sorted(self.manifest.files):
            if not (self.root / rel).is_file():
                raise VersionError(f"{self.root / rel}: missing (manifest.json lists it)")

    def _check_files(self) -> None:
        """Every file the manifest lists exists; the JSON ones still have their sha256 (images: `image`)."""
        self.check_present()
        for rel, sha in sorted(self.manifest.files.items()):
            path = self.root / rel
            if rel.endswith((".json", ".jsonl")) and hashlib.sha256(path.read_bytes()).hexdigest() != sha:
                raise VersionError(f"{path}: its sha256 is not the manifest's (changed after filter-rows)")

    def _chain(self, entry: ChainEntry, rows: int) -> VersionChain:
        """The chain with its episode, its entry's parts and macros taken from the episode where it has none."""
        path = self.root / entry.key / "episode.json"
        episode = read_json(path)
        if not isinstance(episode, dict):
            raise VersionError(f"{path}: not a JSON object")
        parts = entry.parts or strings(episode.get("parts"))
        macros = entry.macros or strings(episode.get("macros"))
        return VersionChain(replace(entry, parts=parts, macros=macros), episode, rows)

    @cached_property
    def contents(self) -> Contents:
        """Every chain's episode and rows, checked against the manifest (see the module doc)."""
        self._check_files()
        chains, examples, prints = [], [], {}
        for entry in self.manifest.chains:
            images = {
                rel.split("/", 1)[1]: sha
                for rel, sha in self.manifest.files.items()
                if rel.startswith(f"{entry.key}/")
            }
            path = self.root / entry.key / "rows.jsonl"
            rows = read_jsonl(path)
            if not rows:
                raise VersionError(f"{path}: no rows (a kept chain has one per turn)")
            ex = chain_examples(rows, str(path), entry, images)
            chains.append(self._chain(entry, len(ex)))
            prints[entry.key] = tuple(prompt_fingerprint(r["messages"], images) for r in rows)
            if entry.split in SPLITS:
                examples.extend(ex)
        examples.sort(key=lambda e: (e.key, e.step))
        if any(e.role for e in examples):  # a version with recovery chains: every example has a role
            examples = [replace(e, role=e.role or "normal") for e in examples]
        return Contents(chains, examples, prints)

    def image(self, example: Example, name: str) -> bytes:
        """An image's bytes, checked against the manifest's sha256 and decoded once as a whole PNG."""
        rel = example.image_path(name)
        path = self.root / rel
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise VersionError(f"{path}: missing (row {example.step} of {example.key} shows it)") from None
        if hashlib.sha256(data).hexdigest() != self.manifest.files.get(rel):
            raise VersionError(f"{path}: its sha256 is not the manifest's (changed after filter-rows)")
        if rel not in self._decoded:
            try:
                read_png_info(data)
            except PngError as e:
                raise VersionError(f"{path}: not a whole PNG ({e})") from None
            self._decoded.add(rel)
        return data

    @cached_property
    def _decoded(self) -> set[str]:
        return set()

    def split_chains(self) -> list[SplitChain]:
        """The chains as the leak check sees them: parts from the episode, prompts from the rows."""
        prints = self.contents.prompt_prints
        return [
            SplitChain(c.entry.key, c.entry.parts, prints.get(c.entry.key, ())) for c in self.contents.chains
        ]

    @cached_property
    def by_split(self) -> dict[str, list[Example]]:
        """The examples of each split that has any: an empty split gets no file (loaders refuse empty ones)."""
        found = {s: [e for e in self.contents.examples if e.split == s] for s in SPLITS}
        return {s: ex for s, ex in found.items() if ex}

    def count(self, split: str) -> int:
        return len(self.by_split.get(split, []))


# ── the writer ──────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Dropped:
    """A chain filter-rows dropped: its key, the kind of reason and the detail."""

    key: str
    kind: str
    detail: str


def _copy(src: Path, dst: Path) -> str:
    """Copy one file byte for byte and return its sha256."""
    data = src.read_bytes()
    dst.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def _entry(chain: Chain, split: str, detail: str) -> ChainRecord:
    """A kept chain's record in the manifest's index."""
    ep = chain.episode
    return {
        "key": chain.key,
        "site": ep["site"],
        "parts": ep["parts"],
        "macros": ep.get("macros"),
        "turns": len(ep["turns"]),
        "split": split,
        "split_detail": detail,
        **index_fields(ep),
        **request_fields(ep),
    }


def request_fields(ep: Episode) -> ChainRecord:
    """What the index adds for a composed chain (one whose episode keeps its parts' own instructions): how its
    request was made, the request, and a goal chain's kind; nothing for a joined one (v1's index as it was)."""
    if "part_instructions" not in ep:
        return {}
    out: ChainRecord = {"request_by": ep["instruction_by"], "request": ep["instruction"]}
    if "goal" in ep:
        out["goal"] = ep["goal"]["kind"]
    return out


def _counts(
    results: list[ChainResult],
    kept: list[Chain],
    dropped: list[Dropped],
    index: list[ChainRecord],
    files: int,
) -> dict[str, int]:
    splits = Counter(c["split"] for c in index)
    return {
        "chains_raw": len(results),
        "chains": len(kept),
        "rows": sum(len(c.rows) for c in kept),
        "images": sum(len(c.images) for c in kept),
        "files": files,
        "train": splits["train"],
        "val": splits["val"],
        "excluded": splits["excluded"],
        "dropped": len(dropped),
    }


def write_version(
    tmp: Path,
    raw: Path,
    kept: list[Chain],
    dropped: list[Dropped],
    results: list[ChainResult],
    split: tuple[float, int],
    image_size: tuple[int, int] | None,
) -> Manifest:
    """Copy the kept chains of `raw` into `tmp` and write their manifest (split by `split` = (val share,
    seed)); returns the manifest, typed."""
    val_share, seed = split
    split_chains = [
        SplitChain(
            c.key,
            tuple(map(str, c.episode.get("parts") or ())),
            tuple(prompt_fingerprint(r["messages"], c.images) for r in c.rows),
        )
        for c in kept
    ]
    assigned = group_split(split_chains, val_share, seed)
    leaks = leak_check(split_chains, {k: a.split for k, a in assigned.items()})
    if leaks.crosses:  # the rule cannot leak; this guards the rule itself
        raise InputError(f"the train/val split leaks: {leaks.first()}")
    files: dict[str, str] = {}
    for chain in kept:
        (tmp / chain.key).mkdir()
        for name in ["episode.json", "rows.jsonl", *chain.images]:
            files[f"{chain.key}/{name}"] = _copy(raw / chain.key / name, tmp / chain.key / name)
    index = [_entry(c, assigned[c.key].split, assigned[c.key].detail) for c in kept]
    manifest = {
        "counts": _counts(results, kept, dropped, index, len(files)),
        "split": {
            "rule": RULE,
            "val_share": val_share,
            "seed": seed,
            "leak": {
                "shared_parts": len(leaks.shared_parts),
                "shared_prompts": len(leaks.shared_prompts),
                "duplicate_rows": len(leaks.duplicate_rows),
            },
        },
        "image_size": list(image_size) if image_size else None,
        "chains": index,
        "files": dict(sorted(files.items())),
        "dropped": [{"key": d.key, "kind": d.kind, "detail": d.detail} for d in dropped],
    }
    recovery = recovery_counts(results, {c.key: c.rows for c in kept})
    if recovery is not None:  # only a run with recovery chains has the key
        manifest["recovery"] = recovery
    write_json(tmp / MANIFEST, manifest)
    return parse_manifest(manifest, str(tmp / MANIFEST))
