"""The apps' screenshots for the docs (`python -m plandvc.apps.shoot`): each page of the adapter's `pages` as a
JPEG at the harness's viewport, and the doc's apps part filled (a doc without it is refused)."""

from __future__ import annotations

from pathlib import Path

import pytest

from plandvc.apps import REGISTRY
from plandvc.apps.shoot import BEGIN, END, main, write_doc
from plandvc.io import InputError


def test_the_shoot_pictures_every_page_of_an_app_and_fills_the_doc(tmp_path: Path) -> None:
    doc = tmp_path / "APPS.md"
    doc.write_text(f"# Apps\n\n{BEGIN}\nold\n{END}\n\nafter\n")
    assert main(["--apps", "trac", "--out", str(tmp_path / "pics"), "--doc", str(doc)]) == 0
    for kind, _path in REGISTRY["trac"].pages:
        data = (tmp_path / "pics" / f"trac-{kind}.jpg").read_bytes()
        assert data[:3] == b"\xff\xd8\xff" and len(data) > 10_000  # a JPEG with a page in it
    text = doc.read_text()
    assert "old" not in text and "![list: /query](pics/trac-list.jpg)" in text and text.endswith("after\n")


def test_a_doc_without_the_apps_part_is_refused(tmp_path: Path) -> None:
    doc = tmp_path / "NOPE.md"
    doc.write_text("# nothing to fill\n")
    with pytest.raises(InputError, match="no <!-- apps:begin -->"):
        write_doc(doc, tmp_path, [REGISTRY["trac"]])
    assert doc.read_text() == "# nothing to fill\n"
    assert main(["--apps", "nope", "--out", str(tmp_path)]) != 0
