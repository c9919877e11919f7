"""The world's domain files: every file is listed and read, and a wrong key is one clear error naming the
file and the key path (plandvc/world/domains/load.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from plandvc.errors import InputError
from plandvc.world import vocab
from plandvc.world.domains import DOMAINS, HERE, ORDER
from plandvc.world.domains.load import load_domain
from plandvc.world.fields import Code, Num, Words

GOOD = (Path(__file__).parent / "demo_domain.toml").read_text(encoding="utf-8")


def write(tmp_path: Path, text: str, name: str = "demo") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


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
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(InputError) as e:
        load_domain(path)
    assert says in str(e.value) and str(path) in str(e.value) and "\n" not in str(e.value)


def test_a_domain_needs_two_tables(tmp_path: Path):
    one = GOOD[: GOOD.index('[[tables]]\nname = "orders"')]
    with pytest.raises(InputError, match=r"demo\.toml: tables: has 1 tables, not 2"):
        load_domain(write(tmp_path, one))
