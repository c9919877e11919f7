"""django-oscar 4.2, the shop, as an app site: installed from `locks/oscar.lock`, seeded, served by Django.

- Install: its own venv under the apps home (`plandvc.apps.app.install_venv`): django-oscar 4.2.1, Django 4.2
  LTS, Whoosh and django-haystack 3.2.dev0 pinned with hashes (`make lock-apps` re-pins).
- Seed (`template`): a small Django project written by the adapter (`SETTINGS`, `URLS`, `SHOP`: settings from
  Oscar's "Building your own shop" and its sandbox, SQLite and the Whoosh index inside the env, `DEBUG` off,
  no language prefix in the URLs, 10 products a page, a thumbnailer that serves the original image since
  sorl-thumbnail is not installed, and a middleware that signs every request in as the seeded customer: the
  shop is used by one signed-in customer, whose basket, address book and reviews are in the database), the
  database after `migrate` (made once per install and code: `migrated`), the seed script (`SEED_SCRIPT`, run
  by the venv's python through Oscar's own models: a partner, a product class with attributes,
  `Seed.products` products over 5 of the 6 categories in CATEGORIES with titles, prices, stock and attributes
  drawn from `random.Random(seed)` and `plandvc.world.vocab`, the customer with 3 UK addresses, 3
  notifications and a basket of 3 lines), every product's `date_created`/`date_updated` set from the seed, and `rebuild_index` (Whoosh: the
  simple backend finds nothing and ignores sorting). Django's clock is fixed for all of it (`CLOCKED`:
  `django.utils.timezone.now` reads SEED_NOW), so the same (seed, products) gives the same database dump.
- Serve (`serve`): a fresh copy of the template per session, `runserver 127.0.0.1:<free> --noreload
  --insecure` (static files from the apps) with the clock fixed at NOW, ready when `/catalogue/` answers,
  stopped with its process group on exit.
- State (`state`): the session database read into the gates' state shape (`plandvc.checks`): `entries`
  {"basket_line": the open basket's lines, "address": the address book, "notification": the customer's
  notifications, "review": product reviews, "profile": the user row}, and `changes` against the template by id (`diff`): a new id is a create, a
  changed field an update, a missing id a delete.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import sqlite3
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plandvc.apps.app import (
    LOCKS,
    FreshSession,
    Server,
    _run,
    built,
    file_hash,
    install_venv,
    locked,
    quiet_env,
    seeded_template,
    serve_copy,
)
from plandvc.checks import Change, Row
from plandvc.world import vocab

NAME = "oscar"
LOCK = LOCKS / "oscar.lock"
PER_PAGE = 10
SEED_NOW = "2024-03-01T09:00:00+00:00"  # Django's clock while seeding
NOW = "2024-04-01T00:00:00+00:00"  # Django's clock in a session
CUSTOMER = ("Clara", "Foster", "clara@example.com")  # the signed-in customer: first, last name, email
# the shop's categories and the nouns of their products
CATEGORIES: dict[str, tuple[str, ...]] = {
    "Kitchen": ("Kettle", "Teapot", "Chef Knife", "Cutting Board", "Mixing Bowl", "Coffee Grinder", "Frying Pan"),
    "Outdoor": ("Tent", "Backpack", "Sleeping Bag", "Camping Stove", "Head Torch", "Water Bottle", "Hiking Pole"),
    "Office": ("Desk Lamp", "Notebook", "Pen Set", "Desk Organiser", "Monitor Stand", "Office Chair", "Stapler"),
    "Audio": ("Headphones", "Speaker", "Turntable", "Radio", "Earbuds", "Soundbar", "Microphone"),
    "Garden": ("Watering Can", "Pruning Shears", "Planter", "Garden Hose", "Bird Feeder", "Trowel", "Wheelbarrow"),
    "Living": ("Throw Blanket", "Cushion", "Wall Clock", "Table Lamp", "Picture Frame", "Vase", "Doormat"),
}  # fmt: skip
# the address book's towns and postcodes (valid UK postcodes: Oscar checks them for the country)
UK_CITIES = (
    "Leeds",
    "York",
    "Bath",
    "Derby",
    "Exeter",
    "Leicester",
    "Norwich",
    "Bristol",
    "Oxford",
    "Durham",
)
POSTCODES = ("LS1 4AP", "M1 1AE", "B33 8TH", "CR2 6XH", "DN55 1PT", "EC1A 1BB", "W1A 0AX", "YO1 7HH")
# the customer's notifications: a kind and a product's title
NOTICES = ("Back in stock:", "Price drop on", "New review of")
MATERIALS = ("Steel", "Oak", "Bamboo", "Cotton", "Ceramic", "Aluminium", "Glass", "Wool")


@dataclass(frozen=True)
class Seed:
    """What a seeded shop holds: the RNG seed and the number of products."""

    seed: int = 0
    products: int = 40

    @property
    def key(self) -> str:
        return f"s{self.seed}-n{self.products}"


class Product(dict[str, Any]):
    """One seeded product as the seed script takes it (title, category, price, stock, colour, material, ...)."""


def catalogue(seed: Seed) -> dict[str, Any]:
    """What the seed writes, drawn from `random.Random(seed.seed)`: categories, products, the basket's lines."""
    rng = random.Random(seed.seed)
    cats = sorted(rng.sample(sorted(CATEGORIES), 5))
    pairs = [
        (f"{adj} {noun}", c) for c in cats for noun in CATEGORIES[c] for adj in (*vocab.GOOD, *vocab.COLOURS)
    ]
    chosen = rng.sample(pairs, seed.products)
    # every category holds at least one product (a category page is never empty)
    for i, c in enumerate(cats):
        if not any(cat == c for _, cat in chosen):
            chosen[i] = next(p for p in pairs if p[1] == c and p not in chosen)
    products = []
    hours = 0
    for i, (title, cat) in enumerate(chosen, start=1):
        hours += rng.randint(1, 30)
        products.append(
            {
                "upc": f"{seed.seed % 100:02d}{i:04d}{rng.randint(100, 999)}",
                "title": title,
                "category": cat,
                "price": f"{rng.randint(4, 180)}.{rng.choice(('00', '49', '99'))}",
                "stock": rng.choice((0, *range(1, 40))),
                "colour": title.split()[0]
                if title.split()[0] in vocab.COLOURS
                else rng.choice(vocab.COLOURS),
                "material": rng.choice(MATERIALS),
                "created_hours": hours,
                "description": f"A {title.lower()} for every day, made of {rng.choice(MATERIALS).lower()}.",
            }
        )
    in_stock = [p for p in products if p["stock"] > 0]
    basket = [(p["upc"], rng.randint(1, 3)) for p in rng.sample(in_stock, 3)]
    streets = rng.sample(vocab.STREETS, 3)
    addresses = [
        {"line1": f"{rng.randint(2, 98)} {street}", "line4": city, "postcode": postcode}
        for street, city, postcode in zip(
            streets, rng.sample(UK_CITIES, 3), rng.sample(POSTCODES, 3), strict=True
        )
    ]
    picks = rng.sample(products, 3)
    notices = [
        {
            "subject": f"{kind} {p['title']}",
            "body": f"{kind} {p['title']}: see its page in the shop.",
            "hours": h,
        }
        for kind, p, h in zip(NOTICES, picks, sorted(rng.sample(range(1, 700), 3)), strict=True)
    ]
    return {
        "categories": cats, "products": products, "basket": basket, "customer": list(CUSTOMER),
        "addresses": addresses, "notifications": notices,
    }  # fmt: skip


