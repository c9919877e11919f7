"""The stable attributes of an element descriptor are one list (`plandvc.browser.snapshot.ATTR_ORDER`): the
snapshot script keeps exactly those, and the elements schema accepts exactly those, so a new attribute (such as
a banner's `data-dismiss`) cannot be recorded by one and refused by another."""

from __future__ import annotations

import json
import re
from pathlib import Path

from plandvc.browser.snapshot import ATTR_ORDER, SNAPSHOT_JS

SCHEMA = Path(__file__).resolve().parents[1] / "plandvc" / "contract" / "schemas" / "elements.schema.json"


def _js_stable(js: str) -> list[str]:
    body = re.search(r"const STABLE = \[(.*?)\];", js, re.S)
    assert body, "snapshot.js has no STABLE list"
    return re.findall(r"'([^']+)'", body.group(1))


def _schema_attrs(schema: dict) -> list[str]:
    attrs = schema["items"]["properties"]["attrs"] if "items" in schema else schema["properties"]["attrs"]
    return list(attrs["propertyNames"]["enum"])


def test_snapshot_js_keeps_exactly_the_stable_attributes() -> None:
    assert sorted(_js_stable(SNAPSHOT_JS)) == sorted(ATTR_ORDER)
    # the check sees a difference: one attribute fewer in the script
    assert sorted(_js_stable(SNAPSHOT_JS.replace("'data-dismiss', ", ""))) != sorted(ATTR_ORDER)


def test_the_elements_schema_accepts_exactly_the_stable_attributes() -> None:
    assert sorted(_schema_attrs(json.loads(SCHEMA.read_text()))) == sorted(ATTR_ORDER)
