"""The bundled `shop` site (`data/sites/shop`): its seeded data, tables, pages and README."""

from __future__ import annotations

import random

from plandvc.sites.bundled import kit as k


def make() -> tuple[k.SiteJson, str]:
    """This site's site.json and doc/README.md."""
    rng, today = random.Random(101), "2026-03-14"
    statuses = ["Pending", "Paid", "Shipped", "Delivered", "Cancelled"]
    channels = ["Web", "Phone", "Store"]
    tiers = ["Bronze", "Silver", "Gold", "Platinum"]
    customers = k.people(rng, 20)
    orders = [
        {"id": f"ORD-{1031 + i}", "customer": rng.choice(customers), "status": rng.choice(statuses),
         "channel": rng.choice(channels), "total": round(rng.uniform(18, 480), 2),
         "items": rng.randint(1, 9), "placed": k.day(today, rng, -75, 0)}
        for i in range(24)
    ]  # fmt: skip
    custs = [
        {"id": f"CUS-{201 + i}", "name": name, "city": rng.choice(k.CITIES), "tier": rng.choice(tiers),
         "spend": round(rng.uniform(60, 5200), 2), "joined": k.day(today, rng, -1400, -30)}
        for i, name in enumerate(customers)
    ]  # fmt: skip
    spec: k.SiteJson = {
        "site": "shop", "name": "Northwind Shop", "today": today,
        "theme": {"layout": "sidebar", "accent": "#237a57", "background": "#f3f7f4", "font": "DejaVu Sans"},
        "tables": {
            "orders": {
                "title": "Orders", "singular": "order", "key": "id", "label": "id",
                "columns": [
                    k.col("id", "Order", "id"), k.col("customer", "Customer", "text"),
                    k.col("status", "Status", "enum", values=statuses), k.col("channel", "Channel", "enum", values=channels),
                    k.col("total", "Total", "number", prefix="$", decimals=2), k.col("items", "Items", "number"),
                    k.col("placed", "Placed", "date"),
                ],
                "rows": orders, "create": ["customer", "status", "channel", "total", "items", "placed"],
                "edit": ["status", "total"], "copy": "id",
            },
            "customers": {
                "title": "Customers", "singular": "customer", "key": "id", "label": "name",
                "columns": [
                    k.col("id", "Customer ID", "id"), k.col("name", "Name", "text"), k.col("city", "City", "text"),
                    k.col("tier", "Tier", "enum", values=tiers), k.col("spend", "Lifetime spend", "number", prefix="$", decimals=2),
                    k.col("joined", "Joined", "date"),
                ],
                "rows": custs, "create": ["name", "city", "tier", "joined"], "edit": ["city", "tier"], "copy": "id",
            },
        },
        "pages": [
            {"page": "orders", "title": "Orders", "table": "orders", "controls": [
                k.dropdown("orders-status", "status", "status", "Status"),
                k.options("orders-channel", "channel", "channel", "Channel"),
                k.slider("orders-total", "total", "max_total", "Max total", 0, 500, 10),
                k.date_range("orders-placed", "placed", ["from", "to"], "Placed"),
                k.sort("orders-sort", ["sort", "dir"], ["placed", "total", "customer"], "Sort by"),
                k.search("orders-search", "q", ["customer", "id"], "Search"),
            ]},
            {"page": "customers", "title": "Customers", "table": "customers", "controls": [
                k.dropdown("customers-tier", "tier", "tier", "Tier"),
                k.slider("customers-spend", "spend", "max_spend", "Max lifetime spend", 0, 6000, 100),
                k.date_range("customers-joined", "joined", ["joined_from", "joined_to"], "Joined"),
                k.sort("customers-sort", ["sort", "dir"], ["name", "spend", "joined"], "Sort by"),
                k.search("customers-search", "q", ["name", "city"], "Search"),
            ]},
        ],
    }  # fmt: skip
    doc = (
        "# Northwind Shop (online store: orders and customers)\n\n"
        "An online shop's back office. Orders (ORD-1031…) with status, sales channel, total and placing date;\n"
        "customers (CUS-201…) with city, loyalty tier and lifetime spend. Orders and customers can be created\n"
        "and edited; an entry's id can be copied from its detail page.\n"
    )
    return spec, doc