def install() -> Path:
    """Oscar's venv root (installed on first use)."""
    return install_venv(NAME, LOCK)


def python(root: Path) -> str:
    return str(root / "venv" / "bin" / "python")


def template(seed: int = 0, size: int = 40) -> Path:
    """The seeded env for (seed, size products) (made once; sessions copy it): the App's `template`."""
    root, s = install(), Seed(seed, size)
    return seeded_template(NAME, root, f"{s.key}-{_code_key()}", lambda env: seed_env(root, env, s))


def _code_key() -> str:
    """A key of the seed's code (this module and the word lists): a change to it makes a new template."""
    return file_hash(Path(__file__), Path(vocab.__file__))


# ── the Django project ────────────────────────────────────────────────────────

SETTINGS = '''"""The seeded shop's settings (written by plandvc.apps.oscar): Oscar's defaults, SQLite and Whoosh inside
this folder, no debug, no language prefix, 10 products a page."""
import os
from oscar.defaults import *  # noqa: F403

HERE = os.path.dirname(os.path.abspath(__file__))
DEBUG = False
SECRET_KEY = "plandvc-seeded-shop-not-secret"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(HERE, "db.sqlite3"),
                         "ATOMIC_REQUESTS": True}}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-gb"
LANGUAGES = [("en-gb", "British English")]
USE_I18N = True
SITE_ID = 1
ROOT_URLCONF = "urls"
MEDIA_ROOT = os.path.join(HERE, "media")
MEDIA_URL = "/media/"
STATIC_URL = "/static/"
STATIC_ROOT = os.path.join(HERE, "static")
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
INSTALLED_APPS = [
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions",
    "django.contrib.messages", "django.contrib.staticfiles", "django.contrib.sites", "django.contrib.flatpages",
    "oscar.config.Shop", "oscar.apps.analytics.apps.AnalyticsConfig", "oscar.apps.checkout.apps.CheckoutConfig",
    "oscar.apps.address.apps.AddressConfig", "oscar.apps.shipping.apps.ShippingConfig",
    "oscar.apps.catalogue.apps.CatalogueConfig", "oscar.apps.catalogue.reviews.apps.CatalogueReviewsConfig",
    "oscar.apps.communication.apps.CommunicationConfig", "oscar.apps.partner.apps.PartnerConfig",
    "oscar.apps.basket.apps.BasketConfig", "oscar.apps.payment.apps.PaymentConfig",
    "oscar.apps.offer.apps.OfferConfig", "oscar.apps.order.apps.OrderConfig",
    "oscar.apps.customer.apps.CustomerConfig", "oscar.apps.search.apps.SearchConfig",
    "oscar.apps.voucher.apps.VoucherConfig", "oscar.apps.wishlists.apps.WishlistsConfig",
    "oscar.apps.dashboard.apps.DashboardConfig", "oscar.apps.dashboard.reports.apps.ReportsDashboardConfig",
    "oscar.apps.dashboard.users.apps.UsersDashboardConfig",
    "oscar.apps.dashboard.orders.apps.OrdersDashboardConfig",
    "oscar.apps.dashboard.catalogue.apps.CatalogueDashboardConfig",
    "oscar.apps.dashboard.offers.apps.OffersDashboardConfig",
    "oscar.apps.dashboard.partners.apps.PartnersDashboardConfig",
    "oscar.apps.dashboard.pages.apps.PagesDashboardConfig",
    "oscar.apps.dashboard.ranges.apps.RangesDashboardConfig",
    "oscar.apps.dashboard.reviews.apps.ReviewsDashboardConfig",
    "oscar.apps.dashboard.vouchers.apps.VouchersDashboardConfig",
    "oscar.apps.dashboard.communications.apps.CommunicationsDashboardConfig",
    "oscar.apps.dashboard.shipping.apps.ShippingDashboardConfig",
    "widget_tweaks", "haystack", "treebeard", "django_tables2",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "shop.SignedInCustomer",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "oscar.apps.basket.middleware.BasketMiddleware",
    "django.contrib.flatpages.middleware.FlatpageFallbackMiddleware",
]
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.contrib.auth.context_processors.auth", "django.template.context_processors.request",
        "django.template.context_processors.i18n", "django.template.context_processors.media",
        "django.template.context_processors.static", "django.contrib.messages.context_processors.messages",
        "oscar.apps.search.context_processors.search_form",
        "oscar.apps.communication.notifications.context_processors.notifications",
        "oscar.apps.checkout.context_processors.checkout", "oscar.core.context_processors.metadata",
    ]},
}]
AUTHENTICATION_BACKENDS = ("oscar.apps.customer.auth_backends.EmailBackend",
                           "django.contrib.auth.backends.ModelBackend")
HAYSTACK_CONNECTIONS = {"default": {"ENGINE": "haystack.backends.whoosh_backend.WhooshEngine",
                                    "PATH": os.path.join(HERE, "whoosh")}}
HAYSTACK_SIGNAL_PROCESSOR = "haystack.signals.BaseSignalProcessor"
LOGGING = {"version": 1, "disable_existing_loggers": True, "root": {"level": "CRITICAL", "handlers": []}}
OSCAR_SHOP_NAME = "Oscar Shop"
OSCAR_SHOP_TAGLINE = "Seeded"
OSCAR_PRODUCTS_PER_PAGE = 10
OSCAR_RECENTLY_VIEWED_PRODUCTS = 0
OSCAR_THUMBNAILER = "shop.Original"
OSCAR_THUMBNAIL_DEBUG = False
OSCAR_DEFAULT_CURRENCY = "GBP"
OSCAR_ALLOW_ANON_CHECKOUT = True
OSCAR_MODERATE_REVIEWS = False
OSCAR_SEARCH_FACETS = {"fields": {}, "queries": {}}
'''

