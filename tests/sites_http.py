"""HTTP helpers for the sites tests: a small cookie-keeping client (one keep-alive connection, a cookie jar of
one, no redirects) and an HTML reader for list pages and forms (stdlib html.parser)."""

from __future__ import annotations

import http.client
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlencode, urlsplit

import orjson


class Client:
    """One keep-alive HTTP connection with its own session cookie (a cookie jar of one), no redirects."""

    def __init__(self, base: str, session: str | None = None):
        u = urlsplit(base)
        self.host, self.port = u.hostname or "127.0.0.1", u.port or 80
        self.session = session
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=10)

    def request(self, method: str, path: str, form: dict[str, Any] | None = None) -> tuple[int, dict, bytes]:
        headers = {}
        body = None
        if self.session:
            headers["Cookie"] = f"plandvc_session={self.session}"
        if form is not None:
            body = urlencode(form, doseq=True).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                r = self.conn.getresponse()
                data = r.read()
                break
            except (http.client.RemoteDisconnected, ConnectionError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
                if attempt:
                    raise
        cookie = r.getheader("Set-Cookie")
        if cookie and self.session is None:
            self.session = cookie.split(";")[0].split("=", 1)[1]
        return r.status, dict(r.getheaders()), data

    def get(self, path: str) -> tuple[int, bytes]:
        status, _, data = self.request("GET", path)
        return status, data

    def post(self, path: str, form: dict[str, Any]) -> tuple[int, dict, bytes]:
        return self.request("POST", path, form)

    def state(self, site: str) -> dict[str, Any]:
        status, data = self.get(f"/_state/{site}")
        assert status == 200, data
        return orjson.loads(data)

    def reset(self, site: str) -> dict[str, Any]:
        status, _, data = self.request("POST", f"/_state/{site}/reset")
        assert status == 200, data
        return orjson.loads(data)

    def close(self) -> None:
        self.conn.close()


class PageReader(HTMLParser):
    """What a test needs from a page: table rows (cell texts, first link), the count line, forms and fields."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.links: list[tuple[str, str]] = []  # (href, text) of links inside table rows
        self.count: str | None = None
        self.forms: list[dict[str, Any]] = []
        self.attrs_seen: list[tuple[str, dict[str, str]]] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._in_tbody = False
        self._link: tuple[str, list[str]] | None = None
        self._count: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.attrs_seen.append((tag, a))
        if tag == "tbody":
            self._in_tbody = True
        elif tag == "tr" and self._in_tbody:
            self._row = []
        elif tag == "td" and self._row is not None:
            self._cell = []
        elif tag == "a" and self._row is not None:
            self._link = (a.get("href", ""), [])
        elif tag == "p" and "data-count" in a:
            self._count = []
        elif tag == "form":
            self.forms.append({"attrs": a, "fields": []})
        elif tag in ("input", "select", "button") and self.forms:
            self.forms[-1]["fields"].append((tag, a))

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._in_tbody = False
        elif tag == "td" and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None
        elif tag == "a" and self._link is not None:
            self.links.append((self._link[0], "".join(self._link[1]).strip()))
            self._link = None
        elif tag == "p" and self._count is not None:
            self.count = "".join(self._count).strip()
            self._count = None

    def handle_data(self, data: str) -> None:
        for buf in (self._cell, self._count, self._link[1] if self._link else None):
            if buf is not None:
                buf.append(data)


def read_page(html: bytes) -> PageReader:
    r = PageReader()
    r.feed(html.decode("utf-8"))
    r.close()
    return r
