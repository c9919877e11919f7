"""The sites' HTTP server: every site at `/sites/<site>`, per-session state, the state API, on loopback only.

    python -m plandvc.sites.server --sites data/sites --port 8320

One process per port (see `plandvc.sites.servers.Servers`). Specs are loaded once at start. A request never
crashes the server: unknown site/page/entry is a 404 page, a malformed value a 400 page.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import threading
from collections.abc import Callable
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, quote, urlsplit

from plandvc.checks import Row
from plandvc.io import InputError, dumps
from plandvc.sites.model import ENTRY_TABS, PAGE_PARAM, TAB_PARAM
from plandvc.sites.query import BadValue, apply_query, parse_query
from plandvc.sites.render import Renderer
from plandvc.sites.spec import Page, Spec, load_sites
from plandvc.sites.state import StateStore, coerce_fields

COOKIE = "plandvc_session"
MAX_BODY = 64 * 1024
HOST = "127.0.0.1"


class NotFound(Exception):
    """An unknown site, page or entry: a 404 page."""


class Response:
    def __init__(self, status: int, body: bytes, ctype: str = "text/html; charset=utf-8", location: str = ""):
        self.status, self.body, self.ctype, self.location = status, body, ctype, location


class App:
    """Routing and rendering, independent of the socket layer (so it is easy to test and to time)."""

    def __init__(self, specs: dict[str, Spec]):
        self.specs = specs
        self.store = StateStore(specs)
        self.renderer = Renderer()

    def html(self, text: str, status: int = 200) -> Response:
        return Response(status, text.encode("utf-8"))

    def handle(self, method: str, target: str, session: str, body: bytes = b"") -> Response:
        """One request -> one response; errors become 400/404 pages."""
        spec = None
        try:
            url = urlsplit(target)
            parts = [p for p in url.path.split("/") if p]
            if parts and parts[0] == "sites" and len(parts) >= 2:
                spec = self.specs.get(parts[1])
            pairs = parse_qsl(url.query, keep_blank_values=True, errors="strict")
            return self.route(method, parts, pairs, session, body)
        except NotFound as e:
            return self.html(self.renderer.error(404, str(e), spec), 404)
        except (BadValue, UnicodeDecodeError, ValueError) as e:
            return self.html(self.renderer.error(400, str(e), spec), 400)

    def route(
        self, method: str, parts: list[str], pairs: list[tuple[str, str]], session: str, body: bytes
    ) -> Response:
        if parts == ["_health"]:
            return Response(200, b"ok", "text/plain; charset=utf-8")
        if len(parts) in (2, 3) and parts[0] == "_state":
            spec = self._spec(parts[1])
            if len(parts) == 3:
                if parts[2] != "reset":
                    raise NotFound(f"no such state path /{'/'.join(parts)}")
                if method != "POST":
                    return self._method(spec)
                self.store.reset(session, spec.site)
            elif method != "GET":
                return self._method(spec)
            state = self.store.snapshot(session, spec.site)
            return Response(200, dumps(state, sort_keys=True), "application/json")
        if len(parts) < 2 or parts[0] != "sites":
            raise NotFound(f"no such page /{'/'.join(parts)}")
        spec = self._spec(parts[1])
        if len(parts) == 2:
            if method != "GET":
                return self._method(spec)
            counts = {p.page: len(self.store.rows(session, spec.site, p.table)) for p in spec.pages}
            return self.html(self.renderer.home(spec, counts))
        page = spec.page(parts[2])
        if page is None:
            raise NotFound(f"{spec.name} has no page {parts[2]!r}")
        table = spec.table_of(page)
        base = f"/sites/{spec.site}/{page.page}"
        if len(parts) == 3:
            if method != "GET":
                return self._method(spec)
            q = parse_query(page, table, pairs)
            every = self.store.rows(session, spec.site, table.name)
            rows = apply_query(page, table, every, q)
            number = page_number(pairs) if spec.theme.family else 1
            return self.html(self.renderer.list_page(spec, page, rows, q, number, every))
        if len(parts) == 4 and parts[3] == "new":

            def create(fields: Row) -> None:
                self.store.create(session, spec.site, table.name, fields)

            return self.entry_form(method, spec, page, None, body, create, base)
        return self.entry_route(method, parts, spec, page, session, body, pairs)

    def entry_route(
        self,
        method: str,
        parts: list[str],
        spec: Spec,
        page: Page,
        session: str,
        body: bytes,
        pairs: list[tuple[str, str]],
    ) -> Response:
        """`/sites/<site>/<page>/<id>` (with `?tab=` on a site with tabs), its `/edit` form and `/delete`."""
        table = spec.table_of(page)
        base = f"/sites/{spec.site}/{page.page}"
        entry = self.store.entry(session, spec.site, table.name, parts[3])
        if entry is None:
            raise NotFound(f"{page.title} has no entry {parts[3]!r}")
        href = f"{base}/{quote(parts[3], safe='')}"
        if len(parts) == 4:
            if method != "GET":
                return self._method(spec)
            listed = self.store.rows(session, spec.site, table.name) if spec.theme.family else None
            tab = entry_tab(pairs) if spec.theme.tabs else ""
            return self.html(self.renderer.detail(spec, page, entry, listed, tab))
        if len(parts) == 5 and parts[4] == "edit":

            def update(fields: Row) -> None:
                self.store.update(session, spec.site, table.name, parts[3], fields)

            return self.entry_form(method, spec, page, entry, body, update, href)
        if len(parts) == 5 and parts[4] == "delete":
            if not table.delete:
                raise NotFound(f"{page.title} entries cannot be deleted")
            if method != "POST":
                return self._method(spec)
            self.store.delete(session, spec.site, table.name, parts[3])
            return Response(303, b"", location=base)
        raise NotFound(f"no such page /{'/'.join(parts)}")

    def entry_form(
        self,
        method: str,
        spec: Spec,
        page: Page,
        entry: Row | None,
        body: bytes,
        save: Callable[[Row], None],
        back: str,
    ) -> Response:
        """A create form (no `entry`) or an entry's edit form: GET shows it; POST saves its fields with `save`
        and sends the browser to `back` (303)."""
        table = spec.table_of(page)
        kind = "create" if entry is None else "edit"
        names = table.create if entry is None else table.edit
        if not names:
            raise NotFound(f"{page.title} has no {kind} form")
        if method == "GET":
            return self.html(self.renderer.form(spec, page, kind, entry))
        if method != "POST":
            return self._method(spec)
        save(coerce_fields(table, names, _form(body)))
        return Response(303, b"", location=back)

    def _spec(self, site: str) -> Spec:
        spec = self.specs.get(site)
        if spec is None:
            raise NotFound(f"no site {site!r}")
        return spec

    def _method(self, spec: Spec | None) -> Response:
        return self.html(self.renderer.error(405, "this method is not allowed here", spec), 405)


def page_number(pairs: list[tuple[str, str]]) -> int:
    """The list's pagination page (`page=N`, 1 when absent); not a number >= 1 is a BadValue."""
    got = [v for k, v in pairs if k == PAGE_PARAM]
    if not got or got[-1] == "":
        return 1
    if len(got) > 1 or not got[0].isdigit() or int(got[0]) < 1:
        raise BadValue(f"{PAGE_PARAM}={got[-1]!r} is not a page number")
    return int(got[0])


