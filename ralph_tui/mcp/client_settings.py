"""Which settings a client may give with a call, within which bounds, and the check of what
it gave.

A client is not trusted (an agent a hostile document may steer), so it tunes a run only
within what the server allows: ``CLIENT_SETTINGS`` is the one list of what it may set, each
with its bound — a budget it may lower but not raise past the server's own value, a number
within a documented range, or a choice among the server's value and the ones that cost or
share less. Everything else stays the server's, set where ``ralph-tui mcp`` starts: what
reaches the network or the file system (URLs to crawl come through the tools' ``urls``),
models and prices, sandbox and crawler limits, caches and validation rules.
"""

from __future__ import annotations

import abc
import difflib
from dataclasses import dataclass
from typing import Any

from ralph_tui.config import Settings, SettingsError, SettingSpec, setting_specs, with_values


class Rule(abc.ABC):
    """The values a client may give one setting, judged against the server's value."""

    @abc.abstractmethod
    def allows(self, value: Any, server: Any) -> bool: ...

    @abc.abstractmethod
    def describe(self, server: Any) -> str:
        """The bound in words (``server``: the server's value, or ``None`` for the docs)."""


@dataclass(frozen=True)
class AnyValue(Rule):
    """Any value the setting takes."""

    def allows(self, value: Any, server: Any) -> bool:
        return True

    def describe(self, server: Any) -> str:
        return "any value the setting takes"


@dataclass(frozen=True)
class AtMost(Rule):
    """A budget: lowered, never raised past the server's value (any, where it has none)."""

    def allows(self, value: Any, server: Any) -> bool:
        return server is None or (value is not None and value <= server)

    def describe(self, server: Any) -> str:
        return "at most the server's value" + (f" ({server})" if server is not None else "")


@dataclass(frozen=True)
class Between(Rule):
    """A number within a documented range."""

    least: float
    most: float

    def allows(self, value: Any, server: Any) -> bool:
        return value is not None and self.least <= value <= self.most

    def describe(self, server: Any) -> str:
        return f"from {self.least:g} to {self.most:g}"


@dataclass(frozen=True)
class OneOf(Rule):
    """The server's value, or one of ``values`` (those that cost or share less)."""

    values: tuple[str, ...]

    def allows(self, value: Any, server: Any) -> bool:
        return value == server or value in self.values

    def describe(self, server: Any) -> str:
        return " or ".join(f"`{v}`" for v in self.values) + " (or the server's value)"


CLIENT_SETTINGS: dict[str, Rule] = {
    "provider": OneOf(("offline",)),
    "inner": AnyValue(),
    "temperature": Between(0, 2),
    "stream": AnyValue(),
    "llm_max_retries": AtMost(),
    "max_iters": AtMost(),
    "max_depth": AtMost(),
    "worker_max_steps": AtMost(),
    "worker_max_llm_calls": AtMost(),
    "cost_cap_usd": AtMost(),
    "token_cap": AtMost(),
    "run_timeout_s": AtMost(),
    "subcall_cache": OneOf(("session", "off")),
    "doc_max_mb": AtMost(),
    "corpus_max_mb": AtMost(),
    "embedder": OneOf(("offline", "none")),
    "top_n": Between(1, 100),
    "top_k": Between(1, 100),
    "rerank": AnyValue(),
    "external_weight": Between(0, 10),
    "crawl_depth": AtMost(),
    "external_max_pages": AtMost(),
    "external_top_n": Between(1, 100),
    "external_top_k": Between(1, 100),
}
"""The settings a client may give, by name, each with what it may set it to; any other
setting is the server's."""


def client_settable() -> dict[str, SettingSpec]:
    """The settings a call may give, by name."""
    specs = setting_specs()
    return {name: specs[name] for name in CLIENT_SETTINGS}


def client_values(given: dict[str, Any] | None, server: Settings) -> dict[str, Any]:
    """``given`` by setting name (the recorded camelCase name is taken too), checked against
    ``CLIENT_SETTINGS`` and the ``server``'s own values; ``SettingsError`` naming each that is
    unknown, the server's, of a bad value or out of its bound."""
    settable = client_settable()
    by_record_key = {spec.record_key: name for name, spec in settable.items()}
    values: dict[str, Any] = {}
    problems = []
    for key, value in (given or {}).items():
        name = key if key in settable else by_record_key.get(key)
        if name is not None:
            values[name] = value
        elif key in setting_specs() or key in {s.record_key for s in setting_specs().values()}:
            problems.append(
                f"{key} is the server's to set (where ralph-tui mcp starts); a client may set "
                "only the settings the MCP guide lists"
            )
        else:
            close = difflib.get_close_matches(key, list(settable), n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            problems.append(f"{key} is not a setting{hint}")
    if problems:
        raise SettingsError(problems)
    checked = with_values(server, values, "the client")
    for name in values:
        rule, mine, theirs = CLIENT_SETTINGS[name], getattr(checked, name), getattr(server, name)
        if not rule.allows(mine, theirs):
            problems.append(
                f"{name} = {mine!r} is past what a client may set: {rule.describe(theirs)}"
            )
    if problems:
        raise SettingsError(problems)
    return {name: getattr(checked, name) for name in values}
