"""The world's data files: every domain file is listed and read (plandvc/world/domains/load.py), the look
options (plandvc/world/looks.toml) read into typed tuples, and a wrong key in either is one clear error
naming the file and the key path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from plandvc.errors import InputError
from plandvc.world import vocab
from plandvc.world.domains import DOMAINS, HERE, ORDER
from plandvc.world.domains.load import load_domain
from plandvc.world.fields import Code, Num, Words
from plandvc.world.themes import LOOKS_FILE, OPTIONS, read_options

GOOD = (Path(__file__).parent / "demo_domain.toml").read_text(encoding="utf-8")
LOOKS = LOOKS_FILE.read_text(encoding="utf-8")


def write(tmp_path: Path, text: str, name: str = "demo") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def error_of(read: Callable[[Path], object], path: Path, good: str, old: str, new: str) -> str:
    """The error `read` raises on `good` with `old` replaced by `new` (written to `path`): one line naming it."""
    assert old in good
    path.write_text(good.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(InputError) as e:
        read(path)
    assert str(path) in str(e.value) and "\n" not in str(e.value)
    return str(e.value)


def test_every_domain_file_is_listed_and_every_listed_key_has_its_file():
    assert sorted(p.stem for p in HERE.glob("*.toml")) == sorted(ORDER)
    assert [d.key for d in DOMAINS] == list(ORDER)


def test_a_domain_file_reads_into_its_records(tmp_path: Path):
    d = load_domain(write(tmp_path, GOOD))
    items, orders = d.tables
    name = items.field("name").make
    assert isinstance(name, Words)
    assert name.parts == (
        vocab.CITIES,
        ("@mail.example", "shop"),
    )  # a capital name is a vocabulary, else a word
    price = items.field("price")
    assert isinstance(price.make, Num) and price.make.lo == 1 and isinstance(price.make.lo, int)
    state = items.field("state").column
    assert (price.column.prefix, price.column.decimals, state.display) == ("$", 2, "badge")
    assert orders.field("code").make == Code("OR", 4)
    assert (orders.create, orders.edit, orders.text, items.copy) == (("kind", "price"), (), None, "name")


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ('hero = "Find things"', 'hero = "Find things"\ncolour = "red"', "demo.toml: unknown key 'colour'"),
        ('tagline = "Things"\n', "", "demo.toml: tagline: missing"),
        ('enum = ["A", "B"]\n', 'enum = ["A", "B"]\ndays = [1, 2]\n', "tables[0].fields[1]: needs exactly one of"),
        ('[["@CITIES"]', '[["@TOWNS"]', "tables[0].fields[0].words: no shared vocabulary '@TOWNS'"),
        ("number = [1, 90]", 'number = [1, "90"]', "tables[1].fields[2].number[1]: '90' is not of type 'number'"),
        ('badge = true', 'badge = "yes"', "tables[0].fields[2].badge: 'yes' is not of type 'boolean'"),
        ('search = ["code"]', 'search = ["id"]', "tables[1]: names the column 'id', which the table does not have"),
        ('key = "demo"', 'key = "shop"', "demo.toml: key: is 'shop', not the file's name 'demo'"),
        ('sort = ["price", "added"]', "sort = [", "demo.toml: "),
        ("[[tables]]\nname = \"orders\"", "[[other]]\nname = \"orders\"", "unknown key 'other'"),
        ('enum = ["New", "Used"]', 'enum = ["New", "Used"]\nsep = "-"', "tables[0].fields[2]: unknown key 'sep'"),
        ("digits = 4", "digits = 0", "tables[1].fields[0].digits: 0 is less than the minimum of 1"),
    ],
    ids=["unknown-key", "missing-key", "two-kinds", "vocabulary", "bounds", "type", "column", "file-name",
         "not-toml", "extra-table", "another-kinds-option", "range"],
)  # fmt: skip
def test_a_wrong_domain_file_is_one_error_naming_the_file_and_the_key(
    tmp_path: Path, old: str, new: str, says: str
):
    assert says in error_of(load_domain, tmp_path / "demo.toml", GOOD, old, new)


def test_a_domain_needs_two_tables(tmp_path: Path):
    one = GOOD[: GOOD.index('[[tables]]\nname = "orders"')]
    with pytest.raises(InputError, match=r"demo\.toml: tables: has 1 tables, not 2"):
        load_domain(write(tmp_path, one))


def test_the_look_options_read_into_typed_tuples(tmp_path: Path):
    assert read_options(write(tmp_path, LOOKS, "looks")) == OPTIONS
    assert OPTIONS.palettes[0] == ("#c2410c", "#fff7ed", "#ffffff", "#1c1917")
    assert all(isinstance(p, tuple) and len(p) == 4 for p in OPTIONS.palettes)
    assert OPTIONS.radii == (0, 4, 8, 14) and OPTIONS.page_sizes == (10, 12, 15)
    assert OPTIONS.paginations == ("numbered", "nextprev", "loadmore")


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("page_sizes = [", 'shadows = ["soft"]\npage_sizes = [', "looks.toml: unknown key 'shadows'"),
        ("radii = [0, 4, 8, 14]", "", "looks.toml: radii: missing"),
        ('"#fff7ed"', '"#fff7e"', "looks.toml: palettes[0][1]: '#fff7e' does not match"),
        (', "#1c1917"]', "]", "looks.toml: palettes[0]: ['#c2410c', '#fff7ed', '#ffffff'] is too short"),
        ('"nextprev"', '"infinite"', "looks.toml: paginations[1]: 'infinite' is not one of none, numbered"),
        ('"cookie"', '"popup"', "looks.toml: banners[1]: 'popup' is not one of none, cookie, newsletter"),
        ('"Liberation Sans"', '"DejaVu Sans"', "looks.toml: fonts: ['DejaVu Sans', 'DejaVu Sans', "),
        ("[10, 12, 15]", '[10, "12", 15]', "looks.toml: page_sizes[1]: '12' is not of type 'integer'"),
        ("fonts = [", "fonts = ", "looks.toml: "),
    ],
    ids=["unknown-key", "missing-key", "colour", "palette-size", "pagination", "banner", "duplicate", "type",
         "not-toml"],
)  # fmt: skip
def test_a_wrong_looks_file_is_one_error_naming_the_file_and_the_key(
    tmp_path: Path, old: str, new: str, says: str
):
    assert says in error_of(read_options, tmp_path / "looks.toml", LOOKS, old, new)
