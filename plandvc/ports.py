"""Loopback ports: free ones for servers the run starts itself, and the one parser of a `--ports` list
(comma-separated numbers 1-65535, no duplicates) that every command shares as a click type, and the `--ports`
option itself (`ports_option`), declared once for the commands that start site servers; and `--workers`
(`workers_option`), the browsers those commands run in parallel."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import TypeVar

import click

F = TypeVar("F", bound=Callable[..., object])


def free_ports(n: int) -> list[int]:
    """n distinct free loopback ports (held open together while chosen, so no two are the same). The ports of
    the servers never reach an output."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def parse_ports(text: str) -> list[int]:
    """The ports of a comma-separated list like "8320,8321"; ValueError naming the bad entry otherwise."""
    ports = []
    for p in (p.strip() for p in text.split(",")):
        if not p.isdigit() or not 0 < int(p) < 65536:
            raise ValueError(f"{p!r} is not a port number (1-65535); expected e.g. 8320,8321")
        ports.append(int(p))
    if len(set(ports)) != len(ports):
        raise ValueError(f"duplicate port in {text!r}")
    return ports


class PortList(click.ParamType):
    """A click type for `--ports`: a comma-separated list of loopback ports, parsed by `parse_ports`. A bad
    list is one line naming the option and the value (a ClickException, not a usage error)."""

    name = "ports"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> list[int]:
        if isinstance(value, list):
            return value
        try:
            return parse_ports(str(value))
        except ValueError as e:
            raise click.ClickException(f"--ports: {e}") from None


PORTS = PortList()


def ports_option(help: str) -> Callable[[F], F]:
    """`--ports` (PLANDVC_PORTS): the site servers' ports, parsed by `PORTS`; `help` says the command's default."""
    return click.option("--ports", type=PORTS, envvar="PLANDVC_PORTS", default=None, help=help)


def workers_option(default: int, most: int = 64) -> Callable[[F], F]:
    """`--workers` (PLANDVC_WORKERS): browsers in parallel, 1 to `most`, which never changes the output; a bad
    value in the option or the variable is click's one-line usage error."""
    return click.option(
        "--workers",
        type=click.IntRange(1, most),
        envvar="PLANDVC_WORKERS",
        default=default,
        show_default=True,
        help="browsers in parallel (PLANDVC_WORKERS); never changes the output",
    )
