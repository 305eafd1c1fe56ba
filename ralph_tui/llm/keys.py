"""Provider keys: which the roles' providers lack, and the error for one that is not set
(which model needed it, and the fix that applies to the role the model plays, the flags and
variables named from their settings)."""

from __future__ import annotations

from ralph_tui.config import Settings, setting_specs
from ralph_tui.llm.errors import AuthenticationError
from ralph_tui.llm.roles import ROLE_SETTINGS, role_specs


def key_env_var(provider: str) -> str:
    """The environment variable that holds ``provider``'s API key."""
    return setting_specs()[f"{provider}_api_key"].env


def can_reach(settings: Settings, provider: str) -> bool:
    """Whether ``provider`` has a key set, or a custom endpoint (local servers need none)."""
    if provider == "offline":
        return True
    key = getattr(settings, f"{provider}_api_key")
    return bool(key and key.get_secret_value()) or bool(getattr(settings, f"{provider}_base_url"))


def missing_keys(settings: Settings) -> list[str]:
    """The environment variables of the keys the roles' providers lack (none offline)."""
    providers = {provider for provider, _model in role_specs(settings).values()}
    return [key_env_var(p) for p in sorted(providers) if not can_reach(settings, p)]


def missing_key(provider: str, model: str, role: str | None = None) -> AuthenticationError:
    """The error for ``provider:model`` having no key, when ``role`` (``generate``,
    ``validate``, ``sub``, ``embed``; ``None``: not known) needs it."""
    return AuthenticationError(
        f"no API key: {key_env_var(provider)} is not set",
        provider=provider,
        model=model,
        hint=missing_key_hint(provider, role),
    )


def missing_key_hint(provider: str, role: str | None) -> str:
    """What to do without ``provider``'s key: set it (or, for OpenAI, point to a local
    server), or do without it the way that fits ``role``."""
    specs = setting_specs()
    endpoint = specs[f"{provider}_base_url"].env
    set_key = f"set {key_env_var(provider)} or point {endpoint} at a compatible server"
    if role == "embed":
        embedder = specs["embedder"].flags[0]
        return f"{set_key}; or use {embedder} offline, word vectors that need no key"
    offline = f"run with {specs['provider'].flags[0]} offline"
    if role not in ROLE_SETTINGS:
        return f"{set_key}; or {offline}"
    other = "openai" if provider == "anthropic" else "anthropic"
    flag = specs[ROLE_SETTINGS[role]].flags[0]
    return (
        f"{set_key}; give the {role} role another provider with {flag} {other}:MODEL; or {offline}"
    )
