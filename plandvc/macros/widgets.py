"""The scripted executor's moves on the generated world's widgets, one function per control implementation.

The executor (`plandvc.macros.script.Executor`) keeps the original sites' moves; where a site draws a control another
way (an ARIA listbox, toggle chips, radios, min–max number fields, a calendar popup, clickable sort headers,
search with suggestions), hides its navigation in a drawer or a menu, pages its lists, shows a banner, or opens
its forms in a dialog or a wizard, it calls in here. Every move is a recorded step on an element found the way
a person names it (its text, label or control id), so a replay finds it again; the URL it ends on is the one
the original widget would have produced, so the same task is checked by the same gate on every layout.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from plandvc.records import ParamValue
from plandvc.sites.model import FACET_KINDS, FORM_KINDS, Control, Spec, Table

if TYPE_CHECKING:
    from plandvc.browser import Element, Session

Pick = Callable[["Element"], bool]  # a predicate over a snapshot Element
MAX_PAGES = 12  # pages a list is walked through to find an entry
MAX_MONTHS = 40  # calendar moves (years, then months) to reach a date
MENU_BUTTONS = {"drawer": "☰ Menu", "menu": "Browse ▾"}
DISMISS_BUTTONS = {"cookie": "Accept all", "newsletter": "No thanks"}
NEXT_LINKS = ("Next ›", "Load more")
_MONTH_JS = "() => { const m = document.querySelector('[data-calendar]:not([hidden]) [data-month]');" \
    " return m ? m.dataset.month : null; }"  # fmt: skip


class Driver(Protocol):
    """What the widgets need of the executor: its session, spec and recorded steps."""

    session: Session
    spec: Spec

    async def step(
        self, action: str, pick: Pick, what: str, memory: str, value: ParamValue = None
    ) -> None: ...

    async def apply(self, cid: str, memory: str = ...) -> None: ...


def cid_is(cid: str) -> Pick:
    return lambda e: e.attrs.get("data-control-id") == cid


def both(a: Pick, b: Pick) -> Pick:
    return lambda e: a(e) and b(e)


def text_is(text: str) -> Pick:
    return lambda e: e.text == text


def button(text: str) -> Pick:
    return lambda e: e.tag == "button" and e.text == text


async def visible(ex: Driver, pick: Pick) -> Element | None:
    """The first element of a fresh snapshot that `pick` accepts, or None."""
    for e in (await ex.session.snapshot()).elements:
        if pick(e):
            return e
    return None


# ── page furniture ───────────────────────────────────────────────────────────────────────────────────


async def dismiss_banner(ex: Driver) -> None:
    """Close the cookie or newsletter banner when the page shows one (a person does that first)."""
    text = DISMISS_BUTTONS.get(ex.spec.theme.banner)
    if text and await visible(ex, button(text)):
        what = "cookie notice" if ex.spec.theme.banner == "cookie" else "newsletter pop-up"
        await ex.step("click", button(text), f"{what} button", f'Closing the {what} with "{text}".')


async def open_menu(ex: Driver) -> None:
    """Open the drawer or the dropdown menu when the site keeps its navigation there."""
    toggle = MENU_BUTTONS.get(ex.spec.theme.nav)
    if not toggle or not ex.spec.theme.family:
        return
    await ex.step(
        "click",
        button(toggle),
        "menu button",
        "Opening the menu." if ex.spec.theme.nav == "drawer" else 'Opening the "Browse" menu.',
    )


async def reveal(ex: Driver, href: str, label: str) -> None:
    """Page through a paginated list (next page or "Load more") until the entry's link is on the page."""
    if not ex.spec.theme.family or ex.spec.theme.pagination == "none":
        return
    link = lambda e: e.attrs.get("href") == href  # noqa: E731
    for _ in range(MAX_PAGES):
        if await visible(ex, link):
            return
        nxt = await visible(ex, lambda e: e.tag == "a" and e.text in NEXT_LINKS)
        if nxt is None:
            return  # not on any page: the caller's step names what is missing
        memory = (
            f'Loading more to find "{label}".'
            if nxt.text == "Load more"
            else f'Going to the next page to find "{label}".'
        )
        await ex.step("click", both(lambda e: e.tag == "a", text_is(nxt.text)), f'"{nxt.text}" link', memory)