URLS = '''"""The seeded shop's URLs: Oscar's without a language prefix, the language switch and the media folder."""
from django.apps import apps
from django.conf import settings
from django.urls import include, path, re_path
from django.views.static import serve

urlpatterns = [
    re_path(r"^media/(?P<path>.*)$", serve, {"document_root": settings.MEDIA_ROOT}),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include(apps.get_app_config("oscar").urls[0])),
]
'''

SHOP = '''"""The seeded shop's own pieces: every request is the seeded customer's (signed in), and a thumbnailer that
serves the original image (sorl-thumbnail is not installed)."""
from types import SimpleNamespace

from django.conf import settings

CUSTOMER_EMAIL = {email!r}


class SignedInCustomer:
    """Sign every request in as the seeded customer, after Django's authentication."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.contrib.auth import get_user_model

        request.user = get_user_model().objects.get(email=CUSTOMER_EMAIL)
        return self.get_response(request)


class Original:
    """Oscar's thumbnailer interface: the original image at its media URL."""

    def generate_thumbnail(self, source, **opts):
        return SimpleNamespace(url=settings.MEDIA_URL + str(getattr(source, "name", source)))

    def delete_thumbnails(self, source):
        return None
'''

# the venv's python runs Django with its clock fixed (`django.utils.timezone.now`, which model defaults and
# auto_now fields read, patched before anything imports it): argv[1] is the env, argv[2] the time, the rest
# a manage.py command line
CLOCKED = """
import datetime, os, sys
env, now = sys.argv[1], datetime.datetime.fromisoformat(sys.argv[2])
sys.path.insert(0, env)
os.environ["DJANGO_SETTINGS_MODULE"] = "settings"
from django.utils import timezone
timezone.now = lambda: now
from django.core.management import execute_from_command_line
execute_from_command_line(["manage.py", *sys.argv[3:]])
"""

