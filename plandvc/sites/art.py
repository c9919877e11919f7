"""How values are written on a page (numbers with units), and page furniture drawn locally: deterministic SVG pictures, star ratings and badge tones.

Nothing is fetched: a picture is an inline SVG whose colours and shapes come from a hash of the entry's name,
so the same entry always looks the same and two entries rarely look alike.
"""

from __future__ import annotations

import hashlib

from markupsafe import Markup, escape

from plandvc.sites.model import Column


def _hash(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


def picture(name: str, width: int, height: int, label: str = "", initials: bool = True) -> Markup:
    """An inline SVG picture of `name`: a two-hue gradient, three soft shapes and (with `initials`) the
    name's initials; it fills its box (`slice`), so a banner may be stretched by CSS."""
    h = _hash(name)
    hue1, hue2 = h[0] * 360 // 256, (h[0] * 360 // 256 + 40 + h[1] % 80) % 360
    gid = f"g{h[2]:02x}{h[3]:02x}{h[4]:02x}"
    shapes = []
    for k in range(3):
        cx, cy = h[5 + k] * width // 256, h[8 + k] * height // 256
        r = (h[11 + k] % 40 + 20) * min(width, height) // 100
        shapes.append(
            f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="hsl({(hue2 + 30 * k) % 360},70%,{70 - 8 * k}%)" '
            f'fill-opacity="0.55"/>'
        )
    letters = "".join(w[0] for w in name.split()[:2] if w and w[0].isalnum()).upper() or "•"
    size = min(width, height) // 3
    text = (
        f'<text x="50%" y="54%" text-anchor="middle" dominant-baseline="middle" font-size="{size}" '
        f'font-family="DejaVu Sans" font-weight="bold" fill="#ffffff" fill-opacity="0.9">{escape(letters)}</text>'
    )
    svg = (
        f'<svg class="pic" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" preserveAspectRatio="xMidYMid slice" role="img" aria-label="{escape(label or name)}">'
        f'<defs><linearGradient id="{gid}" x1="0" y1="0" x2="1" y2="1">'
        f'<stop offset="0" stop-color="hsl({hue1},65%,55%)"/><stop offset="1" stop-color="hsl({hue2},60%,35%)"/>'
        f'</linearGradient></defs><rect width="{width}" height="{height}" fill="url(#{gid})"/>{"".join(shapes)}'
        f"{text if initials else ''}</svg>"
    )
    return Markup(svg)


def stars(value: float) -> str:
    """Five stars for a rating out of 5 (rounded to the nearest half as full/empty)."""
    full = int(value + 0.5)
    return "★" * full + "☆" * (5 - full)


def tone(value: str, options: tuple[str, ...]) -> int:
    """A badge colour slot 0..5 for an enum value (its position among the column's options)."""
    return options.index(value) % 6 if value in options else 0


def format_value(col: Column, v: object) -> str:
    """A cell's text: numbers with thousands separators, `decimals`, `prefix`/`suffix`; others as stored."""
    if col.type == "number" and isinstance(v, int | float):
        return f"{col.prefix}{v:,.{col.decimals}f}{col.suffix}"
    return str(v)


def plain_number(v: float | int | None) -> str:
    """A number as a form field writes it: `120`, `12.5`; None is empty."""
    if v is None:
        return ""
    return str(int(v)) if float(v).is_integer() else repr(float(v))