# ── list controls ────────────────────────────────────────────────────────────────────────────────────


def grouped(spec: Spec, c: Control) -> str | None:
    """How a v3 list applies control `c`: "facets" (a facet link), "form" (the filter form's one Apply) or
    "change" (the form applies on change; min–max fields keep their own "Go"); None: its own Apply."""
    mode = spec.theme.filters
    if mode == "facets" and c.kind in FACET_KINDS:
        return mode
    if mode in ("form", "change") and c.kind in FORM_KINDS:
        if mode == "change" and c.kind == "slider" and c.implementation == "numbers":
            return None
        return mode
    return None


async def click_facet(ex: Driver, c: Control, v: str) -> None:
    """Click the facet link of value `v` of control `c` in a v3 facet sidebar ("Italian", its count beside)."""
    pick = both(cid_is(f"{c.control_id}-facet"), lambda e: e.tag == "a" and e.text == v)
    await ex.step("click", pick, f'{c.label} facet "{v}"', f'Clicking "{v}" under {c.label} in the sidebar.')


async def choose_listbox(ex: Driver, c: Control, v: str, memory: str) -> None:
    """Open the ARIA listbox of dropdown `c` and pick the option `v`."""
    toggle = both(cid_is(c.control_id), lambda e: e.tag == "button")
    await ex.step("click", toggle, f"{c.label} list button", f"Opening the {c.label} list.")
    await ex.step(
        "click", both(cid_is(f"{c.control_id}-option"), text_is(v)), f'{c.label} option "{v}"', memory
    )


async def tick_option(ex: Driver, c: Control, v: str, memory: str) -> None:
    """Choose option `v` of control `c` drawn as toggle chips or radios."""
    if c.implementation == "chips":
        pick = both(cid_is(c.control_id), button(v))
        await ex.step("click", pick, f'{c.label} chip "{v}"', memory.replace("Ticking", "Selecting"))
    else:
        pick = both(cid_is(c.control_id), lambda e: e.attrs.get("type") == "radio" and e.label == v)
        await ex.step("click", pick, f'{c.label} radio "{v}"', memory.replace("Ticking", "Choosing"))


async def type_max(ex: Driver, c: Control, raw: str) -> None:
    """Type the upper bound of a slider drawn as min–max number fields."""
    pick = both(cid_is(c.control_id), lambda e: e.attrs.get("aria-label") == "Maximum")
    await ex.step(
        "input", pick, f"{c.label} maximum field", f"Typing {raw} as the maximum {c.label.lower()}.", raw
    )


def _months(ym: str) -> int:
    return int(ym[:4]) * 12 + int(ym[5:7]) - 1


async def _calendar_to(ex: Driver, c: Control, date: str) -> None:
    """Move the open calendar to the month of `date` (a year at a time while a year or more away, then a
    month at a time), then click its day."""
    for _ in range(MAX_MONTHS):
        month = await ex.session.page.evaluate(_MONTH_JS)
        if month is None or month == date[:7]:
            break
        gap = _months(date[:7]) - _months(month)
        unit = "year" if abs(gap) >= 12 else "month"
        label = f"{'Next' if gap > 0 else 'Previous'} {unit}"
        pick = lambda e, label=label: e.tag == "button" and e.attrs.get("aria-label") == label  # noqa: E731
        await ex.step(
            "click", pick, f"{label.lower()} button", f"Moving the calendar to the {label.lower()}."
        )
    day = lambda e: e.tag == "button" and e.attrs.get("aria-label") == date  # noqa: E731
    await ex.step("click", day, f"day {date}", f"Picking {date} in the calendar.")


