"""The macro vocabulary now lives in `plandvc.macros` (upstream of every package); these names are re-exported
here only so code written against the old place keeps working. New code imports `plandvc.macros`."""

from __future__ import annotations

from plandvc.macros import (
    CHAIN_FIRST,
    CHAIN_SECOND,
    FAMILIES,
    FAMILY_OF,
    FLAGGED_ROLES,
    HOME_STEP,
    MACROS,
    QA_MACROS,
    URL_STATE,
)

__all__ = [
    "CHAIN_FIRST",
    "CHAIN_SECOND",
    "FAMILIES",
    "FAMILY_OF",
    "FLAGGED_ROLES",
    "HOME_STEP",
    "MACROS",
    "QA_MACROS",
    "URL_STATE",
]
