"""The sites: their specs, the renderer, the server with per-session state.

`SITE_CODE` names, relative to the repository root, the files of the site server (`python -m
plandvc.sites.server`, which make-pool and run-chains start) and the templates it renders: the part of both
stages' code lists (`plandvc.pool.code.POOL_CODE`, `plandvc.run.closure.RUN_CODE`) that is the server's.
"""

SITE_CODE: tuple[str, ...] = (
    "plandvc/sites/__init__.py",
    "plandvc/sites/art.py",
    "plandvc/sites/controls.py",
    "plandvc/sites/model.py",
    "plandvc/sites/query.py",
    "plandvc/sites/render.py",
    "plandvc/sites/server.py",
    "plandvc/sites/servers.py",
    "plandvc/sites/spec.py",
    "plandvc/sites/state.py",
    "plandvc/sites/templates",
    "plandvc/sites/world_render.py",
)
