"""Screenshots of the app sites for the docs, beside the generated world's (`plandvc.world.shoot`): each app's
home, a list and a form page (its adapter's `pages`), on a fresh session of its seeded state.

    python -m plandvc.apps.shoot --out docs/apps --doc docs/APPS.md [--apps trac,oscar]

Each app is installed and seeded when it is not yet (its adapter's `install` and `template`), served on a free
loopback port, and its pages opened in headless Chromium at the harness's viewport, as the world's shoot does
(`<app>-home.jpg`, `<app>-list.jpg`, `<app>-form.jpg` in `--out`). With `--doc`, the part of that markdown file
between `<!-- apps:begin -->` and `<!-- apps:end -->` is replaced by the pictures.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from plandvc.apps import REGISTRY
from plandvc.apps.app import App
from plandvc.errors import script_main
from plandvc.io import InputError, write_bytes
from plandvc.world.shoot import _shoot

BEGIN, END = "<!-- apps:begin -->", "<!-- apps:end -->"


def shoot(apps: Sequence[App], out: Path, seed: int = 0, size: int = 40) -> None:
    """Screenshot every app's `pages` into `out`, each app on its own fresh session."""
    out.mkdir(parents=True, exist_ok=True)
    for app in apps:
        with app.serve(seed, size) as served:
            shots = [(path, f"{app.name}-{kind}.jpg") for kind, path in app.pages]
            asyncio.run(_shoot(served.base, shots, out))


def write_doc(doc: Path, out: Path, apps: Sequence[App]) -> None:
    """Replace the apps' part of `doc` with their pictures (paths relative to it)."""
    text = doc.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise InputError(f"{doc}: no {BEGIN} ... {END} part to fill")
    rel = out.resolve().relative_to(doc.resolve().parent)
    pics = [
        f"### {app.title}\n\n"
        + "\n".join(f"![{kind}: {path}]({rel}/{app.name}-{kind}.jpg)" for kind, path in app.pages)
        + "\n"
        for app in apps
    ]
    head, rest = text.split(BEGIN, 1)
    body = f"{BEGIN}\n" + "\n".join(pics) + END
    write_bytes(doc, (head + body + rest.split(END, 1)[1]).encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m plandvc.apps.shoot", description=__doc__.split("\n")[0])
    ap.add_argument("--apps", default=",".join(REGISTRY), help="comma list of apps (plandvc.apps.REGISTRY)")
    ap.add_argument("--out", type=Path, default=Path("docs/apps"), help="where the JPEGs go")
    ap.add_argument("--doc", type=Path, default=None, help="a markdown file whose apps part to fill")
    args = ap.parse_args(argv)

    def body() -> int:
        names = [a for a in args.apps.split(",") if a]
        unknown = sorted(set(names) - set(REGISTRY))
        if unknown:
            raise InputError(f"--apps: unknown {', '.join(unknown)} (known: {', '.join(sorted(REGISTRY))})")
        apps = [REGISTRY[n] for n in names]
        shoot(apps, args.out)
        if args.doc:
            write_doc(args.doc, args.out, apps)
        print(f"pictured {len(apps)} apps in {args.out}: {', '.join(names)}")
        return 0

    return script_main("plandvc.apps.shoot", body)


if __name__ == "__main__":
    sys.exit(main())
