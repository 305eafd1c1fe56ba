"""The Evals screen (F4) lists eval runs with their tables and plots; the Optimizer screen
(F5) shows the variants, the Pareto front plotted, the active one marked, and activates."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from ralph_tui.cli import run_cli
from ralph_tui.tui.screens.evals_screen import EvalsScreen
from ralph_tui.tui.screens.optimizer_screen import OptimizerScreen
from ralph_tui.variants.store import Variant, VariantStore
from tests.tui.conftest import MakeApp, wait_for

SIZE = (140, 45)


@pytest.fixture
def two_evals(out_dir: Path) -> None:
    assert run_cli(["eval", "--suite", "needle", "--sizes", "8k,16k", "--depths", "0,1",
                    "--provider", "offline", "--out", str(out_dir), "--id", "n1"]) == 0  # fmt: skip
    assert run_cli(["eval", "--suite", "sample", "--provider", "offline", "--out", str(out_dir),
                    "--id", "s1"]) in (0, 1)  # fmt: skip


@pytest.fixture
def variants(out_dir: Path) -> VariantStore:
    """Two passing sessions, the variants optimize proposes from them, and one by hand."""
    for _ in range(2):
        assert run_cli(["run", "--provider", "offline", "--mode", "qa", "--query",
                        "How often are the filters backwashed?", "--doc", "handbook.md",
                        "--out", str(out_dir)]) == 0  # fmt: skip
    assert run_cli(["optimize", "--out", str(out_dir), "--no-activate"]) == 0
    store = VariantStore(out_dir)
    store.save(Variant(id="vhand", change="by hand", projection={"pass_rate": 0.2,
                                                                 "latency_s": 9.0}))  # fmt: skip
    return store


@pytest.mark.usefixtures("two_evals")
async def test_the_evals_screen_shows_each_run_with_its_table_and_plot(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await wait_for(pilot, lambda: isinstance(app.screen, EvalsScreen))
        listing = app.screen.query_one("#evals-list", OptionList)
        await wait_for(pilot, lambda: listing.option_count == 2)
        first = str(listing.get_option_at_index(0).prompt)
        assert first.startswith("s1") and "6 items" in first
        report = app.screen.query_one("#eval-report", Static)
        await wait_for(pilot, lambda: "sample-backwash" in str(report.render()))
        assert "found by context size:" in str(report.render())
        listing.focus()
        await pilot.press("down")
        await wait_for(pilot, lambda: "needle-16k-d100" in str(report.render()))
        text = str(report.render())
        assert "found by size (rows) and depth (columns):" in text and "16K ████" in text


async def test_the_optimizer_screen_plots_the_front_and_activates_a_variant(
    make_app: MakeApp, variants: VariantStore
) -> None:
    store = variants
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizerScreen))
        screen = app.screen
        assert isinstance(screen, OptimizerScreen)
        table = screen.query_one("#variants", OptionList)
        await wait_for(pilot, lambda: table.option_count >= 2)
        rows = [str(table.get_option_at_index(i).prompt) for i in range(table.option_count)]
        assert rows[0].startswith(" *baseline") and "no variant" in rows[0]
        assert any("vhand" in row and "(provisional: projected)" in row for row in rows)
        front = str(screen.query_one("#front", Static).render())
        assert "● baseline: 100% passed" in front and "· vhand: 20% passed" in front
        table.focus()
        table.highlighted = next(i for i, row in enumerate(rows) if "vhand" in row)
        await pilot.press("a")
        await wait_for(pilot, lambda: store.active_id() == "vhand")
        await wait_for(pilot, lambda: "◆ vhand" in str(screen.query_one("#front", Static).render()))
        rows = [str(table.get_option_at_index(i).prompt) for i in range(table.option_count)]
        assert any(row.startswith(">") and "vhand" in row for row in rows)
