"""What a model turn still arriving shows: the code it is writing (the Sandbox pane) or the
answer forming (the Output pane), read from its incomplete JSON arguments.

The arguments are parsed leniently (``jiter``'s partial mode keeps a string cut short), for
display only: the agent validates the whole turn once it is complete.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jiter

if TYPE_CHECKING:
    from ralph_tui.events import ModelTurnPartial

HIDDEN_FIELDS = frozenset({"resultReady"})
"""Fields of an action that say what to do with it rather than what it says."""


def partial_fields(arguments: str) -> dict[str, Any]:
    """The fields the arguments hold so far (the action's, for an RLM call); empty while
    nothing parses yet."""
    if not arguments.strip():
        return {}
    try:
        value = jiter.from_json(arguments.encode(), partial_mode="trailing-strings")
    except ValueError:
        return {}
    # The agents' stack loads with the first streamed turn, not before the app paints.
    from ralph_tui.agents.output_tool import rlm_action

    return rlm_action(value) if isinstance(value, dict) else {}


def code_being_written(turn: ModelTurnPartial) -> str | None:
    """The sandbox code the turn is writing, if it is writing code."""
    code = partial_fields(turn.arguments).get("code")
    return code if isinstance(code, str) else None


def answer_forming(turn: ModelTurnPartial) -> str | None:
    """The turn's answer so far, field by field (or its text), unless it is writing code or
    has written nothing yet."""
    fields = partial_fields(turn.arguments)
    if isinstance(fields.get("code"), str):
        return None
    lines = [
        f"{name}: {_plain(value)}" for name, value in fields.items() if name not in HIDDEN_FIELDS
    ]
    text = "\n".join(lines) or turn.text.strip()
    return text or None


def _plain(value: Any) -> str:
    if isinstance(value, list):
        return "".join(f"\n- {_plain(item)}" for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_plain(v)}" for k, v in value.items())
    return str(value)
