"""The bundled `library` site (`data/sites/library`): its seeded data, tables, pages and README."""

from __future__ import annotations

import random

from plandvc.sites.bundled import kit as k


def make() -> tuple[k.SiteJson, str]:
    """This site's site.json and doc/README.md."""
    rng, today = random.Random(404), "2026-02-09"
    branches = ["Central", "Eastside", "Harbour", "Hillcrest"]
    statuses = ["On loan", "Returned", "Overdue", "Lost"]
    genres = ["Fiction", "History", "Science", "Children", "Poetry", "Travel"]
    titles = rng.sample([
        "The Salt Road", "A Map of Winter", "Glass Orchards", "The Quiet Engineer", "Rivers of Iron",
        "The Last Lighthouse", "Small Gods of August", "Paper Moons", "The Copper Atlas", "Northern Tides",
        "The Clockmaker's Daughter", "Bees in the Attic", "A Brief History of Bridges", "Stars Over Kilnsea",
        "The Orchard Keeper", "Maps for Lost Sailors", "The Ninth Harvest", "Quiet Numbers", "The Amber Room",
        "Wolves of the Steppe", "Songs for a Long Walk", "The Tin Garden",
    ], 22)  # fmt: skip
    authors = k.people(rng, 22)
    books = [
        {"id": f"BK-{101 + i}", "title": t, "author": authors[i], "genre": rng.choice(genres),
         "copies": rng.randint(1, 12), "published": k.day(today, rng, -12000, -60)}
        for i, t in enumerate(titles)
    ]  # fmt: skip
    borrowers = k.people(rng, 20)
    loans = [
        {"id": f"LN-{4401 + i}", "borrower": b, "book": rng.choice(titles), "branch": rng.choice(branches),
         "status": rng.choice(statuses), "fine": round(rng.choice([0, 0, 0, 0.5, 1.25, 2.75, 4.0, 6.5]), 2),
         "due": k.day(today, rng, -30, 28)}
        for i, b in enumerate(borrowers)
    ]  # fmt: skip
    spec: k.SiteJson = {
        "site": "library", "name": "Oakridge Public Library", "today": today,
        "theme": {"layout": "sidebar", "accent": "#7a2333", "background": "#faf6f2", "panel": "#fffdf9", "font": "DejaVu Sans"},
        "tables": {
            "loans": {
                "title": "Loans", "singular": "loan", "key": "id", "label": "borrower",
                "columns": [
                    k.col("id", "Loan", "id"), k.col("borrower", "Borrower", "text"), k.col("book", "Book", "text"),
                    k.col("branch", "Branch", "enum", values=branches), k.col("status", "Status", "enum", values=statuses),
                    k.col("fine", "Fine", "number", prefix="€", decimals=2), k.col("due", "Due", "date"),
                ],
                "rows": loans, "create": ["borrower", "book", "branch", "status", "due"],
                "edit": ["status", "fine", "due"], "copy": "id",
            },
            "books": {
                "title": "Catalogue", "singular": "book", "key": "id", "label": "title",
                "columns": [
                    k.col("id", "Book ID", "id"), k.col("title", "Title", "text"), k.col("author", "Author", "text"),
                    k.col("genre", "Genre", "enum", values=genres), k.col("copies", "Copies", "number"),
                    k.col("published", "Published", "date"),
                ],
                "rows": books, "create": ["title", "author", "genre", "copies", "published"],
                "edit": ["genre", "copies"], "copy": "id",
            },
        },
        "pages": [
            {"page": "loans", "title": "Loans", "table": "loans", "controls": [
                k.dropdown("loans-branch", "branch", "branch", "Branch"),
                k.options("loans-status", "status", "status", "Status"),
                k.date_range("loans-due", "due", ["due_from", "due_to"], "Due"),
                k.sort("loans-sort", ["sort", "dir"], ["due", "fine", "borrower"], "Sort by"),
                k.search("loans-search", "q", ["borrower", "book"], "Search"),
            ]},
            {"page": "catalogue", "title": "Catalogue", "table": "books", "controls": [
                k.dropdown("catalogue-genre", "genre", "genre", "Genre"),
                k.slider("catalogue-copies", "copies", "max_copies", "Max copies", 0, 12, 1),
                k.date_range("catalogue-published", "published", ["from", "to"], "Published"),
                k.sort("catalogue-sort", ["sort", "dir"], ["title", "published", "copies"], "Sort by"),
                k.search("catalogue-search", "q", ["title", "author"], "Search"),
            ]},
        ],
    }  # fmt: skip
    doc = (
        "# Oakridge Public Library (book loans and catalogue)\n\n"
        "A public library's circulation desk. Loans (LN-4401…) with borrower, book, branch, status, fine and\n"
        "due date; the catalogue of books (BK-101…) with author, genre, copies and publication date.\n"
    )
    return spec, doc
