"""Debian packages as an app's lock: `<app>.debs` names the packages, `<app>.lock` pins each to a version with
the sha256 of its .deb (from `apt-cache show`), and the install downloads them with `apt-get download` into
the apps home, checks every file against the lock and unpacks it with `dpkg -x` (never a system install).

    python -m plandvc.apps.debian plandvc/apps/locks/mediawiki.debs   # re-pin mediawiki.lock (`make lock-apps`)

A lock line is `<package> <version> <architecture> <sha256>`; `#` lines are comments.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from plandvc.errors import InfrastructureError


@dataclass(frozen=True)
class Deb:
    """One pinned Debian package."""

    package: str
    version: str
    arch: str
    sha256: str


def read_lock(lock: Path) -> list[Deb]:
    """The pinned packages of a lock file, in its order."""
    out = []
    for line in lock.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            package, version, arch, sha = line.split()
            out.append(Deb(package, version, arch, sha))
    return out


def _show(package: str) -> Deb:
    """The candidate version of a package as apt knows it, with its architecture and sha256."""
    policy = subprocess.run(
        ["apt-cache", "policy", package], capture_output=True, text=True, check=True
    ).stdout
    version = next(ln.split(":", 1)[1].strip() for ln in policy.splitlines() if "Candidate:" in ln)
    if version == "(none)":
        raise InfrastructureError(f"apt has no candidate for {package}")
    show = subprocess.run(
        ["apt-cache", "show", f"{package}={version}"], capture_output=True, text=True, check=True
    ).stdout
    fields = dict(
        ln.split(": ", 1) for ln in show.split("\n\n")[0].splitlines() if ": " in ln and ln[0] != " "
    )
    return Deb(package, version, fields["Architecture"], fields["SHA256"])


def pin(debs: Path) -> Path:
    """Write `<name>.lock` beside `<name>.debs`: each package named there at apt's candidate version."""
    names = [ln.strip() for ln in debs.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    lock = debs.with_suffix(".lock")
    head = f"# pinned from {debs.name} by `python -m plandvc.apps.debian` (make lock-apps): package version arch sha256\n"
    lock.write_text(
        head + "".join(f"{d.package} {d.version} {d.arch} {d.sha256}\n" for d in map(_show, names))
    )
    return lock


def fetch(debs: list[Deb], into: Path) -> list[Path]:
    """`apt-get download` each pinned package into `into`, each file checked against its sha256."""
    into.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(
        ["apt-get", "download", "-q", *(f"{d.package}={d.version}" for d in debs)],
        cwd=into, capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    if r.returncode != 0:
        raise InfrastructureError(
            f"cannot apt-get download: {' | '.join(r.stderr.strip().splitlines()[-3:])}"
        )
    files = []
    for d in debs:
        found = sorted(into.glob(f"{d.package}_*_{d.arch}.deb"))
        if len(found) != 1:
            raise InfrastructureError(f"apt-get download left {len(found)} files for {d.package}")
        got = hashlib.sha256(found[0].read_bytes()).hexdigest()
        if got != d.sha256:
            raise InfrastructureError(f"{found[0].name}: sha256 {got}, the lock has {d.sha256}")
        files.append(found[0])
    return files


def unpack(files: list[Path], root: Path) -> None:
    """`dpkg -x` each .deb into `root` (files only: no maintainer scripts, nothing in the system)."""
    for f in files:
        r = subprocess.run(["dpkg", "-x", str(f), str(root)], capture_output=True, text=True)
        if r.returncode != 0:
            raise InfrastructureError(f"cannot dpkg -x {f.name}: {r.stderr.strip()}")


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(pin(Path(arg)))