def entry_tab(pairs: list[tuple[str, str]]) -> str:
    """The tab an entry's page shows (`tab=<name>`, the first tab when absent); an unknown one is a BadValue."""
    got = [v for k, v in pairs if k == TAB_PARAM]
    if not got or got[-1] == "":
        return ENTRY_TABS[0][0]
    if len(got) > 1 or got[0] not in {name for name, _ in ENTRY_TABS}:
        raise BadValue(f"{TAB_PARAM}={got[-1]!r} is not a tab of this page")
    return got[0]


def _form(body: bytes) -> dict[str, list[str]]:
    """A urlencoded POST body as {name: [values]}; bad UTF-8 is a BadValue."""
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        raise BadValue("the form is not valid UTF-8") from None
    out: dict[str, list[str]] = {}
    for k, v in pairs:
        out.setdefault(k, []).append(v)
    return out


class Handler(BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive; the session comes from the `plandvc_session` cookie (set when absent)."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # no 40 ms delayed-ACK stalls on keep-alive connections
    wbufsize = 64 * 1024  # headers and body leave in one write (flushed after each request)
    server_version = "plandvc-sites"
    sys_version = ""
    app: App  # set on the subclass made by `make_server`

    def log_message(self, format: str, *args: object) -> None:  # quiet: one line per request is noise here
        pass

    def _session(self) -> tuple[str, bool]:
        raw = self.headers.get("Cookie")
        if raw:
            try:
                c = SimpleCookie(raw)
            except CookieError:
                c = SimpleCookie()
            m = c.get(COOKIE)
            if m is not None and 0 < len(m.value) <= 128:
                return m.value, False
        return secrets.token_hex(16), True

    def _serve(self, method: str) -> None:
        session, new = self._session()
        body = b""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY:
            resp = self.app.html(self.app.renderer.error(400, "bad or too large request body"), 400)
            self.close_connection = True
        else:
            if length:
                body = self.rfile.read(length)
            try:
                resp = self.app.handle("GET" if method == "HEAD" else method, self.path, session, body)
            except Exception as e:  # last resort: report, keep serving
                print(f"plandvc.sites.server: error on {method} {self.path}: {e!r}", file=sys.stderr)
                resp = self.app.html(self.app.renderer.error(500, "internal error"), 500)
        self.send_response(resp.status)
        self.send_header("Content-Type", resp.ctype)
        self.send_header("Content-Length", str(len(resp.body)))
        self.send_header("Cache-Control", "no-store")
        if resp.location:
            self.send_header("Location", resp.location)
        if new:
            self.send_header("Set-Cookie", f"{COOKIE}={session}; Path=/; HttpOnly; SameSite=Lax")
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(resp.body)

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_HEAD(self) -> None:
        self._serve("HEAD")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def make_server(specs: dict[str, Spec], port: int) -> Server:
    """A server on 127.0.0.1:`port` (0 = any free port) serving `specs`; call `serve_forever()`."""
    app = App(specs)
    handler = type("BoundHandler", (Handler,), {"app": app})
    return Server((HOST, port), handler)


def _watch_stdin(server: Server) -> None:
    """Shut down when stdin closes: the parent that started us died (no orphans)."""
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except (OSError, ValueError):
        pass
    server.shutdown()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m plandvc.sites.server", description=__doc__.split("\n")[0])
    ap.add_argument("--sites", required=True, help="the sites directory (data/sites)")
    ap.add_argument("--port", type=int, required=True, help="the port on 127.0.0.1")
    ap.add_argument("--watch-stdin", action="store_true", help="exit when stdin closes (set by Servers)")
    args = ap.parse_args(argv)
    try:
        specs = load_sites(args.sites)
    except InputError as e:
        print(f"plandvc.sites.server: {e}", file=sys.stderr)
        return 2
    try:
        server = make_server(specs, args.port)
    except OSError as e:
        print(
            f"plandvc.sites.server: cannot listen on {HOST}:{args.port}: {e.strerror or e}", file=sys.stderr
        )
        return 3
    if args.watch_stdin:
        threading.Thread(target=_watch_stdin, args=(server,), daemon=True).start()
    import signal

    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown, daemon=True).start())
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
