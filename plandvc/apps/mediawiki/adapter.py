"""MediaWiki 1.39, the wiki, as an app site: Debian's packages unpacked under the apps home, seeded, served by
PHP's built-in server on SQLite.

- Install (`install`): the packages of `locks/mediawiki.lock` (MediaWiki 1.39 and PHP 8.2 with the modules it
  needs, opcache included) fetched by `apt-get download`, each checked against its sha256, unpacked with
  `dpkg -x` into `<home>/mediawiki-<lock hash>/root` (`plandvc.apps.debian`); never a system install (the
  `mediawiki` package would pull in and start apache2). PHP runs from there with `-n` and the extensions
  named one by one (`php_cmd`).
- Seed (`template`): `maintenance/install.php` makes the SQLite database; then the env's own LocalSettings.php
  (`LOCAL_SETTINGS`: MediaWiki's clock fixed, caches off, anonymous edits and deletes allowed, everything that
  varies between runs off), `importDump.php` of the seeded pages (`pages`: 4 categories of entries with an infobox
  table of facts, drawn from `random.Random(seed)` and `plandvc.world.vocab`; a main page, the sidebar, a
  style sheet with no transitions, help pages; every revision's timestamp in the dump, from the seed), then SQL that sets what install.php stamped
  with the real time or at random (the main page's first revision, the admin's registration, token and
  password hash, the logs) from the seed, `rebuildrecentchanges.php` over the seeded month and
  `initSiteStats.php`; the localisation cache is built into the env. The same (seed, pages) gives the same
  database dump, statement for statement.
- Serve (`serve`): a fresh copy of the template per session, `php -S 127.0.0.1:<free port>` with
  `MW_CONFIG_FILE` naming the copy's LocalSettings.php (the package's own is a dangling symlink to the system's
  config folder) and `ROUTER` (no MediaWiki JavaScript module runs: see there), ready when the main page
  answers, stopped with its process group on exit. MediaWiki's clock
  reads `NOW` (2024-04-01 00:00 UTC: `ConvertibleTimestamp::setFakeTime`), so what a session saves is stamped
  the same in every run.
- State (`state`): the session's `page`/`revision`/`slots`/`content`/`text` rows read into the gates' state
  shape (`plandvc.checks`): `entries` {"page": one row per page: id, title, namespace, text, categories and
  the infobox's fields by label}; `changes` against the template: a page id the template lacks is a create,
  a template page whose latest revision changed is an update of the fields that differ, a template page that
  is gone is a delete. PHP's built-in server serves one request at a time, so `Session.state` first asks it
  for a page: MediaWiki's deferred updates of the request before (links, categories, search index) have then
  run.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import random
import re
import shutil
import sqlite3
import tempfile
import urllib.request
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from plandvc.apps import debian
from plandvc.apps.app import (
    LOCKS,
    FreshSession,
    Server,
    _run,
    built,
    file_hash,
    locked,
    quiet_env,
    seeded_template,
    serve_copy,
)
from plandvc.checks import Change, Row
from plandvc.errors import InfrastructureError
from plandvc.world import vocab

NAME = "mediawiki"
LOCK = LOCKS / "mediawiki.lock"
SITE_NAME = "Field Guide"
MW = "usr/share/mediawiki"  # MediaWiki's folder inside the unpacked root
EXTENSIONS = (
    "pdo", "pdo_sqlite", "sqlite3", "mbstring", "intl", "dom", "xml", "xmlreader", "simplexml", "ctype",
    "iconv", "fileinfo", "tokenizer",
)  # fmt: skip
T0 = "20240301090000"  # the seeded wiki's start, 2024-03-01 09:00 UTC (MediaWiki's TS_MW text)
NOW = "20240401000000"  # MediaWiki's clock while serving, 2024-04-01 00:00 UTC
ADMIN = "Admin"
HOME = "/index.php/Main_Page"
CATEGORIES = ("Cities", "Researchers", "Projects", "Dishes")
SHARES = (12, 11, 9, 8)  # the categories' shares of the entry pages
DISHES = (
    "lentil stew", "fish soup", "bean salad", "pasta bake", "rice pilaf", "tomato tart", "mushroom risotto",
    "pepper omelette", "onion soup", "potato gratin", "barley bread", "plum cake",
)  # fmt: skip
INGREDIENTS = (
    "lentils",
    "cod",
    "beans",
    "pasta",
    "rice",
    "tomatoes",
    "mushrooms",
    "peppers",
    "onions",
    "potatoes",
)
STATUSES = ("Active", "Completed", "Paused")
HELP = {
    "Help:Editing": "To change a page, open it and choose '''Edit'''. Save the page when you are done.",
    "Help:Searching": "Type a word in the search box at the top of every page and press '''Search'''.",
    "Project:About": "The field guide collects short entries with a table of facts each.",
}
SIDEBAR = """* navigation
** mainpage|mainpage-description
** recentchanges-url|recentchanges
** Special:AllPages|All pages
** Special:Categories|Categories
* Guide
""" + "".join(f"** Category:{c}|{c}\n" for c in CATEGORIES)

# the wiki's own style sheet: no transitions or animations (the "More" menu fades in over 100 ms), no
# notification bubbles ("Your edit was saved." hides itself after some seconds), and no full-text "Search"
# button beside "Go" (a fallback the skin's script hides once it has run: a page read before that had one
# more element), and no "clear" cross in the search results' box (drawn once the form's script has run), so
# neither a screenshot nor a page's text depends on when it is taken
COMMON_CSS = """*, *::before, *::after { transition: none !important; animation: none !important; }
.mw-notification-area, .postedit-container, #mw-searchButton, .oo-ui-indicator-clear { display: none !important; }
"""

# PHP's built-in server's router: every request served as usual, but for MediaWiki's JavaScript startup
# module, answered 404, so no page runs MediaWiki's scripts. They rebuild the page at a moment that depends on
# the machine's load (the OOUI forms' script replaces Special:AllPages' namespace select and draws a clear
# cross in the search box; the skin's script hides a button; notifications come and go), and a page read
# or pictured before or after that differs. Every task here works without them (MediaWiki supports clients
# without JavaScript: forms post, the "More" menu is a CSS checkbox).
ROUTER = """<?php
// plandvc.apps.mediawiki: MediaWiki without its JavaScript modules (the startup module is not found)
$path = parse_url( $_SERVER['REQUEST_URI'], PHP_URL_PATH );
if ( $path === '/load.php' && ( $_GET['only'] ?? '' ) === 'scripts' ) {
    http_response_code( 404 );
    return true;
}
return false;
"""


# ── install ───────────────────────────────────────────────────────────────────


def install() -> Path:
    """The unpacked packages' folder (`<home>/mediawiki-<lock hash>`, its `root/`), made on first use."""
    from plandvc.apps.app import apps_home

    folder = apps_home() / f"{NAME}-{file_hash(LOCK)}"

    def build(f: Path) -> None:
        files = debian.fetch(debian.read_lock(LOCK), f / "debs")
        debian.unpack(files, f / "root")
        shutil.rmtree(f / "debs")
        _run([*php_cmd(f), "-r", "echo PHP_VERSION;"], "run the unpacked php")

    with locked(NAME):
        built(folder, ".installed", build)
    return folder


