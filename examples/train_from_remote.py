"""A trainer's side of a dataset version: in an empty folder, fetch the hf export of one tag from the
project's git repo and its DVC remote, read that tag's manifest, load the rows with `datasets`.

    pip install dvc dvc-s3 datasets        # or dvc-ssh, ... for the project's remote
    export AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=...
    python train_from_remote.py https://example.org/plandvc.git rows-v1

The README's "Getting a dataset version" shows these same lines (a test runs both).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import dvc.api
from datasets import load_dataset


def main(repo: str, rev: str) -> None:
    REPO, REV = repo, rev  # the README's names
    subprocess.run(["dvc", "get", REPO, "data/exports/v1/hf", "--rev", REV], check=True)
    manifest = json.loads(dvc.api.read("data/planner_rows/v1/manifest.json", repo=REPO, rev=REV))
    rows = sum(c["turns"] for c in manifest["chains"] if c["split"] in ("train", "val"))
    ds = load_dataset("hf")  # the folder `dvc get` wrote: its README.md names the splits and their files
    assert sum(len(split) for split in ds.values()) == rows, "the export and the manifest disagree"

    files = sorted(p for p in Path("hf").rglob("*") if p.is_file())
    digest = hashlib.sha256()
    for p in files:
        digest.update(
            p.relative_to("hf").as_posix().encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest()
        )
    splits = ", ".join(f"{name} {len(split)}" for name, split in ds.items())
    print(
        f"{REV}: hf/ {len(files)} files, {sum(p.stat().st_size for p in files)} bytes, sha256 {digest.hexdigest()[:16]}"
    )
    print(f"{REV}: manifest {len(manifest['chains'])} chains, {rows} rows; datasets: {splits}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: train_from_remote.py REPO REV  (e.g. https://example.org/plandvc.git rows-v1)")
    main(sys.argv[1], sys.argv[2])
