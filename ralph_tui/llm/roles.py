"""Which provider and model each role of a run uses, read from the settings alone: what
the key check, ``doctor`` and the app need, without the clients that ``factory`` builds."""

from __future__ import annotations

from ralph_tui.config import Settings
from ralph_tui.llm.models import context_window_tokens, parse_model_spec

ROLE_SETTINGS = {
    "generate": "generate_model",
    "validate": "validate_model",
    "sub": "sub_model",
}
"""Each model role and the setting that picks its ``provider:model``."""


def role_specs(settings: Settings) -> dict[str, tuple[str, str]]:
    """Each role's ``(provider, model)``; offline roles get their role as model name."""
    if settings.provider == "offline":
        return {role: ("offline", role) for role in ROLE_SETTINGS}
    generate = parse_model_spec(settings.generate_model, default_provider="anthropic")
    validate = parse_model_spec(settings.validate_model, default_provider="openai")
    sub = (
        parse_model_spec(settings.sub_model, default_provider=generate[0])
        if settings.sub_model
        else generate
    )
    return {"generate": generate, "validate": validate, "sub": sub}


def role_window(settings: Settings, role: str = "generate") -> int:
    """The context window, in tokens, of ``role``'s model: ``--context-window`` when given,
    else the model's known window (the offline baseline's is that of ``offline-*``) — the
    same figure its client reports as ``context_window_tokens``."""
    if settings.context_window is not None:
        return settings.context_window
    provider, model = role_specs(settings)[role]
    return context_window_tokens(provider, f"offline-{model}" if provider == "offline" else model)
