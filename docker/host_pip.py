"""The host's pip settings for the image build's pip step only: index URLs, trusted hosts and CA bundle.

Run by docker/plandvc-docker.sh before a build: ``python3 docker/host_pip.py <folder>`` writes
``<folder>/pip.conf`` (and ``<folder>/ca.pem`` when the host names a CA bundle). The Dockerfile's pip
step bind-mounts that folder at BUILD_MOUNT and points PIP_CONFIG_FILE at it, so nothing of the host
reaches an image layer. Local indexes (file:// URLs, folders) are left out: the build cannot see them.
Stdlib only: it runs with the host's python3 before any venv exists.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

BUILD_MOUNT = "/run/plandvc-host"
CA_ENV = ("PIP_CERT", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")
INDEX_KEYS = ("index-url", "extra-index-url", "trusted-host")


class HostConfigError(Exception):
    """A host setting the build cannot use (one line naming it)."""


def pip_config() -> dict[str, str]:
    """`pip config list` as {key: value}, e.g. {"global.cert": "..."}; empty when pip is unavailable."""
    try:
        out = subprocess.run(
            [sys.executable, "-m", "pip", "config", "list"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    return parse_config_list(out)


def parse_config_list(text: str) -> dict[str, str]:
    """Parse `pip config list` lines (``global.cert='/x'``) into {key: value}."""
    config: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            config[key.strip()] = value.strip().strip("'\"")
    return config


def _setting(name: str, env: Mapping[str, str], config: Mapping[str, str]) -> str | None:
    """A pip setting by its long name, environment first (PIP_<NAME>), then any config scope."""
    env_value = env.get("PIP_" + name.upper().replace("-", "_"))
    if env_value:
        return env_value
    for key, value in config.items():
        if key.rpartition(".")[2] == name and value:
            return value
    return None


def ca_bundle(env: Mapping[str, str], config: Mapping[str, str]) -> Path | None:
    """The host's CA bundle: PIP_CERT, pip's `cert`, SSL_CERT_FILE, REQUESTS_CA_BUNDLE (first one set)."""
    candidates = [("PIP_CERT", env.get("PIP_CERT")), ("pip config cert", _setting("cert", {}, config))]
    candidates += [(name, env.get(name)) for name in CA_ENV[1:]]
    for source, value in candidates:
        if value:
            path = Path(value)
            if not path.is_file():
                raise HostConfigError(f"{source} names a CA bundle that is not a file: {value}")
            return path
    return None


def remote_urls(value: str | None) -> list[str]:
    """The http(s) URLs of a space-separated pip setting (local indexes dropped)."""
    return [url for url in (value or "").split() if url.startswith(("http://", "https://"))]


def build_pip_conf(env: Mapping[str, str], config: Mapping[str, str], has_ca: bool) -> str:
    """The pip.conf the build's pip step reads: the host's remote indexes, trusted hosts, CA."""
    lines = ["[global]"]
    index = remote_urls(_setting("index-url", env, config))
    if index:
        lines.append(f"index-url = {index[0]}")
    extra = remote_urls(_setting("extra-index-url", env, config))
    if extra:
        lines.append("extra-index-url = " + " ".join(extra))
    trusted = (_setting("trusted-host", env, config) or "").split()
    if trusted:
        lines.append("trusted-host = " + " ".join(trusted))
    if has_ca:
        lines.append(f"cert = {BUILD_MOUNT}/ca.pem")
    return "\n".join(lines) + "\n"


def write_host_config(folder: Path, env: Mapping[str, str], config: Mapping[str, str]) -> str:
    """Write pip.conf (and ca.pem) into folder; return a one-line summary without host paths."""
    folder.mkdir(parents=True, exist_ok=True)
    ca = ca_bundle(env, config)
    if ca is not None:
        shutil.copyfile(ca, folder / "ca.pem")
    (folder / "pip.conf").write_text(build_pip_conf(env, config, ca is not None))
    index = "host index" if _setting("index-url", env, config) else "default index"
    return f"build pip settings: {index}, {'host CA bundle' if ca else 'system CAs'}"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: host_pip.py <folder>", file=sys.stderr)
        return 2
    try:
        print(write_host_config(Path(argv[0]), os.environ, pip_config()), file=sys.stderr)
    except HostConfigError as error:
        print(f"host_pip: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
