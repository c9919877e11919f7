"""Two set-of-marks screenshots of the same page compared: the marks as drawn (read off the page's
`#playwright-highlight-container`, the same way whoever drew them) and the pictures pixel by pixel.

The marks are read from the drawing itself, not from the drawer's own account of it: browser-use 0.5.0's
highlightElement appends, per element, one overlay `div` per client rect and then its label
(`.playwright-highlight-label`, the index as text), so the container's children in order give each mark's
index, its rectangles, its label's box and its colour. Used by tests/test_dialect_marks.py (the comparison
shown failing) and tests/test_dialect_conformance.py (the dialect against browser-use itself)."""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageChops

# each mark as drawn: [index, [[x, y, w, h] of each overlay], [x, y, w, h] of its label, its border colour]
READ_MARKS_JS = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height].map((v) => Math.round(v * 100) / 100); };
  const c = document.getElementById('playwright-highlight-container');
  if (!c) return null;
  const out = [];
  let rects = [];
  for (const el of c.children) {
    if (el.classList.contains('playwright-highlight-label')) {
      out.push([Number(el.textContent), rects, box(el), el.style.background]);
      rects = [];
    } else rects.push(box(el));
  }
  return out;
}"""

# the stated pixel tolerance: how many pixels of a 1280x800 viewport may differ between the two pictures
PIXEL_TOLERANCE = 0


@dataclass(frozen=True)
class Mark:
    """One element's mark as drawn: its index, its boxes, its label's box and its colour."""

    index: int
    rects: tuple[tuple[float, ...], ...]
    label: tuple[float, ...]
    color: str


def marks_of(raw: object) -> list[Mark]:
    """READ_MARKS_JS's answer as marks (an empty list when nothing is drawn)."""
    assert isinstance(raw, list) or raw is None, raw
    return [
        Mark(int(i), tuple(tuple(r) for r in rects), tuple(label), str(c)) for i, rects, label, c in raw or []
    ]


def differing_pixels(a: bytes, b: bytes) -> int:
    """How many pixels of PNGs `a` and `b` differ (every pixel when their sizes differ)."""
    ia, ib = Image.open(io.BytesIO(a)).convert("RGB"), Image.open(io.BytesIO(b)).convert("RGB")
    if ia.size != ib.size:
        return max(ia.size[0] * ia.size[1], ib.size[0] * ib.size[1])
    diff = ImageChops.difference(ia, ib).convert("L").point(lambda v: 255 if v else 0)
    return int(sum(diff.histogram()[255:]))


def mismatch(ours: list[Mark], ours_png: bytes, theirs: list[Mark], theirs_png: bytes) -> list[str]:
    """What differs between two marked screenshots, one line each; empty when the marks are equal and the
    pictures within PIXEL_TOLERANCE."""
    problems: list[str] = []
    a, b = {m.index: m for m in ours}, {m.index: m for m in theirs}
    for i in sorted(set(a) | set(b)):
        if i not in a:
            problems.append(f"mark {i} missing from ours")
        elif i not in b:
            problems.append(f"mark {i} missing from theirs")
        elif a[i] != b[i]:
            problems.append(f"mark {i}: ours {a[i]} theirs {b[i]}")
    if [m.index for m in ours] != [m.index for m in theirs] and not problems:
        problems.append("marks drawn in another order")
    n = differing_pixels(ours_png, theirs_png)
    if n > PIXEL_TOLERANCE:
        problems.append(f"{n} pixels differ (tolerance {PIXEL_TOLERANCE})")
    return problems