# run by the venv's python through CLOCKED's setup (Django configured, the clock fixed): argv[1] the env,
# argv[2] the catalogue as JSON
SEED_SCRIPT = """
import datetime, json, os, sys
env, now = sys.argv[1], datetime.datetime.fromisoformat(sys.argv[2])
sys.path.insert(0, env)
os.environ["DJANGO_SETTINGS_MODULE"] = "settings"
from django.utils import timezone
timezone.now = lambda: now
import django
django.setup()
from decimal import Decimal
from django.contrib.auth import get_user_model
from django.contrib.sites.models import Site
from django.db import transaction
from oscar.core.loading import get_model
from oscar.apps.partner.strategy import Default

cat = json.load(open(sys.argv[3]))
Category = get_model("catalogue", "Category")
Product = get_model("catalogue", "Product")
ProductClass = get_model("catalogue", "ProductClass")
ProductAttribute = get_model("catalogue", "ProductAttribute")
ProductCategory = get_model("catalogue", "ProductCategory")
Partner = get_model("partner", "Partner")
StockRecord = get_model("partner", "StockRecord")
Basket = get_model("basket", "Basket")
with transaction.atomic():
    Site.objects.filter(id=1).update(domain="127.0.0.1", name="Oscar Shop")
    partner = Partner.objects.create(name="Seeded Goods")
    pclass = ProductClass.objects.create(name="Item", requires_shipping=True, track_stock=True)
    for code, name in (("colour", "Colour"), ("material", "Material")):
        ProductAttribute.objects.create(product_class=pclass, name=name, code=code, type="text")
    cats = {name: Category.add_root(name=name) for name in cat["categories"]}
    by_upc = {}
    for p in cat["products"]:
        product = Product(title=p["title"], upc=p["upc"], product_class=pclass, description=p["description"])
        product.attr.colour = p["colour"]
        product.attr.material = p["material"]
        product.save()
        ProductCategory.objects.create(product=product, category=cats[p["category"]])
        StockRecord.objects.create(product=product, partner=partner, partner_sku="SKU" + p["upc"],
                                   price_currency="GBP", price=Decimal(p["price"]), num_in_stock=p["stock"])
        by_upc[p["upc"]] = product
    first, last, email = cat["customer"]
    user = get_user_model().objects.create_user(
        username="customer", email=email, password=None, first_name=first, last_name=last)
    # an unusable password of fixed text (Django's own is random): the customer is signed in by the middleware
    user.password = "!seeded-unusable"
    user.save(update_fields=["password"])
    Country = get_model("address", "Country")
    UserAddress = get_model("address", "UserAddress")
    gb = Country.objects.create(iso_3166_1_a2="GB", iso_3166_1_a3="GBR", iso_3166_1_numeric="826",
                                printable_name="United Kingdom", name="United Kingdom", is_shipping_country=True)
    for a in cat["addresses"]:
        UserAddress.objects.create(user=user, first_name=first, last_name=last, country=gb, **a)
    Notification = get_model("communication", "Notification")
    for n in cat["notifications"]:
        Notification.objects.create(recipient=user, subject=n["subject"], body=n["body"])
    basket = Basket.objects.create(owner=user)
    basket.strategy = Default()
    for upc, qty in cat["basket"]:
        basket.add_product(by_upc[upc], qty)
"""


