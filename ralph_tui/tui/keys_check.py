"""Which API keys a run with the current settings would need but cannot find."""

from __future__ import annotations

from ralph_tui.config import Settings

KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def missing_keys(settings: Settings) -> list[str]:
    """Environment variable names of the keys the roles' providers lack (none when offline).

    A provider with a custom base URL needs no key (local servers ignore it).
    """
    from ralph_tui.llm.roles import role_specs

    if settings.provider == "offline":
        return []
    providers = {provider for provider, _model in role_specs(settings).values()}
    missing = []
    for provider in sorted(providers & KEY_ENV.keys()):
        key = settings.anthropic_api_key if provider == "anthropic" else settings.openai_api_key
        base_url = (
            settings.anthropic_base_url if provider == "anthropic" else settings.openai_base_url
        )
        if not (key and key.get_secret_value()) and not base_url:
            missing.append(KEY_ENV[provider])
    return missing
