"""Domains where people cook and shop: recipes, an online store, a product maker's site."""

from __future__ import annotations

from plandvc.world import vocab as v
from plandvc.world.fields import Code, Domain, Person, Sentence, TableDef, Words
from plandvc.world.kit import date, enum, num, text

RECIPES = Domain(
    "recipes",
    "recipes",
    ("Hearth & Herb", "Weeknight Kitchen", "Spoonful Daily", "Pantry Stories"),
    "Tested recipes for every day",
    "What are you cooking tonight?",
    (
        TableDef(
            "recipes",
            "Recipes",
            "recipe",
            "R-",
            (
                text(
                    "name",
                    "Recipe",
                    Words(
                        (
                            v.ADJ,
                            (
                                "Lasagna",
                                "Risotto",
                                "Curry",
                                "Tacos",
                                "Ramen",
                                "Shakshuka",
                                "Paella",
                                "Chili",
                                "Pancakes",
                                "Gnocchi",
                                "Falafel",
                                "Frittata",
                                "Dumplings",
                                "Tagine",
                                "Pho",
                                "Quiche",
                                "Burrito Bowl",
                                "Stir-Fry",
                                "Goulash",
                                "Moussaka",
                            ),
                        )
                    ),
                ),
                enum(
                    "cuisine",
                    "Cuisine",
                    ("Italian", "Indian", "Mexican", "Japanese", "Middle Eastern", "French", "Thai"),
                ),
                enum("diet", "Diet", ("Vegetarian", "Vegan", "Gluten-free", "Any"), badge=True),
                num("calories", "Calories", 180, 950, suffix=" kcal"),
                num("minutes", "Total time", 10, 150, suffix=" min"),
                num("rating", "Rating", 3.0, 5.0, decimals=1, stars=True),
                num("reviews", "Reviews", 3, 4200),
                text("author", "Author", Person()),
                date("published", "Published", -900, -1),
                text(
                    "summary",
                    "Summary",
                    Sentence(
                        (
                            "A {0} dish with {1}, ready on a weeknight.",
                            "{0} and comforting, finished with {1}.",
                            "Our readers' favourite: {0}, with {1}.",
                        ),
                        (
                            ("bright", "rich", "simple", "one-pan", "make-ahead", "family"),
                            (
                                "fresh herbs",
                                "toasted seeds",
                                "a squeeze of lime",
                                "crispy shallots",
                                "parmesan",
                                "chili oil",
                            ),
                        ),
                    ),
                ),
            ),
            "name",
            "cuisine",
            "diet",
            "calories",
            "published",
            ("rating", "calories", "minutes", "published"),
            ("name", "author"),
            text="summary",
            create=("name", "cuisine", "diet", "calories", "minutes"),
            edit=("calories", "minutes", "diet"),
            copy="name",
            slider_label="Max calories",
            date_label="Published",
        ),
        TableDef(
            "collections",
            "Collections",
            "collection",
            "C-",
            (
                text(
                    "title",
                    "Collection",
                    Words(
                        (
                            (
                                "Quick",
                                "Cozy",
                                "Budget",
                                "Holiday",
                                "Sunday",
                                "Picnic",
                                "Party",
                                "Lunchbox",
                                "Summer",
                                "Autumn",
                                "Spring",
                                "Festive",
                            ),
                            (
                                "Dinners",
                                "Bakes",
                                "Soups",
                                "Salads",
                                "Breakfasts",
                                "Desserts",
                                "Sides",
                                "Snacks",
                                "Curries",
                                "Pastas",
                            ),
                        )
                    ),
                ),
                enum("occasion", "Occasion", ("Weeknight", "Holiday", "Party", "Meal prep", "Brunch")),
                enum("level", "Skill level", ("Beginner", "Intermediate", "Advanced"), badge=True),
                num("count", "Recipes", 6, 60),
                date("updated", "Updated", -400, -1),
                text("curator", "Curator", Person()),
            ),
            "title",
            "occasion",
            "level",
            "count",
            "updated",
            ("count", "updated"),
            ("title", "curator"),
            slider_label="Max recipes",
            date_label="Updated",
        ),
    ),
)