def write_project(env: Path) -> None:
    """The Django project's files in `env`."""
    env.mkdir(parents=True, exist_ok=True)
    (env / "settings.py").write_text(SETTINGS)
    (env / "urls.py").write_text(URLS)
    (env / "shop.py").write_text(SHOP.format(email=CUSTOMER[2]))


def migrated(root: Path) -> Path:
    """The database after Oscar's migrations (no rows of the shop's), made once per install and code (the
    migrations take most of a seed's time); each seed starts from a copy."""
    folder = root / f"migrated-{_code_key()}"

    def build(f: Path) -> None:
        write_project(f / "env")
        _run([python(root), "-c", CLOCKED, str(f / "env"), SEED_NOW, "migrate", "--noinput"], "migrate",
             quiet_env())  # fmt: skip

    with locked(f"{NAME}-migrate"):
        built(folder, ".migrated", build)
    return folder / "env" / "db.sqlite3"


def seed_env(root: Path, env: Path, seed: Seed) -> None:
    """A new seeded shop at `env` with the Oscar of venv root `root` (see the module docstring)."""
    write_project(env)
    shutil.copyfile(migrated(root), env / "db.sqlite3")
    cat = catalogue(seed)
    data = env.parent / "catalogue.json"
    data.write_text(json.dumps(cat, sort_keys=True))
    _run([python(root), "-c", SEED_SCRIPT, str(env), SEED_NOW, str(data)], "seed the shop", quiet_env())
    with contextlib.closing(sqlite3.connect(env / "db.sqlite3")) as db, db:
        for i, n in enumerate(cat["notifications"], start=1):
            db.execute(
                "UPDATE communication_notification SET date_sent = ?, date_read = ? WHERE id = ?",
                (_stamp(n["hours"]), _stamp(n["hours"]), i),
            )
        for p in cat["products"]:
            stamp = _stamp(p["created_hours"])
            db.execute(
                "UPDATE catalogue_product SET date_created = ?, date_updated = ? WHERE upc = ?",
                (stamp, stamp, p["upc"]),
            )
    _run([python(root), "-c", CLOCKED, str(env), SEED_NOW, "rebuild_index", "--noinput"], "rebuild_index",
         quiet_env())  # fmt: skip


def _stamp(hours: int) -> str:
    """Django's SQLite datetime text of SEED_NOW plus `hours`."""
    import datetime as dt

    t = dt.datetime.fromisoformat(SEED_NOW) + dt.timedelta(hours=hours)
    return t.strftime("%Y-%m-%d %H:%M:%S")


# ── serving ───────────────────────────────────────────────────────────────────


def serve(seed: int = 0, size: int = 40) -> AbstractContextManager[FreshSession]:
    """A fresh copy of the shop seeded with (seed, size products), served by Django on a free loopback port
    and stopped on exit: the App's `serve`."""
    tpl = template(seed, size)
    root = tpl.parent.parent

    def server(env: Path, port: int) -> Server:
        cmd = [python(root), "-c", CLOCKED, str(env), NOW, "runserver", f"127.0.0.1:{port}", "--noreload",
               "--insecure"]  # fmt: skip
        return Server(cmd, f"http://127.0.0.1:{port}", probe="/catalogue/")

    return serve_copy(NAME, tpl, server, state)


# ── state ─────────────────────────────────────────────────────────────────────


