"""URL paths as the pool and the replay compare them: the path of a URL or path?query, without a trailing slash
(a start page, a trajectory's end, a link's href)."""

from __future__ import annotations

from urllib.parse import urlsplit


def url_path(url: str | None) -> str:
    """The path of a URL or path?query, without a trailing slash; "/" for the root or an empty URL."""
    return urlsplit(url or "").path.rstrip("/") or "/"
