"""The pool and site contract: JSON Schemas for what a user brings (an executor pool, a site), and the checks
that tell them exactly what is wrong with it.

`schemas/` holds the JSON Schemas (draft 2020-12) of task.json, trajectory.json, elements.json, a kept.jsonl
line, site.json and site_split.json. `plandvc.pool.store.Pool`, the one reader of a pool, validates a pool's
files against them and against each other (ids, sites and macros agree, every step names a recorded element);
`plandvc.contract.pages` renders the site's pages with the server's own code, without a browser, and walks each
trajectory on them; `plandvc.contract.pool.check_pool` puts both together for `plandvc check-pool`. pool-items,
run-chains and the evaluation read parts through the same `Pool`, so they refuse exactly the parts check-pool
calls bad, with the same reason.
"""
