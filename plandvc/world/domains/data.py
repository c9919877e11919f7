"""Domains of data: a model and dataset hub, a knowledge engine."""

from __future__ import annotations

from plandvc.world import vocab as v
from plandvc.world.fields import Domain, Person, TableDef, Words
from plandvc.world.kit import date, enum, num, text

HUB = Domain(
    "hub",
    "a model and dataset hub",
    ("ModelNest", "Tensor Commons", "Weights Depot", "OpenModels"),
    "The home of open machine learning",
    "Discover models and datasets",
    (
        TableDef(
            "models",
            "Models",
            "model",
            "MD-",
            (
                text(
                    "name",
                    "Model",
                    Words(
                        (
                            ("north", "lumen", "tiny", "open", "swift", "atlas"),
                            ("/",),
                            ("bert", "llama", "vit", "whisper", "t5", "clip", "sam", "mistral"),
                            ("-",),
                            ("base", "small", "large", "7b", "1b", "instruct"),
                        ),
                        sep="",
                    ),
                ),
                enum(
                    "task",
                    "Task",
                    (
                        "Text generation",
                        "Translation",
                        "Image classification",
                        "Speech recognition",
                        "Summarization",
                        "Object detection",
                    ),
                ),
                enum("library", "Library", ("PyTorch", "JAX", "ONNX", "TensorFlow"), badge=True),
                num("downloads", "Downloads", 50, 900000),
                num("likes", "Likes", 0, 4200),
                date("updated", "Updated", -600, 0),
                text("license", "License", Words((("apache-2.0", "mit", "cc-by-4.0", "openrail"),))),
            ),
            "name",
            "task",
            "library",
            "likes",
            "updated",
            ("downloads", "likes", "updated"),
            ("name", "task"),
            copy="name",
            slider_label="Max likes",
            date_label="Updated",
        ),
        TableDef(
            "datasets",
            "Datasets",
            "dataset",
            "DS-",
            (
                text(
                    "name",
                    "Dataset",
                    Words(
                        (
                            ("open", "multi", "clean", "wiki", "news", "code"),
                            ("-",),
                            ("qa", "captions", "speech", "reviews", "dialogs", "math", "docs"),
                            ("-",),
                            ("en", "de", "fr", "v2", "xl"),
                        ),
                        sep="",
                    ),
                ),
                enum("modality", "Modality", ("Text", "Image", "Audio", "Tabular", "Video")),
                enum("size", "Size", ("<1K", "1K-10K", "10K-100K", "100K-1M", ">1M"), badge=True),
                num("rows", "Rows (thousands)", 1, 9000),
                date("published", "Published", -900, 0),
                text("maintainer", "Maintainer", Person()),
            ),
            "name",
            "modality",
            "size",
            "rows",
            "published",
            ("rows", "published"),
            ("name", "maintainer"),
            create=("name", "modality", "size", "rows"),
            edit=("modality", "size", "rows"),
            copy="name",
            slider_label="Max rows",
            date_label="Published",
        ),
    ),
)

KNOWLEDGE = Domain(
    "knowledge",
    "a knowledge engine",
    ("Computa", "FactEngine", "Quantia", "Knowbase"),
    "Computational answers to factual questions",
    "Enter what you want to calculate or know about",
    (
        TableDef(
            "facts",
            "Facts",
            "fact",
            "F-",
            (
                text(
                    "topic",
                    "Topic",
                    Words(
                        (
                            (
                                "Population of",
                                "Area of",
                                "Elevation of",
                                "Founding year of",
                                "Average rainfall in",
                                "GDP of",
                            ),
                            v.CITIES + v.COUNTRIES,
                        )
                    ),
                ),
                enum("domain", "Domain", ("Geography", "Economics", "Demographics", "Climate", "History")),
                enum("unit", "Unit", ("people", "km²", "m", "year", "mm", "USD bn"), badge=True),
                num("value", "Value", 3, 98000),
                num("confidence", "Confidence", 70, 100, suffix=" %"),
                date("updated", "Source date", -1500, -1),
                text(
                    "source",
                    "Source",
                    Words(
                        (
                            ("National", "City", "World", "Regional"),
                            ("Statistics Office", "Survey", "Data Bank", "Census"),
                        )
                    ),
                ),
            ),
            "topic",
            "domain",
            "unit",
            "value",
            "updated",
            ("value", "confidence", "updated"),
            ("topic", "source"),
            copy="topic",
            slider_label="Max value",
            date_label="Source date",
        ),
        TableDef(
            "queries",
            "Saved queries",
            "query",
            "Q-",
            (
                text(
                    "input",
                    "Input",
                    Words(
                        (
                            ("integrate", "solve", "plot", "convert", "compare", "distance from"),
                            (
                                "x^2 sin x",
                                "2x+3=11",
                                "10 miles to km",
                                "Lyon and Porto",
                                "e^x from 0 to 1",
                                "350 F to C",
                                "Oslo to Riga",
                                "population of Graz",
                            ),
                        )
                    ),
                ),
                enum("category", "Category", ("Mathematics", "Units", "Places", "Physics", "Dates")),
                enum("format", "Output", ("Plain text", "Plot", "Table", "Steps"), badge=True),
                num("runs", "Runs", 1, 90),
                date("saved", "Saved", -300, 0),
                text("owner", "Owner", Person()),
            ),
            "input",
            "category",
            "format",
            "runs",
            "saved",
            ("runs", "saved"),
            ("input", "owner"),
            create=("input", "category", "format", "runs"),
            edit=("category", "format", "runs"),
            copy="input",
            slider_label="Max runs",
            date_label="Saved",
        ),
    ),
)

DOMAINS = (
    HUB,
    KNOWLEDGE,
)
