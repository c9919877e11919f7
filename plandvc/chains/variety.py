"""How varied a chains file's requests are, beside WebVoyager's tasks: with values masked (quoted strings,
dates, numbers), the distinct words, the share of distinct word 3-grams, and the most used phrasing's share.

- **Words** are lower-cased runs of letters (and ' -) once values are masked; a value is one token `<v>`.
- **3-grams** are taken within each request; the share is distinct 3-grams over all 3-grams.
- **A phrasing** is a request's template: the phrasing ids it drew (`phrasing.request`, varied chains only,
  `plandvc.chains.phrasing`); its share is the requests drawing exactly that sequence of ids. A file without
  recorded phrasings (v3's, WebVoyager's) has none to count.

WebVoyager's figures are computed from its own tasks (`webvoyager/WebVoyager_data.jsonl`, 643 tasks, from
MinorJerry/WebVoyager at 5a78967, Apache-2.0: `webvoyager/LICENSE`): `n` of them drawn by
`random.Random(seed).sample`, the same measure.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from plandvc.io import InputError, read_jsonl

WEBVOYAGER = Path(__file__).with_name("webvoyager") / "WebVoyager_data.jsonl"
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_VALUE = re.compile(
    r"\"[^\"\n]*\"|“[^”\n]*”|'[^'\n]{2,}'(?!\w)"
    rf"|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b{_MONTH}\.? \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)? {_MONTH}(?: \d{{4}})?\b"
    r"|[$€£]?\d+(?:[.,:/]\d+)*%?",
    re.I,
)
_WORD = re.compile(r"<v>|[^\W\d_]+(?:['’-][^\W\d_]+)*")


def masked_words(text: str) -> list[str]:
    """The request's words once its values are masked, lower case (a value is `<v>`)."""
    return _WORD.findall(_VALUE.sub(" <v> ", text).lower())


@dataclass(frozen=True)
class Variety:
    """The measures over `requests` requests."""

    requests: int
    words: int
    trigram_share: float
    top_phrasing_share: float | None  # None: no recorded phrasings


def variety(requests: Sequence[str], phrasings: Sequence[tuple[str, ...]] = ()) -> Variety:
    """The measures of `requests` (and their recorded `phrasings`, one a request, when there are)."""
    vocab: set[str] = set()
    grams: Counter[tuple[str, ...]] = Counter()
    for r in requests:
        ws = masked_words(r)
        vocab.update(w for w in ws if w != "<v>")
        grams.update(tuple(ws[i : i + 3]) for i in range(len(ws) - 2))
    total = sum(grams.values())
    top = Counter(phrasings).most_common(1)[0][1] / len(phrasings) if phrasings else None
    return Variety(len(requests), len(vocab), round(len(grams) / total, 4) if total else 0.0, top)


def chains_variety(path: Path) -> Variety:
    """The measures of a chains file's composed requests."""
    chains = [c for c in read_jsonl(path) if "request" in c]
    if not chains:
        raise InputError(f"{path}: no composed request (chain-specs --request composed)")
    recorded = [tuple(c["phrasing"]["request"]) for c in chains if "phrasing" in c]
    return variety([c["request"] for c in chains], recorded if len(recorded) == len(chains) else ())


def webvoyager_variety(n: int = 300, seed: int = 0) -> Variety:
    """The measures of `n` WebVoyager tasks drawn by `seed`."""
    tasks = [json.loads(line)["ques"] for line in WEBVOYAGER.read_text(encoding="utf-8").splitlines() if line]
    return variety(random.Random(seed).sample(tasks, min(n, len(tasks))))


def table(rows: Sequence[tuple[str, Variety]]) -> str:
    """The measures side by side, one line each."""
    out = [f"{'requests of':<28} {'n':>5} {'words':>6} {'3-grams':>8} {'top phrasing':>13}"]
    for name, v in rows:
        top = "n/a" if v.top_phrasing_share is None else f"{v.top_phrasing_share:.1%}"
        out.append(f"{name:<28} {v.requests:>5} {v.words:>6} {v.trigram_share:>8.2f} {top:>13}")
    return "\n".join(out)
