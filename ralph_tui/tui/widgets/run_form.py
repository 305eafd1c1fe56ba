"""The form that describes a run: mode, query, document, external docs, inner loop,
iterations, provider and models; and what the run is estimated to spend.

The first frame holds the question box (focused, it takes what is typed at once) and the
document field; ``compose_rest`` builds the rest right after it, below, so nothing in sight
moves — the mode, and the missing-keys warning, which needs the settings, read after the
first frame. Values set before then (``prefill``) are kept and put in as it is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Label, Static, TextArea

from ralph_tui.tui.core.document_line import documents_line, documents_of_line
from ralph_tui.tui.path_completion import PathSuggester
from ralph_tui.tui.widgets.choice_cycle import ChoiceCycle
from ralph_tui.tui.widgets.path_input import PathInput
from ralph_tui.tui.widgets.plain_button import PlainButton

if TYPE_CHECKING:
    from textual.widgets import Checkbox

    from ralph_tui.config import Settings
    from ralph_tui.tui.core.form_values import RunFormValues
    from ralph_tui.tui.widgets.estimate_view import EstimateView


class RunFormError(ValueError):
    """The form cannot start a run; the message says which field and why."""


class RunForm(VerticalScroll):
    """Inputs for a new run, prefilled from the settings once the rest of it is built
    (``compose_rest``); ``values()`` checks and reads them."""

    DEFAULT_CSS = """
    RunForm { padding: 0 1; scrollbar-gutter: stable; }
    RunForm Label { margin-top: 1; color: $text-muted; }
    RunForm #query { height: 5; }
    RunForm #external-docs { height: 4; }
    RunForm #doc-row { height: auto; }
    RunForm #doc { width: 1fr; }
    RunForm #browse { width: 5; height: 3; margin-left: 1; }
    RunForm #keys-warning {
        margin-top: 1; padding: 0 1; color: $text-warning; background: $warning-muted;
    }
    RunForm #use-offline { margin-top: 1; width: 100%; }
    RunForm #start { margin-top: 1; width: 100%; }
    RunForm Checkbox { margin-top: 1; }
    """

    class StartRequested(Message):
        """The user pressed Start."""

    class BrowseRequested(Message):
        """The user wants to pick the document from the file system."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.settings: Settings | None = None
        """What the rest of the form was filled from (``compose_rest``)."""
        self.whole = False
        """Whether the rest of the form is built (``compose_rest`` has run)."""
        self._pending: dict[str, str] = {}
        """Values of selects set before the rest of the form was built, by id."""

    def compose(self) -> ComposeResult:
        yield Label("Question or task")
        yield TextArea("", id="query", soft_wrap=True, placeholder="What do you want to know?")
        yield Label("Document")
        with Horizontal(id="doc-row"):
            yield PathInput(placeholder="path/to/document.md", suggester=PathSuggester(), id="doc")
            yield PlainButton("…", id="browse", tooltip="Pick a file (ctrl+o)")

    async def compose_rest(self, settings: Settings, missing_keys: list[str]) -> None:
        """Build the form below the document field from ``settings`` (and, where
        ``missing_keys`` names any, the warning that the auto provider cannot run), with the
        values set meanwhile."""
        self.settings = settings
        await self.mount_all(self._rest(settings, missing_keys))
        for field, value in self._pending.items():
            self.query_one(f"#{field}", ChoiceCycle).value = value
        self._pending.clear()
        self.whole = True

    def _rest(self, s: Settings, missing_keys: list[str]) -> ComposeResult:
        from textual.widgets import Checkbox

        from ralph_tui.config.inner_modes import INNER_MODES
        from ralph_tui.tui.widgets.estimate_view import EstimateView

        yield Label("Mode")
        yield ChoiceCycle(
            [("QA: answer with evidence", "qa"), ("Task", "task")],
            value="qa",
            id="mode",
        )
        yield from self._keys_warning(missing_keys)
        provider = "offline" if missing_keys else s.provider
        yield EstimateView(s, self.draft, id="estimate")
        yield Label("External docs (optional)")
        yield TextArea(
            "\n".join(part for part in (s.external_docs or "").replace(",", " ").split()),
            id="external-docs",
            soft_wrap=False,
            placeholder="one URL a line",
        )
        yield Label("External docs as")
        yield ChoiceCycle(
            [
                ("chunks (local)", "local"),
                ("section tree (pageindex)", "pageindex"),
            ],
            value=s.external_provider,
            id="external-provider",
        )
        yield Label("Inner loop")
        yield ChoiceCycle(
            [(f"{mode}: {what}", mode) for mode, what in INNER_MODES.items()],
            value=s.inner,
            id="inner",
        )
        yield Label("Max iterations")
        yield Input(str(s.max_iters), type="integer", id="max-iters")
        yield Checkbox("Decompose (task mode)", id="decompose")
        yield Label("Provider")
        yield ChoiceCycle(
            [("auto (models below)", "auto"), ("offline (no key)", "offline")],
            value=provider,
            id="provider",
        )
        yield Label("Generate model")
        yield Input(s.generate_model, id="generate-model")
        yield Label("Validate model")
        yield Input(s.validate_model, id="validate-model")
        yield PlainButton("Start run (ctrl+r)", id="start", variant="primary")

    def _keys_warning(self, missing_keys: list[str]) -> ComposeResult:
        if not missing_keys:
            return
        names = " and ".join(missing_keys)
        yield Static(
            f"{names} not set: the auto provider cannot run. The offline provider needs no key.",
            id="keys-warning",
        )
        yield PlainButton("Use the offline provider", id="use-offline", variant="warning")

    def drop_keys_warning(self) -> None:
        """Take the missing-keys warning away: the user has chosen the offline provider, or
        a run on it has passed; it says nothing new any more."""
        for widget in self.query("#keys-warning, #use-offline"):
            widget.remove()

    @property
    def provider(self) -> str:
        if "provider" in self._pending:
            return self._pending["provider"]
        return str(self.query_one("#provider", ChoiceCycle).value)

    def _set_select(self, field: str, value: str) -> None:
        """Choose ``value`` in the select ``field``, or once it is built."""
        if self.whole:
            self.query_one(f"#{field}", ChoiceCycle).value = value
        else:
            self._pending[field] = value

    def prefill(
        self,
        *,
        mode: str | None = None,
        query: str | None = None,
        doc: Path | None = None,
        provider: str | None = None,
        decompose: bool | None = None,
    ) -> None:
        """Set some fields (the demo, re-runs and the command line use this)."""
        if mode is not None:
            self._set_select("mode", mode)
        if query is not None:
            self.query_one("#query", TextArea).load_text(query)
        if doc is not None:
            self.set_document(doc)
        if provider is not None:
            self._set_select("provider", provider)
        if decompose is not None:
            self._decompose.value = decompose

    def set_document(self, path: Path) -> None:
        """Put ``path`` in the document field, showing its end (its file name)."""
        self.set_documents([path])

    def set_documents(self, paths: Sequence[Path]) -> None:
        """Put ``paths`` in the document field, quoted as a shell would where there are
        several, showing the end (the last one's file name)."""
        field = self.query_one("#doc", PathInput)
        field.value = documents_line(paths)
        field.show_end()

    @property
    def _decompose(self) -> Checkbox:
        from textual.widgets import Checkbox  # loaded with the rest of the form

        return self.query_one("#decompose", Checkbox)

    @property
    def document_text(self) -> str:
        return self.query_one("#doc", Input).value

    @property
    def estimate_view(self) -> EstimateView:
        from ralph_tui.tui.widgets.estimate_view import EstimateView

        return self.query_one(EstimateView)

    # By name, not with ``@on``: the checkbox's class loads with the rest of the form,
    # after the first frame.
    def on_input_changed(self) -> None:
        self._changed()

    def on_text_area_changed(self) -> None:
        self._changed()

    def on_choice_cycle_changed(self) -> None:
        self._changed()

    def on_checkbox_changed(self) -> None:
        self._changed()

    def _changed(self) -> None:
        if self.whole:
            self.estimate_view.soon()

    def values(self) -> RunFormValues:
        """The checked values; ``RunFormError`` names the first field that is wrong."""
        if not self.query_one("#query", TextArea).text.strip():
            raise RunFormError("Write a question (QA) or a task first.")
        return self.draft()

    def draft(self) -> RunFormValues:
        """The values as they stand, the question allowed empty (what an estimate needs);
        ``RunFormError`` names the first other field that is wrong."""
        if not self.whole or self.settings is None:
            raise RunFormError("The form is still opening: try again.")
        query = self.query_one("#query", TextArea).text.strip()
        docs = documents_of_line(self.document_text)
        if not docs:
            raise RunFormError("Choose a document (type a path or press ctrl+o).")
        try:
            max_iters = int(self.query_one("#max-iters", Input).value)
        except ValueError:
            max_iters = 0
        if max_iters < 1:
            raise RunFormError("Max iterations must be a whole number of at least 1.")
        mode = str(self.query_one("#mode", ChoiceCycle).value)
        decompose = self._decompose.value
        if decompose and mode != "task":
            raise RunFormError("Decompose works in task mode only.")
        external_docs = self._external_docs()
        from ralph_tui.tui.core.form_values import RunFormValues

        return RunFormValues(
            mode=mode,
            query=query,
            doc_path=docs[0],
            more_docs=tuple(docs[1:]),
            max_iters=max_iters,
            decompose=decompose,
            provider=str(self.query_one("#provider", ChoiceCycle).value),
            generate_model=self.query_one("#generate-model", Input).value.strip()
            or self.settings.generate_model,
            validate_model=self.query_one("#validate-model", Input).value.strip()
            or self.settings.validate_model,
            external_docs=external_docs,
            external_provider=str(self.query_one("#external-provider", ChoiceCycle).value),
            inner=str(self.query_one("#inner", ChoiceCycle).value),
        )

    def _external_docs(self) -> tuple[str, ...]:
        """The external docs URLs, one a line (or separated by spaces or commas)."""
        from ralph_tui.documents import InputError
        from ralph_tui.external.urls import parse_url

        text = self.query_one("#external-docs", TextArea).text
        try:
            urls = [parse_url(part, "External docs") for part in text.replace(",", " ").split()]
        except InputError as exc:
            raise RunFormError(str(exc)) from None
        return tuple(dict.fromkeys(urls))

    def on_plain_button_pressed(self, event: PlainButton.Pressed) -> None:
        event.stop()
        if event.button.id == "browse":
            self.post_message(self.BrowseRequested())
        elif event.button.id == "start":
            self.post_message(self.StartRequested())
        elif event.button.id == "use-offline":
            self._set_select("provider", "offline")
            self.notify("Runs will use the offline provider (no key needed).")
            self.drop_keys_warning()
