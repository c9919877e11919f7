"""`plandvc push` / `plandvc pull` (`make push` / `make pull`): `dvc push` / `dvc pull` with one clear line
when the remote cannot be used.

DVC alone hangs for minutes on a remote whose port is closed (its S3 client retries) and answers a refused
key, a missing bucket or a full disk with a traceback-like "unexpected error" or one line per file. So the
remote's host is probed first (a TCP connect, a few seconds) and DVC's error output is reduced to the one
line that names the cause. The data path is DVC's own: it uploads each object whole (an S3 PUT; over SSH a
file written aside, then renamed) and downloads into its cache the same way before it links a file into the
workspace, so a failed or killed transfer leaves nothing half-written and a rerun completes it.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from plandvc.errors import InputError

PROBE_SECONDS = 5.0
DEFAULT_PORTS = {"ssh": 22, "http": 80, "https": 443}


class RemoteError(InputError):
    """A remote that cannot be used, with the one line that says why."""


@dataclass(frozen=True)
class Remote:
    """A DVC remote as configured (.dvc/config merged with config.local and the user's config)."""

    name: str
    url: str
    endpoint: str | None = None
    port: int | None = None

    @property
    def scheme(self) -> str:
        return urlsplit(self.url).scheme or "local"

    def address(self) -> tuple[str, int] | None:
        """The host and port to probe, or None where there is no fixed one (AWS itself, GCS, Azure, a
        folder)."""
        if self.scheme == "s3":
            if not self.endpoint:
                return None
            parts = urlsplit(self.endpoint)
            port = parts.port or DEFAULT_PORTS.get(parts.scheme, 443)
            return (parts.hostname, port) if parts.hostname else None
        if self.scheme in ("ssh", "http", "https"):
            parts = urlsplit(self.url)
            port = parts.port or self.port or DEFAULT_PORTS[self.scheme]
            return (parts.hostname, port) if parts.hostname else None
        return None

    @property
    def bucket(self) -> str:
        return urlsplit(self.url).netloc


def dvc_config(root: Path):  # -> dvc.config.Config
    """The DVC config of the project that holds `root` (all levels merged; `load_one` reads one)."""
    from dvc.config import Config, ConfigError
    from dvc.exceptions import NotDvcRepoError
    from dvc.repo import Repo

    try:
        return Config(dvc_dir=Repo.find_dvc_dir(str(root)))
    except NotDvcRepoError:
        raise RemoteError(f"{root} is not in a DVC project (no .dvc folder above it)") from None
    except ConfigError as e:  # a key DVC does not know, a file it cannot parse: its one-line message
        raise RemoteError(str(e)) from None


def configured_remote(root: Path, name: str | None) -> Remote:
    """The remote `name` (or the default one) of the DVC project at `root`."""
    config = dvc_config(root)
    name = name or config["core"].get("remote")
    if not name:
        raise RemoteError(
            "no DVC remote: add one with `dvc remote add -d NAME URL` (docs/REMOTES.md), "
            "or name one with PLANDVC_REMOTE"
        )
    remote = config["remote"].get(name)
    if remote is None:
        known = ", ".join(sorted(config["remote"])) or "none"
        raise RemoteError(f"no DVC remote named '{name}' (configured: {known})")
    port = remote.get("port")
    return Remote(name, str(remote["url"]), remote.get("endpointurl"), int(port) if port else None)


# keys of a remote that must never be in the committed .dvc/config
SECRETS = (
    "access_key_id", "secret_access_key", "session_token", "password", "passphrase", "account_key",
    "sas_token", "connection_string", "client_secret",
)  # fmt: skip


def committed_secrets(root: Path) -> None:
    """RemoteError when the committed .dvc/config holds a secret of any remote: a commit would publish it.
    Credentials belong in .dvc/config.local (`dvc remote modify --local`) or the environment."""
    repo_level = dvc_config(root).load_one("repo")
    for name, remote in sorted(repo_level.get("remote", {}).items()):
        for key in SECRETS:
            if key in remote:
                raise RemoteError(
                    f".dvc/config holds {key} for remote '{name}': move it to .dvc/config.local with "
                    "`dvc remote modify --local` (or the environment) and remove it from .dvc/config"
                )


def probe(remote: Remote, seconds: float = PROBE_SECONDS) -> None:
    """Connect to the remote's host and port once, so a closed port or a dead host is one line at once."""
    address = remote.address()
    if address is None:
        return
    try:
        socket.create_connection(address, timeout=seconds).close()
    except OSError as e:
        reason = e.strerror or type(e).__name__
        raise RemoteError(
            f"remote '{remote.name}' ({remote.endpoint or remote.url}) is unreachable: "
            f"cannot connect to {address[0]}:{address[1]} ({reason})"
        ) from None


CREDENTIALS = re.compile(
    r"\b(403|Forbidden|InvalidAccessKeyId|SignatureDoesNotMatch|AccessDenied|InvalidClientTokenId)\b"
)
SSH_AUTH = re.compile(r"Permission denied|No more authentication methods|Authentication failed")
HOST_KEY = re.compile(r"Host key is not trusted|host key", re.IGNORECASE)
FAILED_FILES = re.compile(r"(\d+) files? failed to (?:download|upload)")


def one_line(action: str, remote: Remote, stderr: str) -> str:
    """The one line that names why `dvc push`/`dvc pull` failed, from DVC's error output."""
    failed = FAILED_FILES.search(stderr)
    files = f" ({failed.group(1)} files not {'pulled' if action == 'pull' else 'pushed'})" if failed else ""
    if "No space left on device" in stderr or "[Errno 28]" in stderr:
        where = "this machine" if action == "pull" else f"remote '{remote.name}'"
        return f"{action}: no space left on device on {where}{files}; free space and rerun `make {action}`"
    if "NoSuchBucket" in stderr or "bucket does not exist" in stderr:
        return (
            f"remote '{remote.name}': bucket '{remote.bucket}' does not exist"
            f"{' at ' + remote.endpoint if remote.endpoint else ''}; create it or fix the remote's url"
        )
    if remote.scheme == "s3" and CREDENTIALS.search(stderr):
        return (
            f"remote '{remote.name}' refused the credentials (403 Forbidden): set the key with "
            "`dvc remote modify --local` or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (docs/REMOTES.md)"
        )
    if remote.scheme == "ssh" and SSH_AUTH.search(stderr):
        return (
            f"remote '{remote.name}' ({remote.url}) refused the login: set the key with "
            "`dvc remote modify --local NAME keyfile PATH` (docs/REMOTES.md)"
        )
    if remote.scheme == "ssh" and HOST_KEY.search(stderr):
        return f"remote '{remote.name}': the server's host key is not in ~/.ssh/known_hosts (docs/REMOTES.md)"
    errors = [ln.removeprefix("ERROR:").strip() for ln in stderr.splitlines() if ln.startswith("ERROR:")]
    if errors:
        return f"{action} to/from remote '{remote.name}': {errors[0].removeprefix('unexpected error - ')}"
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    return f"dvc {action} failed" + (f": {lines[-1]}" if lines else "")


APPS_PIPELINE = "apps/dvc.yaml"  # `make eval`'s pipeline (the applications, docs/APPS.md): not a version's


def version_targets(root: Path) -> list[str]:
    """What a plain `plandvc push` publishes and a plain `plandvc pull` asks for, one list for both: every DVC
    file of the project (the root dvc.yaml, whose dvc.lock a version is, and each .dvc file), relative to
    `root`, but the applications' pipeline, whose outputs `make gen` never makes (a push after it could not
    publish them, and a pull asking for them failed on a complete version). Name it to move them:
    `plandvc push apps/dvc.yaml` after `make eval`, `plandvc pull apps/dvc.yaml`."""
    from dvc.repo import Repo

    with Repo(str(root)) as repo:
        files = {os.path.relpath(stage.dvcfile.path, root) for stage in repo.index.stages}
    apps = os.path.relpath(Path(Repo.find_root(str(root))) / APPS_PIPELINE, root)
    return sorted(f for f in files if f != apps)


def sync(
    action: str,
    root: Path,
    remote_name: str | None = None,
    targets: tuple[str, ...] = (),
    jobs: int | None = None,
) -> None:
    """Run `dvc push` or `dvc pull` in the project at `root` against one remote; RemoteError with one line
    when it fails. DVC's summary goes to stdout as it prints it."""
    if action not in ("push", "pull"):
        raise ValueError(action)
    committed_secrets(root)
    remote = configured_remote(root, remote_name)
    probe(remote)
    targets = targets or tuple(version_targets(root))  # push and pull agree on what a version is
    cmd = [
        sys.executable,
        "-m",
        "dvc",
        action,
        "-r",
        remote.name,
        *(["-j", str(jobs)] if jobs else []),
        *targets,
    ]
    done = subprocess.run(cmd, cwd=root, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    if done.returncode != 0:
        raise RemoteError(one_line(action, remote, done.stderr))
    sys.stderr.write(done.stderr)


def _command(action: str):  # -> click.Command
    import click

    @click.command(action)
    @click.option(
        "-r",
        "--remote",
        "remote_name",
        envvar="PLANDVC_REMOTE",
        help="The DVC remote (default: core.remote).",
    )
    @click.option(
        "-j", "--jobs", type=click.IntRange(1), help="Parallel transfers (DVC's default otherwise)."
    )
    @click.argument("targets", nargs=-1)
    def command(remote_name: str | None, jobs: int | None, targets: tuple[str, ...]) -> None:
        sync(action, Path.cwd(), remote_name, targets, jobs)

    command.help = (
        f"`dvc {action}` the outputs {'to' if action == 'push' else 'from'} a DVC remote, with one clear line "
        "when the remote is unreachable, refuses the credentials, has no such bucket or a disk is full.\n\n"
        "With no TARGETS, the outputs of every DVC file but the applications' pipeline (apps/dvc.yaml, `make "
        "eval`'s; name it to move its outputs): push and pull agree on what a version is. "
        f"TARGETS limit it to some outputs (e.g. data/exports/v1/hf).\n\n\b\nExample:\n"
        f"    plandvc {action}\n    plandvc {action} -r store data/exports/v1/hf"
    )
    return command


push = _command("push")
pull = _command("pull")
