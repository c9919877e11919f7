"""Domains of the working web: code hosting, web search."""

from __future__ import annotations

from plandvc.world import vocab as v
from plandvc.world.fields import Domain, Person, Sentence, TableDef, Words
from plandvc.world.kit import date, enum, num, text

_PROJ = (("fast", "tiny", "open", "py", "go", "rust", "deep", "micro", "hyper", "neo"),
         ("-",), ("parser", "cache", "router", "lint", "graph", "vision", "queue", "notebook", "db", "cli", "sync", "ml"))  # fmt: skip

CODE = Domain(
    "code",
    "code hosting",
    ("Forgehub", "Codeberry", "Repohouse", "Commitly"),
    "Where software is built together",
    "Build and ship software together",
    (
        TableDef(
            "repos",
            "Repositories",
            "repository",
            "RP-",
            (
                text("name", "Repository", Words(_PROJ, sep="")),
                enum("language", "Language", ("Python", "TypeScript", "Go", "Rust", "Java", "C++")),
                enum("license", "License", ("MIT", "Apache-2.0", "GPL-3.0", "BSD-3-Clause"), badge=True),
                num("stars", "Stars", 3, 48000),
                num("forks", "Forks", 0, 6000),
                date("pushed", "Last push", -500, 0),
                text(
                    "owner",
                    "Owner",
                    Words(
                        (("ana", "team", "labs", "org", "dev"), ("-",), ("north", "blue", "core", "io")),
                        sep="",
                    ),
                ),
                text(
                    "description",
                    "Description",
                    Sentence(
                        ("A {0} {1}.", "{0} {1} with zero dependencies."),
                        (
                            ("fast", "tiny", "typed", "friendly", "portable"),
                            (
                                "HTTP router",
                                "task queue",
                                "config loader",
                                "image toolkit",
                                "test runner",
                                "markdown parser",
                            ),
                        ),
                    ),
                ),
            ),
            "name",
            "language",
            "license",
            "stars",
            "pushed",
            ("stars", "forks", "pushed"),
            ("name", "description"),
            text="description",
            copy="name",
            slider_label="Max stars",
            date_label="Last push",
        ),
        TableDef(
            "issues",
            "Issues",
            "issue",
            "ISS-",
            (
                text(
                    "title",
                    "Title",
                    Words(
                        (
                            (
                                "Crash when",
                                "Slow startup when",
                                "Docs unclear on",
                                "Support",
                                "Wrong output for",
                                "Flaky test in",
                            ),
                            (
                                "parsing empty files",
                                "unicode paths",
                                "large inputs",
                                "Windows",
                                "async handlers",
                                "nested configs",
                                "the CLI",
                                "proxy settings",
                            ),
                        )
                    ),
                ),
                enum("label", "Label", ("bug", "enhancement", "documentation", "question")),
                enum("state", "State", ("Open", "In progress", "Closed"), badge=True),
                num("comments", "Comments", 0, 80),
                date("opened", "Opened", -365, 0),
                text("author", "Author", Person()),
            ),
            "title",
            "label",
            "state",
            "comments",
            "opened",
            ("opened", "comments"),
            ("title", "author"),
            create=("title", "label", "state", "comments"),
            edit=("label", "state"),
            copy="title",
            slider_label="Max comments",
            date_label="Opened",
        ),
    ),
)

SEARCH = Domain(
    "search",
    "web search",
    ("Findr", "Seekwell", "Looksee Search", "Querya"),
    "Search the web privately",
    "Search the web",
    (
        TableDef(
            "results",
            "Web results",
            "result",
            "WR-",
            (
                text(
                    "title",
                    "Title",
                    Words(
                        (
                            ("How to", "Best", "Guide to", "Why", "Ten facts about", "History of"),
                            (
                                "bake sourdough",
                                "learn Spanish",
                                "fix a bike",
                                "grow tomatoes",
                                "train for 10k",
                                "save energy",
                                "the Roman empire",
                                "black holes",
                                "budget travel",
                                "home espresso",
                            ),
                        )
                    ),
                ),
                enum("kind", "Type", ("Web", "News", "Video", "Forum", "Shopping")),
                enum("region", "Region", ("Worldwide", "Europe", "North America", "Asia")),
                num("relevance", "Relevance", 40, 99, suffix=" %"),
                date("indexed", "Indexed", -900, 0),
                text(
                    "site",
                    "Site",
                    Words(
                        (
                            ("www.", "blog.", "docs.", "news."),
                            ("example", "sample", "demo", "test"),
                            (".org", ".net", ".info"),
                        ),
                        sep="",
                    ),
                ),
                text(
                    "snippet",
                    "Snippet",
                    Sentence(
                        ("Everything you need to know about {0}, {1}.", "{1}: a step-by-step look at {0}."),
                        (
                            ("getting started", "common mistakes", "the basics", "expert tips"),
                            ("updated this year", "explained simply", "with pictures"),
                        ),
                    ),
                ),
            ),
            "title",
            "kind",
            "region",
            "relevance",
            "indexed",
            ("relevance", "indexed"),
            ("title", "snippet"),
            text="snippet",
            copy="site",
            slider_label="Max relevance",
            date_label="Indexed",
        ),
        TableDef(
            "alerts",
            "Alerts",
            "alert",
            "AL-",
            (
                text(
                    "query",
                    "Query",
                    Words(
                        (
                            (
                                "cheap flights",
                                "job openings",
                                "new laptops",
                                "concert tickets",
                                "rent prices",
                                "electric bikes",
                            ),
                            ("in",),
                            v.CITIES,
                        )
                    ),
                ),
                enum("frequency", "How often", ("As it happens", "Daily", "Weekly")),
                enum("sources", "Sources", ("Automatic", "News", "Blogs", "Web"), badge=True),
                num("hits", "Hits this month", 0, 300),
                date("created", "Created", -500, 0),
                text(
                    "email", "Deliver to", Words((("mia", "leo", "zoe", "max"), ("@mail.example",)), sep="")
                ),
            ),
            "query",
            "frequency",
            "sources",
            "hits",
            "created",
            ("created", "hits"),
            ("query",),
            create=("query", "frequency", "sources", "hits"),
            edit=("frequency", "sources"),
            copy="query",
            slider_label="Max hits",
            date_label="Created",
        ),
    ),
)

DOMAINS = (
    CODE,
    SEARCH,
)
