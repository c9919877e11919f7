"""`plandvc serve`: serve the sites standalone, one server process per port, until Ctrl-C."""

from __future__ import annotations

import signal
import time
from types import FrameType

import click

from plandvc.ports import PORTS
from plandvc.sites.servers import Servers
from plandvc.sites.spec import load_sites


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@click.command()
@click.option("--sites", "sites_dir", default="data/sites", show_default=True, help="the sites directory")
@click.option(
    "--ports", type=PORTS, default="8320", show_default=True, help="comma-separated ports on 127.0.0.1"
)
def serve(sites_dir: str, ports: list[int]) -> None:
    """Serve every site at http://127.0.0.1:<port>/sites/<site>, one process per port, until Ctrl-C.

    Each session (cookie) has its own state; GET /_state/<site> shows it, POST /_state/<site>/reset
    resets it. A server that dies is restarted.

    \b
    Example:
        plandvc serve --sites data/sites --ports 8320,8321
        curl http://127.0.0.1:8320/sites/shop/orders?status=Shipped
    """
    # Ctrl-C and SIGTERM both stop the servers cleanly, also when started from a shell that ignores
    # SIGINT for its background jobs (Python then leaves SIGINT ignored, and `kill -INT` did nothing)
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    try:
        specs = load_sites(sites_dir)
        with Servers(ports, sites_dir) as servers:
            click.echo(
                f"serving {len(specs)} sites ({', '.join(specs)}) on {', '.join(servers.bases)}; Ctrl-C stops"
            )
            while True:
                time.sleep(1.0)  # watchdog interval: restart a server that died
                for i in servers.ensure_alive():
                    click.echo(f"restarted the server on port {servers.ports[i]}", err=True)
    except KeyboardInterrupt:
        click.echo("stopped")
