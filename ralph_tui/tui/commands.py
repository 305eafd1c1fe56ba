"""The command palette's entries: every action of the screen it was opened on, and the app's.

Entries come from the bindings that carry an id (ours all do), so a new keyed action
shows up here by itself; actions without a key are added by screens through
``palette_commands()``. Each entry shows the key it is bound to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen


@dataclass(frozen=True)
class PaletteCommand:
    """One entry: what it does (a binding's tooltip, else its footer label), its key, its id."""

    title: str
    key: str
    run: Callable[[], Any]
    binding_id: str = ""


def bound_commands(screen: Screen[Any], enabled_only: bool = True) -> Iterator[PaletteCommand]:
    """The described, id-carrying bindings active on ``screen``, one per action (by default
    only those enabled now)."""
    seen: set[tuple[int, str]] = set()
    keys_of: dict[tuple[int, str], list[str]] = {}
    active = list(screen.active_bindings.values())
    for item in active:
        keys_of.setdefault((id(item.node), item.binding.action), []).append(
            item.binding.key_display or item.binding.key
        )
    for item in active:
        binding = item.binding
        where = (id(item.node), binding.action)
        usable = item.enabled or not enabled_only
        if not (usable and binding.id and binding.description) or where in seen:
            continue
        seen.add(where)
        keys = ", ".join(keys_of[where])
        run = partial(screen.app.run_action, binding.action, item.node)
        title = binding.tooltip or binding.description
        yield PaletteCommand(title, keys, run, binding.id or "")


def screen_commands(screen: Screen[Any] | App[Any]) -> Iterator[PaletteCommand]:
    """Commands a screen (or the app) offers without a key (``palette_commands()``, if it
    has one)."""
    extra = getattr(screen, "palette_commands", None)
    if callable(extra):
        for title, action in extra():
            yield PaletteCommand(title, "", partial(screen.run_action, action))


class RalphCommands(Provider):
    """Every action of the current screen and the app, searchable by name."""

    def _all(self) -> list[PaletteCommand]:
        commands = [
            *bound_commands(self.screen),
            *screen_commands(self.screen),
            *screen_commands(self.app),
        ]
        return sorted(commands, key=lambda command: command.title)

    async def discover(self) -> Hits:
        for command in self._all():
            yield DiscoveryHit(command.title, command.run, help=command.key or None)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._all():
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(command.title), command.run, help=command.key or None
                )
