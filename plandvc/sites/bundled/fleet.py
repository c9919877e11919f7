"""The bundled `fleet` site (`data/sites/fleet`): its seeded data, tables, pages and README."""

from __future__ import annotations

import random

from plandvc.sites.bundled import kit as k


def make() -> tuple[k.SiteJson, str]:
    """This site's site.json and doc/README.md."""
    rng, today = random.Random(303), "2026-05-06"
    statuses = ["Booked", "In transit", "Delayed", "Delivered", "Returned"]
    modes = ["Road", "Rail", "Sea", "Air"]
    depots = ["Rotterdam", "Hamburg", "Antwerp", "Felixstowe"]
    types = ["Truck", "Van", "Trailer", "Reefer"]
    consignees = rng.sample([
        "Brightwell Foods", "Calder Steel", "Dunmore Textiles", "Everly Pharma", "Fenwick Paper", "Galloway Glass",
        "Harlow Electronics", "Ingram Timber", "Juniper Wines", "Kestrel Motors", "Lowry Ceramics", "Marlow Chemicals",
        "Northgate Toys", "Orchard Juices", "Pemberton Tools", "Quayside Fish", "Redfern Plastics", "Sterling Cables",
        "Thornbury Paints", "Upland Dairy", "Vickery Books", "Westbrook Coffee",
    ], 21)  # fmt: skip
    ships = [
        {"id": f"SHP-{7201 + i}", "consignee": c, "origin": rng.choice(k.CITIES), "status": rng.choice(statuses),
         "mode": rng.choice(modes), "weight": rng.randint(120, 24000), "shipped": k.day(today, rng, -40, 10)}
        for i, c in enumerate(consignees)
    ]  # fmt: skip
    letters = "ABCDEFGHJKLMNPRSTVWXZ"
    vehicles = [
        {"id": f"VEH-{41 + i}", "plate": f"HF-{rng.randint(100, 999)}-{rng.choice(letters)}{letters[i]}",
         "type": rng.choice(types), "depot": rng.choice(depots), "mileage": rng.randint(8000, 410000),
         "serviced": k.day(today, rng, -300, -2)}
        for i in range(19)
    ]  # fmt: skip
    spec: k.SiteJson = {
        "site": "fleet", "name": "Harbor Freight Lines", "today": today,
        "theme": {"layout": "cards", "accent": "#c2571a", "background": "#f6f1ec", "font": "DejaVu Sans"},
        "tables": {
            "shipments": {
                "title": "Shipments", "singular": "shipment", "key": "id", "label": "id",
                "columns": [
                    k.col("id", "Shipment", "id"), k.col("consignee", "Consignee", "text"), k.col("origin", "Origin", "text"),
                    k.col("status", "Status", "enum", values=statuses), k.col("mode", "Mode", "enum", values=modes),
                    k.col("weight", "Weight", "number", suffix=" kg"), k.col("shipped", "Ship date", "date"),
                ],
                "rows": ships, "create": ["consignee", "origin", "status", "mode", "weight", "shipped"],
                "edit": ["status", "weight"], "copy": "id",
            },
            "vehicles": {
                "title": "Vehicles", "singular": "vehicle", "key": "id", "label": "plate",
                "columns": [
                    k.col("id", "Vehicle", "id"), k.col("plate", "Plate", "text"), k.col("type", "Type", "enum", values=types),
                    k.col("depot", "Depot", "enum", values=depots), k.col("mileage", "Mileage", "number", suffix=" km"),
                    k.col("serviced", "Last service", "date"),
                ],
                "rows": vehicles, "create": ["plate", "type", "depot", "mileage", "serviced"],
                "edit": ["depot", "mileage", "serviced"], "copy": "plate",
            },
        },
        "pages": [
            {"page": "shipments", "title": "Shipments", "table": "shipments", "controls": [
                k.dropdown("shipments-status", "status", "status", "Status"),
                k.options("shipments-mode", "mode", "mode", "Mode"),
                k.slider("shipments-weight", "weight", "max_weight", "Max weight", 0, 25000, 500),
                k.sort("shipments-sort", ["sort", "dir"], ["shipped", "weight", "consignee"], "Sort by"),
                k.search("shipments-search", "q", ["consignee", "origin", "id"], "Search"),
            ]},
            {"page": "vehicles", "title": "Vehicles", "table": "vehicles", "controls": [
                k.dropdown("vehicles-depot", "depot", "depot", "Depot"),
                k.options("vehicles-type", "type", "type", "Type"),
                k.date_range("vehicles-serviced", "serviced", ["from", "to"], "Last service"),
                k.sort("vehicles-sort", ["sort", "dir"], ["mileage", "serviced", "plate"], "Sort by"),
                k.search("vehicles-search", "q", ["plate"], "Find plate"),
            ]},
        ],
    }  # fmt: skip
    doc = (
        "# Harbor Freight Lines (fleet: shipments and vehicles)\n\n"
        "A freight company's dispatch board. Shipments (SHP-7201…) with consignee, origin, status, transport\n"
        "mode, weight and ship date; vehicles (VEH-41…) with plate, type, depot, mileage and last service.\n"
    )
    return spec, doc
