"""Writing the viewer: static pages with their data embedded as JSON, the package's own CSS and JS copied
beside them, built in a folder beside `out` and swapped in with `plandvc.io.publish_dir`.

```
<out>/index.html            every chain, filters and search (client-side), PAGE_SIZE rows at a time
<out>/stats.html            counts by site / macro / family / parts / via, failure reasons, prompt lengths, split
<out>/prompts.html          each distinct system prompt once, with its sha256
<out>/chains/<key>.html     one chain: request, parts, the step strip (← / →), screenshot, target, memory
<out>/assets/               view.css, index.js, chain.js (package data; nothing is fetched from a network)
```

Screenshots are linked by relative path into the dataset version (or the raw run, for chains that are not
in it), never copied. Embedded JSON has `<`, `>`, `&` and the JS line separators escaped, so no text in a
row can close its `<script>`. Everything is written in key order with no clock, so the same inputs give the
same bytes.
"""

from __future__ import annotations

from dataclasses import asdict
from importlib import resources
from pathlib import Path

import orjson
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from plandvc.io import dumps, owned_folder, publish_built, write_bytes
from plandvc.view.build import ChainView, IndexEntry, Prompt, Site
from plandvc.view.read import STATUSES

PAGE_SIZE = 100  # index rows in the DOM at once, whatever the number of chains
ASSETS = ("view.css", "index.js", "chain.js")
_PACKAGE = Path(__file__).resolve().parent
PAGES = ("index.html", "stats.html", "prompts.html", "view.json", "chains", "assets")
_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def embed_json(obj: object) -> Markup:
    """JSON safe inside `<script type="application/json">`: no `</script>`, `<!--` or line separator survives."""
    text = dumps(obj).decode()
    for ch, esc in _ESCAPES.items():
        text = text.replace(ch, esc)
    return Markup(text)


def _env() -> Environment:
    return Environment(
        loader=FileSystemLoader(_PACKAGE / "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _asset(name: str) -> bytes:
    return resources.files("plandvc.view").joinpath("assets", name).read_bytes()


def index_page(
    env: Environment,
    version: str,
    entries: list[IndexEntry],
    facets: dict[str, list[str]],
    raw_given: bool,
    failures: dict[str, str] | None = None,
) -> str:
    data: dict[str, object] = {
        "version": version,
        "page_size": PAGE_SIZE,
        "facets": facets,
        "chains": entries,
    }
    if (
        failures
    ):  # the recovery chains' failure kinds by key, for the failure filter (only when there are any)
        data["failures"] = failures
    return env.get_template("index.html").render(
        root="", page="index", version=version, facets=facets, raw_given=raw_given, data=embed_json(data)
    )


def chain_page(env: Environment, version: str, chain: ChainView, prompts: dict[str, Prompt]) -> str:
    data: dict[str, object] = {
        "key": chain.head.key,
        "status": chain.head.status,
        "parts": chain.parts,
        "steps": chain.steps,
    }
    if chain.recovery is not None:
        data["recovery"] = chain.recovery
    return env.get_template("chain.html").render(
        root="../", page="chain", version=version, chain=chain, prompts=prompts, data=embed_json(data)
    )


def recovery_kinds(chains: list[ChainView]) -> dict[str, str]:
    """The failure kind of every recovery chain, by key."""
    return {c.head.key: c.recovery.kind for c in chains if c.recovery is not None}


def write_index(
    out: Path, version: str, entries: list[IndexEntry], facets: dict[str, list[str]], raw_given: bool = True
) -> None:
    """Only the index and its assets (the large-index test and the bench write synthetic entries with it)."""
    env = _env()
    write_bytes(out / "index.html", index_page(env, version, entries, facets, raw_given).encode())
    for name in ASSETS:
        write_bytes(out / "assets" / name, _asset(name))


def _render(site: Site, tmp: Path) -> None:
    env = _env()
    name = site.version.name
    (tmp / "assets").mkdir(parents=True)
    (tmp / "chains").mkdir()
    for a in ASSETS:
        (tmp / "assets" / a).write_bytes(_asset(a))
    (tmp / "index.html").write_text(
        index_page(env, name, site.index, site.facets, site.raw_given, recovery_kinds(site.chains)),
        encoding="utf-8",
    )
    prompts = {p.sha256: p for p in site.prompts}
    for chain in site.chains:
        (tmp / "chains" / f"{chain.head.key}.html").write_text(
            chain_page(env, name, chain, prompts), encoding="utf-8"
        )
    leak = orjson.dumps(site.stats.split.leak, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    (tmp / "stats.html").write_text(
        env.get_template("stats.html").render(
            root="", page="stats", version=name, s=site.stats, statuses=STATUSES, leak=leak
        ),
        encoding="utf-8",
    )
    (tmp / "prompts.html").write_text(
        env.get_template("prompts.html").render(root="", page="prompts", version=name, prompts=site.prompts),
        encoding="utf-8",
    )
    (tmp / "view.json").write_bytes(
        dumps(
            {"version": name, "stats": asdict(site.stats), "page_size": PAGE_SIZE},
            sort_keys=True,
            indent=True,
        )
        + b"\n"
    )


# a previous viewer: only its pages and folders, and a view.json that is the viewer's own
is_view = owned_folder(
    PAGES,
    "view.json",
    lambda found: isinstance(found, dict) and {"version", "stats", "page_size"} <= found.keys(),
)


def write_site(site: Site, out: Path) -> None:
    """Write every page into a folder beside `out`, then publish it in one swap (`io.publish_built`)."""
    publish_built(out, lambda tmp: _render(site, tmp))
