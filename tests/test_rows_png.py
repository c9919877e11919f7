"""The stdlib PNG reader: a valid PNG decodes, and every kind of defect is named."""

from __future__ import annotations

import os
import struct
import zlib

import pytest
from raw_chains import chunk, png_bytes

from plandvc.rows.png import PngError, read_png_info


def _parts(data: bytes) -> list[tuple[bytes, bytes]]:
    out, pos = [], 8
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        out.append((data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]))
        pos += 12 + n
    return out


def _build(parts: list[tuple[bytes, bytes]]) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunk(t, b) for t, b in parts)


def test_valid_png_decodes_rgb_and_rgba(tmp_path):
    assert read_png_info(png_bytes()) == (1280, 800, 8, 2, 0)
    p = tmp_path / "a.png"
    p.write_bytes(png_bytes(4, 3, colour=6))
    w, h, *_ = read_png_info(p)
    assert (w, h) == (4, 3)


def test_split_idat_chunks_are_concatenated():
    (ihdr, idat, iend) = _parts(png_bytes(8, 8))
    data = idat[1]
    split = _build([ihdr, (b"IDAT", data[:5]), (b"IDAT", data[5:]), iend])
    assert read_png_info(split)[:2] == (8, 8)


def test_interlaced_size_is_computed_per_pass():
    width, height = 5, 3
    passes = [(1, 1), (1, 1), (0, 0), (1, 1), (3, 1), (2, 2), (5, 1)]  # (w, h) of each Adam7 pass for 5x3
    raw = b"".join((b"\0" + b"\7" * (w * 3)) * h for w, h in passes if w and h)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 1)
    good = _build([(b"IHDR", ihdr), (b"IDAT", zlib.compress(raw)), (b"IEND", b"")])
    assert read_png_info(good)[:2] == (5, 3)
    bad = _build([(b"IHDR", ihdr), (b"IDAT", zlib.compress(raw + b"\0")), (b"IEND", b"")])
    with pytest.raises(PngError, match="more than"):
        read_png_info(bad)


def _defects():
    ihdr, idat, iend = _parts(png_bytes(16, 8))
    good = png_bytes(16, 8)
    flipped = bytearray(good)
    flipped[8 + 8 + 13 + 4 + 8 + 3] ^= 0xFF  # a byte inside IDAT's body
    other = struct.pack(">IIBBBBB", 16, 9, 8, 2, 0, 0, 0)  # claims one more row than the data has
    return {
        "signature": (b"GIF89a" + good[6:], "bad signature"),
        "empty": (b"", "bad signature"),
        "truncated": (good[: len(good) // 2], "truncated"),
        "truncated header": (good[:-9], "truncated chunk header"),
        "bad crc": (bytes(flipped), "bad CRC in 'IDAT'"),
        "no iend": (good[:-12], "no IEND"),
        "no idat": (_build([ihdr, iend]), "no IDAT"),
        "ihdr not first": (_build([idat, ihdr, iend]), "not IHDR"),
        "ihdr length": (_build([(b"IHDR", ihdr[1] + b"\0"), idat, iend]), "IHDR has 14 bytes"),
        "bad colour": (_build([(b"IHDR", ihdr[1][:9] + b"\5" + ihdr[1][10:]), idat, iend]), "colour type 5"),
        "zero size": (_build([(b"IHDR", b"\0" * 4 + ihdr[1][4:]), idat, iend]), "empty"),
        "size mismatch": (_build([(b"IHDR", other), idat, iend]), "392 bytes, expected 441 for 16x9"),
        "not zlib": (_build([ihdr, (b"IDAT", b"nonsense"), iend]), "not valid zlib"),
        "incomplete zlib": (_build([ihdr, (b"IDAT", idat[1][:-6]), iend]), "incomplete"),
        "after iend": (_build([ihdr, idat, iend, (b"tEXt", b"x")]), "after IEND"),
        "split idat": (
            _build([ihdr, (b"IDAT", idat[1][:4]), (b"tEXt", b"x"), (b"IDAT", idat[1][4:]), iend]),
            "not consecutive",
        ),
        "bad filter": (
            _build([ihdr, (b"IDAT", zlib.compress((b"\x09" + b"\0" * 48) * 8)), iend]),
            "unknown filter type",
        ),
        "palette without PLTE": (
            _build(
                [
                    (b"IHDR", ihdr[1][:9] + b"\3" + ihdr[1][10:]),
                    (b"IDAT", zlib.compress(b"\0" * 17 * 8)),
                    iend,
                ]
            ),
            "without a PLTE",
        ),
    }


@pytest.mark.parametrize("defect", sorted(_defects()))
def test_each_defect_is_named(defect):
    data, message = _defects()[defect]
    with pytest.raises(PngError, match=message):
        read_png_info(data)


def test_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_png_info(tmp_path / "nope.png")


CHROMIUM = os.environ.get("PLANDVC_CHROMIUM", "/usr/bin/chromium")


async def test_a_real_chromium_screenshot_decodes_and_its_truncation_does_not():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is not installed (make chromium installs it)", pytrace=False)
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM)
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        await page.set_content(
            "<h1 style='color:#2a6'>Orders</h1><table><tr><td>1001</td><td>Ada</td></tr></table>"
        )
        shot = await page.screenshot()
        await browser.close()
    assert read_png_info(shot)[:2] == (1280, 800)
    with pytest.raises(PngError):
        read_png_info(shot[: len(shot) - 20])
