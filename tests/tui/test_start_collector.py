"""The garbage collector is off while ``ralph-tui`` starts and on again once the app has
painted and warmed up, whatever the warm-up does."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import ralph_tui.tui.app as app_module
from ralph_tui.main import main
from tests.tui.conftest import MakeApp, wait_for


@pytest.fixture
def collector_restored() -> Iterator[None]:
    yield
    gc.enable()


@pytest.mark.parametrize("argv", [[], ["demo"]])
def test_the_app_opens_with_the_collector_off(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, collector_restored: None
) -> None:
    seen: dict[str, bool] = {}

    def open_app(demo: bool = False) -> int:
        seen.update(collecting=gc.isenabled(), demo=demo)
        return 0

    monkeypatch.setattr(app_module, "run_app", open_app)
    assert main(argv) == 0
    assert seen == {"collecting": False, "demo": argv == ["demo"]}


async def test_the_warm_up_turns_the_collector_back_on(
    make_app: MakeApp, collector_restored: None
) -> None:
    gc.disable()
    app = make_app()
    async with app.run_test() as pilot:
        await wait_for(pilot, gc.isenabled)  # the warm-up starts once the screen is whole


async def test_a_failed_warm_up_still_turns_the_collector_back_on(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch, collector_restored: None
) -> None:
    def broken(name: str) -> None:
        raise ImportError(f"{name} is broken")

    monkeypatch.setattr(app_module, "import_module", broken)
    gc.disable()
    app = make_app()
    async with app.run_test() as pilot:
        await wait_for(pilot, gc.isenabled)  # the warm-up starts once the screen is whole


def test_what_start_up_threw_away_is_freed_before_the_freeze() -> None:
    """Cycles dropped while the collector was off are collected, not frozen for good."""
    import weakref

    from ralph_tui.tui.app import collect_then_freeze

    class Node:
        other: object = None

    gc.disable()
    try:
        node = Node()
        node.other = node
        dropped = weakref.ref(node)
        del node
        assert dropped() is not None, "the collector is off: the cycle is still there"
        collect_then_freeze()
        assert dropped() is None
    finally:
        gc.unfreeze()
        gc.enable()
