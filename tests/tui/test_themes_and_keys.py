"""Themes as data (switch, remember, fall back), key remapping, the palette and F1 help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.color import Color
from textual.command import CommandPalette

from ralph_tui.tui.commands import bound_commands, screen_commands
from ralph_tui.tui.core.user_config import PREFERENCES_FILE, config_dir, load_preferences
from ralph_tui.tui.screens.help_screen import HelpScreen
from ralph_tui.tui.themes import (
    BUILTIN_THEMES_DIR,
    DEFAULT_THEME,
    FALLBACK_THEME,
    ThemeError,
    load_catalog,
    load_theme,
    pick_theme,
)
from tests.tui.conftest import MakeApp, wait_for

REPO = Path(__file__).parents[2]
SIZE = (100, 30)


def test_builtin_themes_include_a_dark_and_a_light_one() -> None:
    catalog = load_catalog(BUILTIN_THEMES_DIR)
    assert not catalog.problems
    assert {theme.dark for theme in catalog.themes.values()} == {True, False}
    assert DEFAULT_THEME in catalog.themes


@pytest.mark.parametrize("path", sorted(BUILTIN_THEMES_DIR.glob("*.toml")), ids=lambda p: p.name)
def test_a_shipped_theme_read_unchecked_is_the_checked_theme(path: Path) -> None:
    """The app reads its shipped themes without the check (it would hold back the first
    frame): each must pass it, and come out the same."""
    assert load_theme(path, shipped=True) == load_theme(path)


def test_top_level_themes_folder_is_the_shipped_set() -> None:
    top = sorted(p.name for p in (REPO / "themes").glob("*.toml"))
    assert top == sorted(p.name for p in BUILTIN_THEMES_DIR.glob("*.toml"))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('name = "x"\nprimary = "not-a-colour"', "primary"),
        ('name = "x"\nprimary = "#fff"\nshiny = true', "shiny"),
        ("name = ", "x.toml"),
        ('primary = "#fff"', "name"),
    ],
)
def test_a_broken_theme_file_is_reported_not_raised(
    tmp_path: Path, text: str, problem: str
) -> None:
    (tmp_path / "x.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ThemeError, match=problem):
        load_theme(tmp_path / "x.toml")
    catalog = load_catalog(tmp_path)
    assert catalog.themes == {} and len(catalog.problems) == 1 and catalog.broken_names == {"x"}


def test_pick_theme_falls_back() -> None:
    assert pick_theme("mine", {"mine", DEFAULT_THEME}) == "mine"
    assert pick_theme("gone", {DEFAULT_THEME}) == DEFAULT_THEME
    assert pick_theme(None, set()) == FALLBACK_THEME


def test_config_dir_follows_the_environment(tmp_path: Path) -> None:
    assert config_dir() == tmp_path / "config"


def test_unreadable_preferences_mean_defaults(tmp_path: Path) -> None:
    (tmp_path / PREFERENCES_FILE).write_text("{not json", encoding="utf-8")
    prefs = load_preferences(tmp_path)
    assert prefs.theme is None and prefs.problem is not None


async def test_theme_switch_is_remembered(make_app: MakeApp, tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == DEFAULT_THEME
        app.theme = "ralph-light"
        await pilot.pause()
    saved = json.loads((tmp_path / "config" / PREFERENCES_FILE).read_text(encoding="utf-8"))
    assert saved["theme"] == "ralph-light"
    again = make_app()
    async with again.run_test(size=SIZE):
        assert again.theme == "ralph-light"


async def test_the_saved_theme_styles_the_first_paint(make_app: MakeApp, tmp_path: Path) -> None:
    """The saved theme is taken before the stylesheet is first parsed: the first screen is
    styled with its colours, and the stylesheet is parsed once, not again for the theme."""
    folder = tmp_path / "config"
    folder.mkdir()
    (folder / PREFERENCES_FILE).write_text('{"theme": "ralph-light"}', encoding="utf-8")
    app = make_app()
    reparses: list[None] = []
    reparse = app.stylesheet.reparse

    def counted_reparse() -> None:
        reparses.append(None)
        reparse()

    app.stylesheet.reparse = counted_reparse  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        light = app.get_theme("ralph-light")
        assert light is not None and light.background is not None
        assert app.screen.styles.background == Color.parse(light.background)
        assert app.has_class("-light-mode") and not app.has_class("-dark-mode")
        assert reparses == []  # parsed as first read, not from scratch again for the theme


async def test_user_theme_is_offered_and_a_broken_one_falls_back(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    themes = tmp_path / "config" / "themes"
    themes.mkdir(parents=True)
    (themes / "mine.toml").write_text('name = "mine"\nprimary = "#ff00ff"\n', encoding="utf-8")
    (themes / "broken.toml").write_text('name = "broken"\nprimary = "pink-ish"\n', encoding="utf-8")
    (tmp_path / "config" / PREFERENCES_FILE).write_text('{"theme": "broken"}', encoding="utf-8")
    notes: list[str] = []
    app = make_app()
    monkeypatch.setattr(app, "notify", lambda message, **_kw: notes.append(message))
    async with app.run_test(size=SIZE):
        assert "mine" in app.available_themes
        assert app.theme == DEFAULT_THEME
        assert any("broken.toml" in note for note in notes)
        assert any("'broken' is unavailable" in note for note in notes)


async def test_keys_are_remapped_by_binding_id(make_app: MakeApp, tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    prefs = {"keymap": {"app.help": "f9"}}
    (tmp_path / "config" / PREFERENCES_FILE).write_text(json.dumps(prefs), encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f9")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))


async def test_help_lists_the_keys_of_the_screen(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        markdown = app.screen.markdown  # type: ignore[attr-defined]
        assert "`run.start`" in markdown and "`app.sessions`" in markdown
        assert "Cancel the running run" in markdown  # Listed even while disabled.
        assert "*`escape` or `f1` closes this help.*" in markdown
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_palette_offers_every_action_of_the_screen(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        commands = [*bound_commands(app.screen), *screen_commands(app.screen)]
        ids = {command.binding_id for command in commands}
        expected = {"run.start", "run.form", "run.document", "app.help", "app.run", "app.sessions"}
        assert expected | {"app.theme", "run.copy_output"} <= ids
        assert "run.cancel" not in ids  # Disabled: nothing is running.
        titles = {command.title for command in commands}
        assert {
            "Start a run with the form's settings",
            "Copy the highlighted evidence quote",
        } <= titles
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"session browser", "enter")
        await wait_for(pilot, lambda: app.current_mode == "sessions")


def test_preferences_past_the_json_bounds_mean_defaults(tmp_path: Path) -> None:
    (tmp_path / PREFERENCES_FILE).write_text('{"theme": ' + "[" * 100_000 + "]" * 100_000 + "}")
    prefs = load_preferences(tmp_path)
    assert prefs.theme is None and prefs.problem is not None and "nested deeper" in prefs.problem


async def test_the_palette_offers_the_theme_once(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE):
        system = [command.title for command in app.get_system_commands(app.screen)]
        assert "Theme" not in system and "Quit" in system
        bound = [c.title for c in bound_commands(app.screen) if c.binding_id == "app.theme"]
        assert bound == ["Pick a theme (remembered)"]
