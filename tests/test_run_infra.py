"""Which chain failures are the machinery's (retried once, never cached) and which are the chain's own."""

from __future__ import annotations

import pytest

from plandvc.run.engine import is_infra


@pytest.mark.parametrize(
    "error",
    [
        "Error: Execution context was destroyed, most likely because of a navigation",
        "TimeoutError: chain timed out after 200s at turn 3",
        "TargetClosedError: Target page, context or browser has been closed",
        "BrowserCrashed: BrowserError: chromium at /x failed to start: boom",
        "ServerDownError: http://127.0.0.1:8320 is down",
    ],
)
def test_machinery_failures_are_retried(error: str) -> None:
    assert is_infra(error)


@pytest.mark.parametrize(
    "error",
    [
        "check failed: query: expected page /sites/x/a, found /sites/x/b",
        "script not finished",
        "ActionError: click [3] <a> on /sites/x: Timeout 10000ms exceeded",
        "StaleIndexError: index 4 is from snapshot #2 of /sites/x, but snapshot #3 was taken since",
        "ReplayError: step 2: no element matches",
        "InputError: Errors in the part's task.json",
        None,
    ],
)
def test_the_chains_own_failures_are_not(error: str | None) -> None:
    assert not is_infra(error)


def test_a_dead_browser_makes_any_failure_the_machinerys() -> None:
    assert is_infra("check failed: answer: expected '4', found None", browser_alive=False)
