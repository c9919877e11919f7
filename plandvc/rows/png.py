"""A PNG reader that really decodes (stdlib only): the checks filter-rows runs on every screenshot.

A screenshot that is truncated, corrupted or the wrong size must never reach training, and "the file
exists" is not enough: the signature, every chunk's CRC, the header, the compressed image data and its
exact decompressed size are all checked, so each defect gets its own clear message.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import NamedTuple

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# colour type -> (channels, allowed bit depths)
_COLOUR = {0: (1, (1, 2, 4, 8, 16)), 2: (3, (8, 16)), 3: (1, (1, 2, 4, 8)), 4: (2, (8, 16)), 6: (4, (8, 16))}
# Adam7 passes: (x start, y start, x step, y step)
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))


class PngError(ValueError):
    """The bytes are not a complete, valid PNG; the message says what is wrong."""


class PngInfo(NamedTuple):
    width: int
    height: int
    bit_depth: int
    colour_type: int
    interlace: int


def _chunks(data: bytes):
    """Yield (type, body) for each chunk, checking lengths and CRCs."""
    pos = len(SIGNATURE)
    while pos < len(data):
        if pos + 8 > len(data):
            raise PngError(f"truncated chunk header at byte {pos}")
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        ctype = data[pos + 4 : pos + 8]
        end = pos + 12 + length
        if end > len(data):
            raise PngError(f"truncated {ctype.decode('latin-1')!r} chunk at byte {pos}")
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[end - 4 : end])
        if zlib.crc32(ctype + body) != crc:
            raise PngError(f"bad CRC in {ctype.decode('latin-1')!r} chunk at byte {pos}")
        yield ctype, body
        pos = end


def _row_bytes(width: int, channels: int, bit_depth: int) -> int:
    return (width * channels * bit_depth + 7) // 8


def _expected_size(info: PngInfo, channels: int) -> tuple[int, list[tuple[int, int]]]:
    """Decompressed size and the (rows, stride) of each pass (one pass unless Adam7-interlaced)."""
    if info.interlace == 0:
        passes = [(info.height, 1 + _row_bytes(info.width, channels, info.bit_depth))]
    else:
        passes = []
        for x0, y0, dx, dy in _ADAM7:
            w = max(0, (info.width - x0 + dx - 1) // dx)
            h = max(0, (info.height - y0 + dy - 1) // dy)
            if w and h:
                passes.append((h, 1 + _row_bytes(w, channels, info.bit_depth)))
    return sum(h * stride for h, stride in passes), passes


def _header(body: bytes) -> tuple[PngInfo, int]:
    if len(body) != 13:
        raise PngError(f"IHDR has {len(body)} bytes, expected 13")
    width, height, depth, colour, compression, filt, interlace = struct.unpack(">IIBBBBB", body)
    if width == 0 or height == 0:
        raise PngError(f"IHDR size {width}x{height} is empty")
    if colour not in _COLOUR or depth not in _COLOUR[colour][1]:
        raise PngError(f"IHDR colour type {colour} with bit depth {depth} is not valid")
    if compression != 0 or filt != 0 or interlace not in (0, 1):
        raise PngError(f"IHDR compression/filter/interlace {compression}/{filt}/{interlace} not valid")
    return PngInfo(width, height, depth, colour, interlace), _COLOUR[colour][0]


def read_png_info(src: str | Path | bytes) -> PngInfo:
    """Decode a PNG (a path or its bytes) far enough to know it is whole; raise PngError on any defect.

    Returns (width, height, bit_depth, colour_type, interlace).
    """
    data = src if isinstance(src, bytes) else Path(src).read_bytes()
    if data[: len(SIGNATURE)] != SIGNATURE:
        raise PngError("not a PNG (bad signature)")
    info: PngInfo | None = None
    channels = 0
    idat: list[bytes] = []
    idat_done = has_palette = has_end = False
    for ctype, body in _chunks(data):
        if has_end:
            raise PngError(f"chunk {ctype.decode('latin-1')!r} after IEND")
        if info is None and ctype != b"IHDR":
            raise PngError(f"first chunk is {ctype.decode('latin-1')!r}, not IHDR")
        if ctype == b"IHDR":
            if info is not None:
                raise PngError("more than one IHDR")
            info, channels = _header(body)
        elif ctype == b"PLTE":
            has_palette = True
        elif ctype == b"IDAT":
            if idat_done:
                raise PngError("IDAT chunks are not consecutive")
            idat.append(body)
        elif ctype == b"IEND":
            has_end = True
        if idat and ctype != b"IDAT":
            idat_done = True
    if info is None:
        raise PngError("no IHDR chunk")
    if not idat:
        raise PngError("no IDAT chunk")
    if not has_end:
        raise PngError("no IEND chunk (file truncated?)")
    if info.colour_type == 3 and not has_palette:
        raise PngError("palette image without a PLTE chunk")
    _check_pixels(b"".join(idat), info, channels)
    return info


def _check_pixels(compressed: bytes, info: PngInfo, channels: int) -> None:
    """Decompress the image data and check its size and every scanline's filter byte."""
    want, passes = _expected_size(info, channels)
    z = zlib.decompressobj()
    try:
        raw = z.decompress(compressed, want + 1)
    except zlib.error as e:
        raise PngError(f"IDAT data is not valid zlib ({e})") from None
    if len(raw) > want:
        raise PngError(f"image data decompresses to more than {want} bytes for {info.width}x{info.height}")
    if not z.eof:
        raise PngError(f"IDAT zlib stream is incomplete ({len(raw)} of {want} bytes)")
    if len(raw) != want:
        raise PngError(f"image data is {len(raw)} bytes, expected {want} for {info.width}x{info.height}")
    pos = 0
    for rows, stride in passes:
        block = raw[pos : pos + rows * stride]
        if max(block[::stride]) > 4:
            raise PngError("a scanline has an unknown filter type")
        pos += rows * stride
