"""The snapshot's pure parts: how an element is rendered for the agent, described for elements.json and
summarised for an event's target, and URLs relative to the session's base."""

from __future__ import annotations

from plandvc.browser import Element, relative_url


def test_render_and_descriptor_of_elements() -> None:
    select = Element(
        index=3, tag="select", role="combobox", text="", label="Status",
        attrs={"data-control-id": "orders-status", "name": "status", "id": "s"}, box=(1, 2, 3, 4),
        options=("Any", "Pending", "Shipped"), value="Shipped",
    )  # fmt: skip
    assert select.render() == (
        "[3]<select id=s name=status data-control-id=orders-status label=Status value=Shipped>"
        "Any | Pending | Shipped</select>"
    )
    assert select.summary(state=False) == (
        "<select id=s name=status data-control-id=orders-status label=Status>Any | Pending | Shipped</select>"
    )
    assert select.descriptor() == {
        "tag": "select", "role": "combobox", "text": "", "label": "Status",
        "attrs": {"data-control-id": "orders-status", "id": "s", "name": "status"}, "box": [1, 2, 3, 4],
    }  # fmt: skip
    home = Element(
        0, "a", "link", "Northwind Shop", "", {"href": "/sites/shop", "data-home": ""}, (0, 0, 9, 9)
    )
    assert home.render() == "[0]<a href=/sites/shop data-home>Northwind Shop</a>"
    search = Element(
        1,
        "input",
        "searchbox",
        "",
        "Search",
        {"type": "search", "placeholder": "Name or city"},
        (0, 0, 1, 1),
        value="",
    )
    assert search.render() == '[1]<input type=search placeholder="Name or city" label=Search value="" />'


def test_relative_url() -> None:
    base = "http://127.0.0.1:8320"
    assert (
        relative_url("http://127.0.0.1:8320/sites/shop/orders?status=Shipped", base)
        == "/sites/shop/orders?status=Shipped"
    )
    assert relative_url("http://127.0.0.1:8320", base) == "/"
    assert relative_url("http://127.0.0.1:8321/sites/shop", base) == "http://127.0.0.1:8321/sites/shop"