STORE = Domain(
    "store",
    "an online store",
    ("Cartwheel Market", "Baskety", "Northwind Goods", "Everyday Aisle"),
    "Everything for home, work and play",
    "Deals of the week, delivered tomorrow",
    (
        TableDef(
            "products",
            "Products",
            "product",
            "P-",
            (
                text(
                    "name",
                    "Product",
                    Words(
                        (
                            v.GOOD,
                            (
                                "Wireless Controller",
                                "Desk Lamp",
                                "Backpack",
                                "Kettle",
                                "Headphones",
                                "Office Chair",
                                "Water Bottle",
                                "Air Fryer",
                                "Yoga Mat",
                                "Power Bank",
                                "Bluetooth Speaker",
                                "Coffee Grinder",
                                "Monitor Stand",
                                "Rain Jacket",
                            ),
                        )
                    ),
                ),
                enum(
                    "category", "Category", ("Electronics", "Home", "Kitchen", "Sports", "Office", "Outdoor")
                ),
                enum("colour", "Colour", v.COLOURS[:6]),
                num("price", "Price", 8, 480, decimals=2, prefix="$", nice=True),
                num("rating", "Rating", 2.5, 5.0, decimals=1, stars=True),
                num("reviews", "Reviews", 0, 18000),
                enum("stock", "Availability", ("In stock", "Only a few left", "Pre-order"), badge=True),
                date("listed", "Listed", -700, -1),
                text("sku", "SKU", Code("SKU-", 6)),
                text(
                    "blurb",
                    "About",
                    Sentence(
                        ("{0} design with {1}.", "Built for {1}, {0} finish."),
                        (
                            ("Minimal", "Award-winning", "Ergonomic", "Compact", "Rugged"),
                            ("all-day comfort", "fast charging", "easy cleaning", "everyday carry", "travel"),
                        ),
                    ),
                ),
            ),
            "name",
            "category",
            "colour",
            "price",
            "listed",
            ("price", "rating", "reviews", "listed"),
            ("name", "category"),
            text="blurb",
            copy="sku",
            slider_label="Max price",
            date_label="Listed",
        ),
        TableDef(
            "orders",
            "Orders",
            "order",
            "ORD-",
            (
                text("customer", "Customer", Person()),
                enum(
                    "status", "Status", ("Pending", "Paid", "Shipped", "Delivered", "Cancelled"), badge=True
                ),
                enum("channel", "Channel", ("Web", "App", "Phone")),
                num("total", "Total", 9, 900, decimals=2, prefix="$"),
                num("items", "Items", 1, 12),
                date("placed", "Placed", -120, 0),
                text("city", "Ship to", Words((v.CITIES,))),
            ),
            "customer",
            "status",
            "channel",
            "total",
            "placed",
            ("total", "placed", "items"),
            ("customer", "city"),
            create=("customer", "status", "channel", "total", "items", "placed"),
            edit=("status", "total", "items"),
            copy="customer",
            slider_label="Max total",
            date_label="Placed",
        ),
    ),
)

MAKER = Domain(
    "maker",
    "a product maker's site",
    ("Lumen Devices", "Orchard Computing", "Helio Labs", "Pinecone Audio"),
    "Designed to last",
    "Meet the new generation",
    (
        TableDef(
            "models",
            "Models",
            "model",
            "M-",
            (
                text(
                    "name",
                    "Model",
                    Words(
                        (
                            ("Aero", "Nova", "Pulse", "Vista", "Zen", "Echo", "Flux", "Orbit"),
                            ("Book", "Pad", "Phone", "Watch", "Buds", "Studio", "Mini", "Max"),
                            ("2", "3", "4", "5", "Pro", "Air", "SE"),
                        )
                    ),
                ),
                enum("line", "Product line", ("Laptops", "Tablets", "Phones", "Wearables", "Audio")),
                enum("finish", "Finish", ("Graphite", "Silver", "Sand", "Midnight", "Rose")),
                num("price", "From", 99, 2999, prefix="$"),
                num("storage", "Storage", 32, 2048, suffix=" GB"),
                num("battery", "Battery", 6, 40, suffix=" h"),
                date("released", "Released", -1400, -5),
                text("chip", "Chip", Words((("A", "M", "X"), ("14", "15", "16", "17", "2", "3")), sep="")),
            ),
            "name",
            "line",
            "finish",
            "price",
            "released",
            ("price", "released", "battery"),
            ("name", "line"),
            copy="name",
            slider_label="Max price",
            date_label="Released",
        ),
        TableDef(
            "repairs",
            "Repairs",
            "repair",
            "REP-",
            (
                text("customer", "Customer", Person()),
                enum("device", "Device", ("Laptop", "Tablet", "Phone", "Watch", "Earbuds")),
                enum(
                    "state", "State", ("Received", "Diagnosing", "Repairing", "Ready", "Returned"), badge=True
                ),
                num("quote", "Quote", 0, 650, prefix="$"),
                date("booked", "Booked", -60, 20),
                text("store", "Store", Words((v.CITIES, ("Central", "Mall", "Station", "Harbour")))),
            ),
            "customer",
            "device",
            "state",
            "quote",
            "booked",
            ("quote", "booked"),
            ("customer", "store"),
            create=("customer", "device", "state", "quote", "booked"),
            edit=("state", "quote"),
            copy="customer",
            slider_label="Max quote",
            date_label="Booked",
        ),
    ),
)

DOMAINS = (
    RECIPES,
    STORE,
    MAKER,
)
