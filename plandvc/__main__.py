from __future__ import annotations

from plandvc.cli import cli

cli()