def php_cmd(folder: Path, opcache: bool = False) -> list[str]:
    """The unpacked PHP with no php.ini (`-n`) and the extensions MediaWiki needs (opcache for the server)."""
    root = folder / "root"
    cmd = [str(root / "usr/bin/php8.2"), "-n", "-d", f"extension_dir={root / 'usr/lib/php/20220829'}"]
    for e in EXTENSIONS:
        cmd += ["-d", f"extension={e}"]
    cmd += ["-d", "memory_limit=512M", "-d", "error_reporting=0", "-d", "display_errors=0"]
    if opcache:
        cmd += ["-d", "zend_extension=opcache", "-d", "opcache.enable=1", "-d", "opcache.enable_cli=1"]
        cmd += ["-d", "opcache.memory_consumption=128", "-d", "opcache.max_accelerated_files=20000"]
    return cmd


def php_env(folder: Path, env: Path, **extra: str) -> dict[str, str]:
    """The environment of the unpacked PHP: its libraries, and the env's LocalSettings.php."""
    lib = str(folder / "root" / "usr/lib/x86_64-linux-gnu")
    return quiet_env(LD_LIBRARY_PATH=lib, MW_CONFIG_FILE=str(env / "LocalSettings.php"), **extra)


# ── seed ──────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Seed:
    """What a seeded wiki holds: the RNG seed and the number of entry pages (split over CATEGORIES)."""

    seed: int = 0
    pages: int = 40

    @property
    def key(self) -> str:
        return f"s{self.seed}-n{self.pages}"


