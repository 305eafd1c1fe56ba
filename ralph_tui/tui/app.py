"""The ralph-tui app: a run screen and a session browser, themes, keys, palette, help.

``run_app()`` is what ``ralph-tui`` with no arguments runs; ``run_app(demo=True)`` is
``ralph-tui demo``: a QA run on the bundled sample document with the offline provider;
``run_app(start=...)`` is ``ralph-tui DOC --query ... --out ...``: the app with the command
line's settings and its run form filled.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.screen import Screen
from textual.theme import Theme

from ralph_tui.tui.context import AppContext
from ralph_tui.tui.core.run_handle import Runner, real_runner
from ralph_tui.tui.core.user_config import THEMES_DIR, config_dir, load_preferences, save_theme
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.themes import BUILTIN_THEMES_DIR, load_catalog, pick_theme

if TYPE_CHECKING:
    from ralph_tui.cli.app_start import AppStart, FormFill
    from ralph_tui.config import Settings, SettingsError
    from ralph_tui.tui.screens.session_screen import RerunRequested


def first_run_screen() -> RunScreen:
    """The run screen as the app's first screen, styled with the stylesheet as it stands.

    Textual treats a mode's first screen as one that missed a stylesheet change, and so
    re-parses every stylesheet from scratch and restyles the app (``App.refresh_css``, as
    after a change of theme): nothing has changed since the stylesheet was first read, so
    the screen is marked as up to date. That restyle was also what gave the app node its
    own rules (its ``color``) before the screen's first paint, which Textual otherwise does
    only after it: a widget that inherits its text colour from the app (the status line)
    and is painted in the first frame keeps the colour it was painted with (a widget's
    style is cached until its own rules change), so the app is styled here, first.
    """
    screen = RunScreen()
    app = screen.app
    app.stylesheet.apply(app)
    screen._css_update_count = app._css_update_count
    return screen


def session_browser() -> Screen[None]:
    """The session browser, imported when first shown (the run screen is the first)."""
    from ralph_tui.tui.screens.browser_screen import SessionBrowser

    return SessionBrowser()


def evals_screen() -> Screen[None]:
    """The Evals screen, imported when first shown (its modules stay out of start-up)."""
    from ralph_tui.tui.screens.evals_screen import EvalsScreen

    return EvalsScreen()


def optimizer_screen() -> Screen[None]:
    """The Optimizer screen, imported when first shown."""
    from ralph_tui.tui.screens.optimizer_screen import OptimizerScreen

    return OptimizerScreen()


def ralph_commands() -> type[Provider]:
    """The palette's entries for the screens' and the app's actions, imported when the
    palette first opens."""
    from ralph_tui.tui.commands import RalphCommands

    return RalphCommands


def collect_then_freeze() -> None:
    """Free what start-up threw away (the collector was off), then move what lives as long
    as the app out of the collector's view."""
    gc.collect()
    gc.freeze()


