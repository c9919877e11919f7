"""Teacher-forced evaluation: each turn of each held-out chain gets exactly the input its training row holds
(the messages, the screenshot as an image part: a base64 data URL of the row's PNG), and the reply is scored
against the known turn (`plandvc.eval.score`). Turns are independent, so they are asked concurrently (the
client bounds how many at once); the records come back in (chain, turn) order whatever order replies come in.
"""

from __future__ import annotations

import asyncio
import base64
from dataclasses import dataclass
from typing import Any

from plandvc.eval.client import PlannerClient, text_only
from plandvc.eval.score import Score, score_reply
from plandvc.eval.specs import HeldOut, Turn
from plandvc.io import InputError, read_jsonl
from plandvc.run.script import with_image_urls


@dataclass
class TurnReply:
    """One teacher-forced turn: where it is, what it should be, the reply and its score."""

    chain: HeldOut
    turn_index: int
    turn: Turn
    reply: str | None
    error: str | None
    score: Score


def with_images(messages: list[dict[str, Any]], chain: HeldOut) -> list[dict[str, Any]]:
    """A row's messages with each image file name (`step_<t>.png`) replaced by its PNG as a data URL."""

    def data_url(name: str) -> str:
        path = chain.dir / name
        if "/" in name or not path.is_file():
            raise InputError(f"{chain.dir / 'rows.jsonl'}: image {name!r} is not in the chain")
        return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()

    return with_image_urls(messages, data_url)


def turn_inputs(chain: HeldOut, images: bool = True) -> list[list[dict[str, Any]]]:
    """The planner's input at every turn of `chain`, from its rows (one row a turn, in order)."""
    rows = read_jsonl(chain.dir / "rows.jsonl")
    if [r.get("step") for r in rows] != list(range(len(chain.turns))):
        raise InputError(
            f"{chain.dir / 'rows.jsonl'}: rows do not match the chain's {len(chain.turns)} turns"
        )
    return [with_images(r["messages"], chain) if images else text_only(r["messages"]) for r in rows]


async def teacher_forced(
    chains: list[HeldOut], client: PlannerClient, images: bool = True
) -> list[TurnReply]:
    """Ask the planner every turn of every chain; the scored replies in (chain key, turn) order."""
    jobs = [(c, t, msgs) for c in chains for t, msgs in enumerate(turn_inputs(c, images))]

    async def one(c: HeldOut, t: int, msgs: list[dict[str, Any]]) -> TurnReply:
        text, error = await client.reply(msgs)
        return TurnReply(c, t, c.turns[t], text, error, score_reply(text, c.turns[t], c))

    return list(await asyncio.gather(*(one(*j) for j in jobs)))