async def pick_dates(ex: Driver, c: Control, start: str, end: str) -> None:
    """Set a date range drawn as a calendar popup: open it for each bound and click the day."""
    for bound, date, word in (("from", start, "start"), ("to", end, "end")):
        opener = cid_is(f"{c.control_id}-{bound}")
        await ex.step(
            "click",
            opener,
            f"{c.label} {bound} date button",
            f"Opening the calendar for the {word} of {c.label}.",
        )
        await _calendar_to(ex, c, date)


async def sort_by_headers(ex: Driver, c: Control, label: str, direction: str) -> None:
    """Click the column's sort header (once ascending, twice descending)."""
    pick = both(cid_is(c.control_id), lambda e: e.tag == "a" and e.text.rstrip(" ▲▼") == label)
    await ex.step("click", pick, f'"{label}" sort header', f'Clicking the "{label}" header to sort by it.')
    if direction == "desc":
        await ex.step(
            "click", pick, f'"{label}" sort header', f'Clicking "{label}" again for descending order.'
        )


async def search_suggest(ex: Driver, c: Control, text: str) -> None:
    """Type into a search with suggestions; take the suggestion that is exactly the text, else search."""
    box = both(cid_is(c.control_id), lambda e: e.tag == "input")
    await ex.step("input", box, "search box", f'Typing "{text}" into the search box.', text)
    suggestion = both(cid_is(f"{c.control_id}-suggestion"), text_is(text))
    if await visible(ex, suggestion):
        await ex.step("click", suggestion, f'suggestion "{text}"', f'Choosing the suggestion "{text}".')
    else:
        await ex.apply(c.control_id, "Running the search.")


# ── create and edit forms ────────────────────────────────────────────────────────────────────────────


class RowDriver(Driver, Protocol):
    """What a row action needs of the executor beyond a Driver: the task's list and entries."""

    def list_url(self) -> str: ...

    def detail_url(self, entry_id: str) -> str: ...

    def row(self, entry_id: str) -> dict[str, Any]: ...

    @property
    def table(self) -> Table: ...


async def row_action(ex: RowDriver, rid: str, action: str, memory: str) -> bool:
    """On a v3 list with row actions, the task started on the list: page to the entry's row and click its
    "Edit" link or "Delete" button. False (nothing done) elsewhere: the caller opens the entry's page."""
    if not ex.spec.theme.row_actions or ex.session.url.split("?")[0] != ex.list_url():
        return False
    label = str(ex.row(rid)[ex.table.label])
    href = ex.detail_url(rid)
    await reveal(ex, href, label)
    page = ex.list_url().rsplit("/", 1)[-1]
    if action == "edit":
        pick = both(cid_is(f"{page}-row-edit"), lambda e: e.attrs.get("href") == f"{href}/edit")
    else:
        pick = both(cid_is(f"{page}-row-delete"), lambda e: e.attrs.get("aria-label") == f"Delete {label}")
    await ex.step("click", pick, f"{action} action of the row {rid}", memory)
    return True


async def open_form(ex: Driver, kind: str, href: str, singular: str, memory: str) -> None:
    """Open the create or edit form: a link to its page, or the button of its modal dialog."""
    text = f"{'New' if kind == 'create' else 'Edit'} {singular}"
    if ex.spec.theme.family and await visible(ex, button(text)):
        await ex.step("click", button(text), f"{text} button", memory)
        return
    await ex.step("click", lambda e: e.attrs.get("href") == href, f"{text} link", memory)


async def to_step_of(ex: Driver, cid: str) -> None:
    """In a wizard, press "Next" until the field (or the submit button) `cid` is on the current step."""
    if not ex.spec.theme.family:
        return
    for _ in range(8):
        if await visible(ex, cid_is(cid)) or not await visible(ex, button("Next")):
            return
        await ex.step("click", button("Next"), "wizard Next button", "Going to the next step of the form.")