@dataclass(frozen=True)
class Entry:
    """One seeded entry page: its title, category, infobox facts (label, value; a value may be a [[link]]),
    the prose under the table."""

    title: str
    category: str
    facts: tuple[tuple[str, str], ...]
    prose: str

    def text(self) -> str:
        return entry_text(self.title, self.category, self.facts, self.prose)


def entry_text(title: str, category: str, facts: tuple[tuple[str, str], ...], prose: str) -> str:
    """An entry's wikitext: the infobox table, the prose, the category."""
    rows = "".join(f"|-\n! {k}\n| {v}\n" for k, v in facts)
    return (
        f'{{| class="wikitable infobox"\n|+ {title}\n{rows}|}}\n{prose}\n\n'
        f"This entry is part of the field guide.\n\n[[Category:{category}]]"
    )


def plain(value: str) -> str:
    """A fact as the page shows it: a [[link]] or [[target|label]] as its text."""
    return re.sub(r"\[\[(?:[^|\]]*\|)?([^\]]*)\]\]", r"\1", value).strip()


def infobox(text: str) -> dict[str, str]:
    """The infobox facts of an entry's wikitext, by label, as the page shows them."""
    out: dict[str, str] = {}
    for m in re.finditer(r"^!\s*(.+?)\s*\n\|\s*(.*?)\s*$", text, flags=re.M):
        out[m.group(1)] = plain(m.group(2))
    return out