class RalphApp(App[int]):
    """Run screen (F2), session browser (F3), evals (F4) and optimizer (F5), each a mode with
    its own screen stack."""

    TITLE = "ralph-tui"
    DEFAULT_MODE = "run"
    """The mode the app opens in. Composed as the first screen, it is styled once; a switch
    to it from Textual's default screen would resume it, and so restyle it, twice."""
    MODES: ClassVar[dict[str, Any]] = {
        "run": first_run_screen,
        "sessions": session_browser,
        "evals": evals_screen,
        "optimizer": optimizer_screen,
    }
    COMMANDS = App.COMMANDS | {ralph_commands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "f1", "help", "Help", id="app.help", tooltip="Show what each screen does and every key"
        ),
        Binding("f2", "switch_mode('run')", "Run", id="app.run", tooltip="Go to the run screen"),
        Binding(
            "f3",
            "switch_mode('sessions')",
            "Sessions",
            id="app.sessions",
            tooltip="Go to the session browser",
        ),
        Binding(
            "f4",
            "switch_mode('evals')",
            "Evals",
            id="app.evals",
            tooltip="Go to the eval runs and their scores",
        ),
        Binding(
            "f5",
            "switch_mode('optimizer')",
            "Optimizer",
            id="app.optimizer",
            tooltip="Go to the variants, the Pareto front and the active variant",
        ),
        Binding(
            "ctrl+t", "change_theme", "Theme", id="app.theme", tooltip="Pick a theme (remembered)"
        ),
    ]

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        demo: bool = False,
        runner: Runner = real_runner,
        config_path: Path | None = None,
        start_mode: str = "run",
        form_fill: FormFill | None = None,
    ) -> None:
        super().__init__()
        self.context = AppContext(config_path or config_dir(), settings=settings, runner=runner)
        """Without ``settings``, they are read from the environment and ``.env`` once the
        first frame is on the terminal: the start does not wait for them."""
        self.settings_error: SettingsError | None = None
        """Why the settings could not be read (the app then closed with exit code 2)."""
        self.demo = demo
        self.start_mode = start_mode
        self.form_fill = form_fill
        """What the command line put in the run form, set once the form is there."""
        self._first_frame_waiting: list[Callable[[], object]] | None = []
        """What waits for the first frame to be on the terminal; ``None`` once it is."""
        self._preferences_notes = self._apply_preferences()

    def after_first_frame(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once the terminal has had the app's first frame (Textual's
        ``Ready``, and the frame after it) and the settings are read, or now if so: the run
        screen builds then what that frame left out."""
        if self._first_frame_waiting is None:
            callback()
        else:
            self._first_frame_waiting.append(callback)

    def on_ready(self) -> None:
        # What the widgets set on mount (the question box's placeholder, the status line)
        # paints in the frame after the first: the settings wait for it too.
        self.call_after_refresh(self._first_frame_shown)

    def _first_frame_shown(self) -> None:
        """Read the settings (or close, saying why), then build what waited for the first
        frame, then warm up once the first screen is whole."""
        from ralph_tui.config import SettingsError

        try:
            self.context.settings  # noqa: B018 (read now, the first frame being shown)
        except SettingsError as exc:
            self.settings_error = exc
            self.exit(return_code=2)
            return
        waiting, self._first_frame_waiting = self._first_frame_waiting or [], None
        for callback in waiting:
            callback()
        screen = self.screen
        if isinstance(screen, RunScreen):  # not to contend with building and painting the rest
            screen.when_whole(lambda: self.call_after_refresh(self._warm_up))
        else:
            self.call_after_refresh(self._warm_up)

    def on_mount(self) -> None:
        for note in self._preferences_notes:
            self.notify(note, title="Settings", severity="warning", timeout=10)
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        if self.start_mode != self.DEFAULT_MODE:
            self.switch_mode(self.start_mode)
        if self.form_fill is not None:
            self.call_after_refresh(self.fill_form)
        if self.demo:
            self.call_after_refresh(self.start_demo)

    @work(thread=True, group="warm-up", exit_on_error=False, name="Warming up")
    def _warm_up(self) -> None:
        """Pay one-time costs now, while idle (the first screen whole), rather than in the
        first run's first frame.

        The Python highlighter and the loops load on first use. Then ``gc.freeze`` moves
        what start-up built (modules, widgets, styles) out of the collector's view: it
        lives as long as the app, and re-scanning it made full collections visible
        stalls during busy runs. The collector, off while ``ralph-tui`` starts, is on again
        from here, whatever happens to the warm-up.
        """
        try:
            from textual.highlight import highlight

            highlight("x = 1", language="python")
            import_module("ralph_tui.loops.runner")
            import_module("ralph_tui.progress_lines")
            self.call_from_thread(collect_then_freeze)
        finally:
            gc.enable()

    def _apply_preferences(self) -> list[str]:
        """Register the themes and take the saved theme and keys, before the stylesheet is
        first parsed (a theme set once the app runs re-parses it and restyles every
        widget); what could not be used, to be said once the app runs."""
        folder = self.context.config_dir
        prefs = load_preferences(folder)
        catalog = load_catalog(BUILTIN_THEMES_DIR, folder / THEMES_DIR)
        for theme in catalog.themes.values():
            self.register_theme(theme)
        notes = [*catalog.problems, *([prefs.problem] if prefs.problem else [])]
        name = pick_theme(prefs.theme, set(self.available_themes))
        if prefs.theme and prefs.theme != name:
            notes.append(f"Theme {prefs.theme!r} is unavailable; using {name!r}.")
        self.set_reactive(RalphApp.theme, name)
        dark = self.current_theme.dark
        self.set_class(dark, "-dark-mode", update=False)
        self.set_class(not dark, "-light-mode", update=False)
        self.set_class(True, f"-theme-{name}", update=False)
        self._refresh_truecolor_filter(self.ansi_theme)
        self.stylesheet.set_variables(self.get_css_variables())
        if prefs.keymap:
            self.set_keymap(prefs.keymap)
        return notes

    def _remember_theme(self, theme: Theme) -> None:
        try:
            save_theme(self.context.config_dir, theme.name)
        except OSError as exc:
            self.notify(f"Could not remember the theme: {exc}", severity="warning")

    def start_demo(self) -> None:
        """Fill the run form with the sample question and document, offline, and start."""
        from ralph_tui.sample import SAMPLE_QUESTION, sample_document

        screen = self.screen
        if isinstance(screen, RunScreen):
            screen.form.prefill(
                mode="qa", query=SAMPLE_QUESTION, doc=sample_document(), provider="offline"
            )
            screen.action_start_run()

    def fill_form(self) -> None:
        """Put what the command line gave (documents, query, mode) in the run form."""
        screen, fill = self.screen, self.form_fill
        if isinstance(screen, RunScreen) and fill is not None:
            form = screen.form
            form.prefill(mode=fill.mode, query=fill.query, provider=fill.provider)
            if fill.docs:
                form.set_documents(fill.docs)
            if fill.decompose:  # Its box is below the document field, built after the first frame.
                screen.when_whole(lambda: form.prefill(decompose=True))

    def palette_commands(self) -> list[tuple[str, str]]:
        """App actions offered in the command palette without a key of their own."""
        return [("Doctor: check the sandbox, keys, models and converters", "doctor")]

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's own palette commands, less its "Theme": ``ctrl+t``'s "Pick a theme
        (remembered)" is the same action, and the palette names it once."""
        for command in super().get_system_commands(screen):
            if command.callback != self.action_change_theme:
                yield command

    def action_doctor(self) -> None:
        from ralph_tui.tui.screens.doctor_screen import DoctorScreen

        self.push_screen(DoctorScreen(self.context.settings))

    def action_help(self) -> None:
        from ralph_tui.tui.commands import bound_commands
        from ralph_tui.tui.screens.help_screen import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        keys = [
            (command.key, command.title, command.binding_id)
            for command in bound_commands(self.screen, enabled_only=False)
        ]
        self.push_screen(HelpScreen(keys, self.context.config_dir))

    async def on_rerun_requested(self, message: RerunRequested) -> None:
        from ralph_tui.tui.core.requests import rerun_request

        await self.switch_mode("run")
        screen = self.screen
        if not isinstance(screen, RunScreen):
            return
        record, constraints = message.record, message.constraints
        settings = self.context.settings
        screen.form.prefill(mode=record.mode, query=record.query, doc=Path(record.doc_path))
        screen.start(
            lambda: rerun_request(record, constraints, settings),
            doc_path=Path(record.doc_path),
            replacing=True,
        )
        self.notify(f"Re-running {record.session_id} with {len(constraints)} constraint(s).")


def run_app(demo: bool = False, start: AppStart | None = None) -> int:
    """Open the app (``demo``: and start the sample QA run offline; ``start``: with these
    settings and this in its run form); the exit code."""
    if start is None:
        app = RalphApp(demo=demo)  # its settings read right after its first frame
    else:
        app = RalphApp(start.settings, demo=demo, form_fill=start.form)
    app.run()
    if app.settings_error is not None:
        print(f"ralph-tui: {app.settings_error}", file=sys.stderr)
    return app.return_code or 0
