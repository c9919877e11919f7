"""The macros, their families, and the sets the chain rules are written in (DESIGN.md §4–5)."""

from __future__ import annotations

FAMILY_OF: dict[str, str] = {
    "navigate_to_page": "Navigation",
    "open_entry": "Navigation",
    "navigate_home": "Navigation",
    "filter_by_dropdown": "Filter",
    "filter_by_options": "Filter",
    "filter_by_slider": "Filter",
    "filter_by_date_range": "Filter",
    "sort_by_form": "Filter",
    "search_by_text": "Filter",
    "create_entry": "Form",
    "edit_entry": "Form",
    "report_information": "Information",
    "count_entries": "Information",
    "copy_value": "Information",
}
MACROS = frozenset(FAMILY_OF)
FAMILIES = ("Navigation", "Filter", "Form", "Information")

# answer-only macros the executor pool leaves out; pool-items adds them back because they only end a chain
QA_MACROS = frozenset({"report_information", "count_entries"})
# parts whose check reads the last page's query string: a trip home after them undoes them
URL_STATE = frozenset(
    {"filter_by_dropdown", "filter_by_options", "filter_by_slider", "filter_by_date_range", "sort_by_form"}
)
# a part that stays on its page and leaves it for the next part to go on from
CHAIN_FIRST = URL_STATE | {"search_by_text"}
# a part that can start on a page an earlier part left changed (filtered, sorted, searched)
CHAIN_SECOND = URL_STATE | {"search_by_text", "copy_value"}
# control roles that need state the home page does not give: never a home start
FLAGGED_ROLES = frozenset({"prepared"})

HOME_STEP = "Go to the home page of {site} with the site's own home link."