def entries(seed: Seed) -> list[Entry]:
    """The seeded entry pages: `seed.pages` split over CATEGORIES, values from `random.Random(seed.seed)`."""
    rng = random.Random(seed.seed)
    n = [seed.pages * w // sum(SHARES) for w in SHARES]  # uneven, so the categories' counts differ
    n = [k + (i < seed.pages - sum(n)) for i, k in enumerate(n)]
    people = [f"{f} {last}" for f in vocab.FIRST for last in vocab.LAST if "'" not in last]
    names = rng.sample(people, n[1] + n[0])
    researchers, mayors = names[: n[1]], names[n[1] :]
    cities = rng.sample(vocab.CITIES, n[0])
    out = []
    facts: tuple[tuple[str, str], ...]
    for city, mayor in zip(cities, mayors, strict=True):
        country = rng.choice(vocab.COUNTRIES)
        pop, founded = rng.randrange(80, 900) * 1000 + rng.randrange(1, 10) * 100, rng.randrange(800, 1700)
        facts = (
            ("Country", country),
            ("Population", f"{pop:,}"),
            ("Founded", str(founded)),
            ("Mayor", mayor),
        )
        prose = f"'''{city}''' is a city in {country}, founded in {founded}. About {pop:,} people live there."
        out.append(Entry(city, "Cities", facts, prose))
    topics = rng.sample(vocab.TOPICS, n[1] + n[2])
    for person, topic in zip(researchers, topics[: n[1]], strict=True):
        home, born = rng.choice(cities), rng.randrange(1950, 1996)
        facts = (("Field", topic.capitalize()), ("Home city", f"[[{home}]]"), ("Born", str(born)))
        facts += (("Institute", f"{rng.choice(vocab.CITIES)} Institute"),)
        prose = f"'''{person}''' is a researcher in {topic}, born in {born}, who lives in [[{home}]]."
        out.append(Entry(person, "Researchers", facts, prose))
    for topic in topics[n[1] :]:
        title = f"{topic.capitalize()} project"
        lead, started = rng.choice(researchers), rng.randrange(2012, 2024)
        budget, status = rng.randrange(5, 95) * 10_000, rng.choice(STATUSES)
        facts = (("Lead", f"[[{lead}]]"), ("Started", str(started)), ("Budget", f"€{budget:,}"))
        facts += (("Status", status),)
        prose = f"The '''{title}''' studies {topic}. It started in {started} and is led by [[{lead}]]."
        out.append(Entry(title, "Projects", facts, prose))
    dishes = rng.sample([f"{a} {d}" for a in vocab.ADJ for d in DISHES], n[3])
    for dish in dishes:
        origin, minutes, serves = rng.choice(vocab.COUNTRIES), rng.randrange(2, 19) * 5, rng.randrange(2, 9)
        title = dish.capitalize()
        facts = (("Origin", origin), ("Main ingredient", rng.choice(INGREDIENTS)))
        facts += (("Prep time", f"{minutes} minutes"), ("Servings", str(serves)))
        prose = f"'''{title}''' is a dish from {origin}. It takes {minutes} minutes and serves {serves}."
        out.append(Entry(title, "Dishes", facts, prose))
    return out


def main_page(seed: Seed) -> str:
    """The main page: a portal with one section per category."""
    parts = [f"Welcome to the '''{SITE_NAME}''', a wiki of short entries with a table of facts each.\n"]
    for c in CATEGORIES:
        parts.append(f"== {c} ==\nBrowse the [[:Category:{c}|{c.lower()}]] of the guide.\n")
    return "\n".join(parts)


def _stamp(i: int) -> str:
    """The ISO time of the i-th seeded revision: the start plus i hours (the dump's <timestamp>)."""
    return f"2024-03-{1 + (9 + i) // 24:02d}T{(9 + i) % 24:02d}:00:00Z"


def dump(seed: Seed) -> str:
    """The seeded pages as a MediaWiki XML dump (importDump.php), each with one revision at a seeded time."""
    rng = random.Random(f"{seed.seed}-times")
    pages: list[tuple[str, int, str]] = [("Main Page", 0, main_page(seed)), ("MediaWiki:Sidebar", 8, SIDEBAR)]
    pages.append(("MediaWiki:Common.css", 8, COMMON_CSS))
    pages += [(t, 12 if t.startswith("Help:") else 4, text) for t, text in HELP.items()]
    pages += [(f"Category:{c}", 14, f"The {c.lower()} of the field guide.") for c in CATEGORIES]
    pages += [(e.title, 0, e.text()) for e in entries(seed)]
    hours = 0
    out = ['<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">']
    for title, ns, text in pages:
        hours += rng.randint(1, 12)
        out.append(
            f"<page><title>{escape(title)}</title><ns>{ns}</ns><revision><timestamp>{_stamp(hours)}</timestamp>"
            f"<contributor><username>{ADMIN}</username></contributor><comment>Seeded</comment>"
            + (
                "<model>css</model><format>text/css</format>"
                if title.endswith(".css")
                else "<model>wikitext</model><format>text/x-wiki</format>"
            )
            + f'<text xml:space="preserve">{escape(text)}</text></revision></page>'
        )
    out.append("</mediawiki>\n")
    return "\n".join(out)


LOCAL_SETTINGS = """<?php
# The seeded wiki's settings (plandvc.apps.mediawiki): paths relative to this file, so a copy runs as is.
if ( !defined( 'MEDIAWIKI' ) ) {{ exit; }}
require_once "$IP/includes/PlatformSettings.php";
# MediaWiki's clock: every stamp of a session (revisions, recent changes, "last edited") reads NOW
Wikimedia\\Timestamp\\ConvertibleTimestamp::setFakeTime( getenv( 'PLANDVC_MW_NOW' ) ?: '{now}' );
$wgSitename = "{site}";
$wgMetaNamespace = "Project";
$wgScriptPath = "";
$wgServer = getenv( 'PLANDVC_MW_SERVER' ) ?: "http://127.0.0.1";
$wgResourceBasePath = $wgScriptPath;
$wgLogos = false;
$wgEnableEmail = false;
$wgEnableUserEmail = false;
$wgDBtype = "sqlite";
$wgDBserver = "";
$wgDBname = "wiki";
$wgDBuser = "";
$wgDBpassword = "";
$wgSQLiteDataDir = __DIR__ . "/data";
$wgCacheDirectory = __DIR__ . "/cache";
$wgUploadDirectory = __DIR__ . "/images";
$wgLocalisationCacheConf['store'] = 'array';
# no cache keyed by time: every page is made from the database as it is
$wgMainCacheType = CACHE_NONE;
$wgParserCacheType = CACHE_NONE;
$wgMessageCacheType = CACHE_NONE;
$wgSessionCacheType = CACHE_DB;
$wgJobRunRate = 0;
$wgEnableUploads = false;
$wgUseInstantCommons = false;
$wgPingback = false;
$wgLanguageCode = "en";
$wgLocaltimezone = "UTC";
$wgSecretKey = "{secret}";
$wgAuthenticationTokenVersion = "1";
$wgUpgradeKey = "{upgrade}";
$wgRightsPage = ""; $wgRightsUrl = ""; $wgRightsText = ""; $wgRightsIcon = "";
$wgDefaultSkin = "vector";
wfLoadSkin( 'Vector' );
$wgShowHostnames = false;
$wgDebugComments = false;
$wgEnableParserLimitReporting = false;
$wgDefaultUserOptions['searchlimit'] = {per_page};
# no suggestions under the search box: they come and go with the typing, and the page changes under a click
$wgEnableOpenSearchSuggest = false;
# Recent changes as the server writes it: the filters' script rebuilds the page (and its URL) once it has run
$wgDefaultUserOptions['rcenhancedfilters-disable'] = 1;
# anonymous users edit and create pages; nobody makes accounts
$wgGroupPermissions['*']['createaccount'] = false;
$wgGroupPermissions['*']['edit'] = true;
$wgGroupPermissions['*']['createpage'] = true;
# and delete them (as Trac's anonymous TICKET_ADMIN): the delete task needs no login
$wgGroupPermissions['*']['delete'] = true;
"""
PER_PAGE = 10  # search results a page


def local_settings(seed: Seed) -> str:
    key = hashlib.sha256(f"plandvc-mediawiki-{seed.seed}".encode()).hexdigest()
    return LOCAL_SETTINGS.format(now=NOW, site=SITE_NAME, secret=key, upgrade=key[:16], per_page=PER_PAGE)


def password(seed: Seed) -> str:
    """The seeded admin's password."""
    return "Guide-" + hashlib.sha256(f"admin-{seed.seed}".encode()).hexdigest()[:12]


def password_hash(seed: Seed) -> str:
    """MediaWiki's pbkdf2 hash of the admin's password with a salt from the seed (install.php's is random)."""
    salt = hashlib.sha256(f"salt-{seed.seed}".encode()).digest()[:16]
    dk = hashlib.pbkdf2_hmac("sha512", password(seed).encode(), salt, 30000, 64)
    return f":pbkdf2:sha512:30000:64:{base64.b64encode(salt).decode()}:{base64.b64encode(dk).decode()}"


def template(seed: int = 0, size: int = 40) -> Path:
    """The seeded wiki env for (seed, size pages) (made once; sessions copy it): the App's `template`."""
    folder, s = install(), Seed(seed, size)
    return seeded_template(NAME, folder, f"{s.key}-{_code_key()}", lambda env: seed_env(folder, env, s))


def _code_key() -> str:
    return file_hash(Path(__file__), Path(vocab.__file__))


def maintenance(folder: Path, env: Path, script: str, *args: str) -> str:
    """Run one of MediaWiki's maintenance scripts on the env."""
    cmd = [*php_cmd(folder), str(folder / "root" / MW / "maintenance" / f"{script}.php"), *args]
    return _run(cmd, f"run {script}.php", env=php_env(folder, env))


def seed_env(folder: Path, env: Path, seed: Seed) -> None:
    """A new seeded wiki at `env` with the MediaWiki unpacked in `folder` (see the module docstring)."""
    (env / "data").mkdir(parents=True)
    (env / "cache").mkdir()
    with tempfile.TemporaryDirectory(prefix="plandvc-mw-install-") as tmp:
        cmd = [
            *php_cmd(folder), str(folder / "root" / MW / "maintenance" / "install.php"), "--dbtype", "sqlite",
            "--dbpath", str(env / "data"), "--dbname", "wiki", "--server", "http://127.0.0.1",
            "--scriptpath", "", "--pass", password(seed), "--confpath", tmp, "--lang", "en",
            "--skins", "Vector", SITE_NAME, ADMIN,
        ]  # fmt: skip
        # install.php refuses to run where a LocalSettings.php exists: it names one that does not
        _run(cmd, "run install.php", env=php_env(folder, Path(tmp) / "none"))
    (env / "LocalSettings.php").write_text(local_settings(seed))
    (env / "router.php").write_text(ROUTER)
    with contextlib.closing(sqlite3.connect(env / "data" / "wiki.sqlite")) as db, db:
        _fix_times(db, seed)  # before the import: its revisions must be later than the main page's first
    (env / "dump.xml").write_text(dump(seed))
    maintenance(folder, env, "importDump", str(env / "dump.xml"))
    (env / "dump.xml").unlink()
    with contextlib.closing(sqlite3.connect(env / "data" / "wiki.sqlite")) as db, db:
        _fix_times(db, seed)
    maintenance(folder, env, "rebuildrecentchanges", "--from", T0, "--to", NOW)
    maintenance(folder, env, "initSiteStats", "--update")
    maintenance(folder, env, "rebuildLocalisationCache", "--lang", "en", "--force", "--threads", "1")
    with contextlib.closing(sqlite3.connect(env / "data" / "wiki.sqlite")) as db, db:
        db.execute("DELETE FROM objectcache")
        # never run ($wgJobRunRate = 0); stamped with the real time and at random, and how many the import
        # queues varies from run to run (67 or 68 jobs), so the table's counter goes too
        db.execute("DELETE FROM job")
        db.execute("DELETE FROM sqlite_sequence WHERE name = 'job'")
        db.execute("UPDATE recentchanges SET rc_ip = '127.0.0.1'")
    with contextlib.closing(sqlite3.connect(env / "data" / "wiki.sqlite")) as db:
        db.execute("VACUUM")


def _fix_times(db: sqlite3.Connection, seed: Seed) -> None:
    """What install.php stamped with the real time or at random, set from the seed: the main page's first
    revision, the admin's registration, token and password, the logs; pages' touched times from their
    latest revision."""
    db.execute("UPDATE revision SET rev_timestamp = ? WHERE rev_timestamp > ?", (T0, NOW))
    db.execute("UPDATE logging SET log_timestamp = ?", (T0,))
    db.execute("DELETE FROM recentchanges")  # made again by rebuildrecentchanges.php from the revisions
    db.execute(
        "UPDATE user SET user_registration = ?, user_touched = ?, user_token = ?, user_password = ?",
        (T0, T0, hashlib.md5(f"token-{seed.seed}".encode()).hexdigest(), password_hash(seed)),
    )
    latest = "(SELECT rev_timestamp FROM revision WHERE rev_id = page_latest)"
    db.execute(f"UPDATE page SET page_touched = {latest}, page_links_updated = {latest}")
    db.execute(
        "UPDATE categorylinks SET cl_timestamp = (SELECT page_touched FROM page WHERE page_id = cl_from)"
    )
    db.execute("DELETE FROM objectcache")
    rng = random.Random(f"{seed.seed}-random")  # page_random (Special:Random's draw) is random at import
    ids = [i for (i,) in db.execute("SELECT page_id FROM page ORDER BY page_id")]
    db.executemany(
        "UPDATE page SET page_random = ? WHERE page_id = ?", [(round(rng.random(), 12), i) for i in ids]
    )


# ── serving ───────────────────────────────────────────────────────────────────


def settle(base: str) -> None:
    """Ask the server for a page: PHP's built-in server serves one request at a time, so when this answers,
    the request before it has finished, its deferred updates (links, categories, search index) included."""
    try:
        with urllib.request.urlopen(base + "/resources/assets/change-your-logo-icon.svg", timeout=60) as r:
            r.read()
    except OSError as e:
        raise InfrastructureError(f"the wiki does not answer on {base}: {e}") from None


def serve(seed: int = 0, size: int = 40) -> AbstractContextManager[FreshSession]:
    """A fresh copy of the wiki seeded with (seed, size pages), served by PHP's built-in server on a free
    loopback port and stopped on exit: the App's `serve`. Its state is read after `settle`."""
    tpl = template(seed, size)
    folder = tpl.parent.parent

    def server(env: Path, port: int) -> Server:
        base = f"http://127.0.0.1:{port}"
        cmd = [*php_cmd(folder, opcache=True), "-S", f"127.0.0.1:{port}", "-t", str(folder / "root" / MW)]
        cmd.append(str(env / "router.php"))
        environ = php_env(folder, env, PLANDVC_MW_SERVER=base)
        environ.pop("PHP_CLI_SERVER_WORKERS", None)  # one worker: `settle` relies on it
        return Server(cmd, base, probe=HOME, env=environ, cwd=folder / "root" / MW)

    return serve_copy(NAME, tpl, server, state, settle)


# ── state ─────────────────────────────────────────────────────────────────────


def _connect(env: Path) -> sqlite3.Connection:
    db = sqlite3.connect(f"file:{env / 'data' / 'wiki.sqlite'}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    return db


NAMESPACES = {0: "", 4: "Project:", 8: "MediaWiki:", 12: "Help:", 14: "Category:"}


def pages(env: Path) -> list[Row]:
    """Every page by id: its id, title (with its namespace, spaces for underscores), namespace, latest
    revision, text, categories (sorted, comma-joined) and its infobox facts by label."""
    with contextlib.closing(_connect(env)) as db:
        cats: dict[int, list[str]] = {}
        for r in db.execute("SELECT cl_from, cl_to FROM categorylinks ORDER BY cl_from, cl_to"):
            cats.setdefault(int(r["cl_from"]), []).append(str(r["cl_to"]).replace("_", " "))
        rows = []
        for r in db.execute(
            "SELECT page_id, page_namespace, page_title, page_latest, old_text FROM page "
            "JOIN slots ON slot_revision_id = page_latest JOIN content ON content_id = slot_content_id "
            "JOIN text ON old_id = CAST(substr(content_address, 4) AS INTEGER) ORDER BY page_id"
        ):
            ns = int(r["page_namespace"])
            text = r["old_text"]
            text = text.decode() if isinstance(text, bytes) else str(text)
            title = NAMESPACES.get(ns, f"{ns}:") + str(r["page_title"]).replace("_", " ")
            row: Row = {
                "id": int(r["page_id"]),
                "title": title,
                "namespace": ns,
                "revision": int(r["page_latest"]),
                "text": text.strip(),
                "categories": ", ".join(cats.get(int(r["page_id"]), [])),
            }
            for k, v in infobox(text).items():
                row.setdefault(k, v)
            rows.append(row)
    return rows


def state(env: Path, template: Path) -> dict[str, Any]:
    """`entries` and `changes` of a session's database against its template (the gates' state shape)."""
    now, before = pages(env), pages(template)
    old = {r["id"]: r for r in before}
    new_ids = {r["id"] for r in now}
    changes: list[Change] = []
    for row in now:
        was = old.get(row["id"])
        if was is None:
            fields = {k: v for k, v in row.items() if k not in ("id", "revision")}
            changes.append({"table": "page", "op": "create", "id": row["id"], "fields": fields})
        elif was["revision"] != row["revision"]:
            diff = {k: v for k, v in row.items() if k != "revision" and was.get(k) != v}
            diff |= {k: "" for k in was if k not in row}
            changes.append({"table": "page", "op": "update", "id": row["id"], "fields": diff})
    for row in before:
        if row["id"] not in new_ids:
            changes.append({"table": "page", "op": "delete", "id": row["id"], "fields": {}})
    return {"entries": {"page": now}, "changes": changes}


def env_dump(env: Path) -> list[str]:
    """The wiki database as SQL statements (the seed's determinism test)."""
    with contextlib.closing(sqlite3.connect(env / "data" / "wiki.sqlite")) as db:
        return list(db.iterdump())