def _connect(env: Path) -> sqlite3.Connection:
    db = sqlite3.connect(f"file:{env / 'db.sqlite3'}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    return db


def products(env: Path) -> list[Row]:
    """Every product with its category, price, stock and attributes, by id."""
    with contextlib.closing(_connect(env)) as db:
        rows: list[Row] = [
            {
                "id": r["id"], "upc": r["upc"], "title": r["title"], "slug": r["slug"],
                "category": r["category"], "category_path": r["cat_slug"], "category_id": r["cat_id"],
                "price": str(r["price"]), "stock": r["num_in_stock"],
            }
            for r in db.execute(
                "SELECT p.id, p.upc, p.title, p.slug, c.name AS category, c.slug AS cat_slug, c.id AS cat_id, "
                "s.price, s.num_in_stock FROM catalogue_product p "
                "JOIN catalogue_productcategory pc ON pc.product_id = p.id "
                "JOIN catalogue_category c ON c.id = pc.category_id "
                "JOIN partner_stockrecord s ON s.product_id = p.id ORDER BY p.id"
            )
        ]  # fmt: skip
        attrs: dict[int, dict[str, str]] = {}
        for r in db.execute(
            "SELECT v.product_id, a.code, v.value_text FROM catalogue_productattributevalue v "
            "JOIN catalogue_productattribute a ON a.id = v.attribute_id ORDER BY v.product_id, a.code"
        ):
            attrs.setdefault(r["product_id"], {})[r["code"]] = r["value_text"] or ""
    for row in rows:
        row.update(attrs.get(int(row["id"] or 0), {}))
    return rows


def basket_lines(env: Path) -> list[Row]:
    """The lines of the customer's open basket: id, product title, quantity."""
    with contextlib.closing(_connect(env)) as db:
        return [
            {"id": r["id"], "product": r["title"], "quantity": r["quantity"]}
            for r in db.execute(
                "SELECT l.id, p.title, l.quantity FROM basket_line l "
                "JOIN basket_basket b ON b.id = l.basket_id JOIN catalogue_product p ON p.id = l.product_id "
                "WHERE b.status = 'Open' ORDER BY l.id"
            )
        ]


def reviews(env: Path) -> list[Row]:
    """Every product review: id, product title, title, score, body."""
    with contextlib.closing(_connect(env)) as db:
        return [
            {
                "id": r["id"],
                "product": r["ptitle"],
                "title": r["title"],
                "score": r["score"],
                "body": r["body"],
            }
            for r in db.execute(
                "SELECT r.id, p.title AS ptitle, r.title, r.score, r.body FROM reviews_productreview r "
                "JOIN catalogue_product p ON p.id = r.product_id ORDER BY r.id"
            )
        ]


def profile(env: Path) -> list[Row]:
    """The customer's account row: id, first and last name, email."""
    with contextlib.closing(_connect(env)) as db:
        return [
            {"id": r["id"], "first_name": r["first_name"], "last_name": r["last_name"], "email": r["email"]}
            for r in db.execute("SELECT id, first_name, last_name, email FROM auth_user ORDER BY id")
        ]


def addresses(env: Path) -> list[Row]:
    """The customer's address book: id, street (line1), city (line4), postcode."""
    with contextlib.closing(_connect(env)) as db:
        return [
            {"id": r["id"], "street": r["line1"], "city": r["line4"], "postcode": r["postcode"]}
            for r in db.execute("SELECT id, line1, line4, postcode FROM address_useraddress ORDER BY id")
        ]


def notifications(env: Path) -> list[Row]:
    """The customer's notifications: id, subject, location (Inbox or Archive)."""
    with contextlib.closing(_connect(env)) as db:
        return [
            {"id": r["id"], "subject": r["subject"], "location": r["location"]}
            for r in db.execute("SELECT id, subject, location FROM communication_notification ORDER BY id")
        ]


TABLES = {
    "basket_line": basket_lines, "address": addresses, "notification": notifications, "review": reviews,
    "profile": profile,
}  # fmt: skip


def diff(table: str, now: list[Row], before: list[Row]) -> list[Change]:
    """The creates, updates (one per changed field set) and deletes of `table` from `before` to `now`, by id."""
    old = {r["id"]: r for r in before}
    new_ids = {r["id"] for r in now}
    changes: list[Change] = []
    for row in now:
        if row["id"] not in old:
            changes.append({"table": table, "op": "create", "id": row["id"], "fields": dict(row)})
            continue
        changed = {k: v for k, v in row.items() if old[row["id"]].get(k) != v}
        if changed:
            changes.append({"table": table, "op": "update", "id": row["id"], "fields": changed})
    for row in before:
        if row["id"] not in new_ids:
            changes.append({"table": table, "op": "delete", "id": row["id"], "fields": {}})
    return changes


def state(env: Path, template: Path) -> dict[str, Any]:
    """`entries` and `changes` of a session's database against its template (the gates' state shape)."""
    entries = {name: read(env) for name, read in TABLES.items()}
    changes = [c for name, read in TABLES.items() for c in diff(name, entries[name], read(template))]
    return {"entries": entries, "changes": changes}
