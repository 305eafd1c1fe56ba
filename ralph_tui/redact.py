"""Credentials inside URLs, hidden before a URL is shown or recorded.

A key is a setting of its own and is never shown; but a password can also ride inside an
endpoint (``http://user:PASS@host/v1``) or a query parameter (``?api_key=...``), and such a
URL reaches ``ralph-tui config``, ``doctor``, error messages (the SDKs echo the URL they
failed to reach), events and ``session.json``. Every path that shows or records a setting
or an error passes its text through ``redact_urls``, the one place that knows what a
credential in a URL looks like.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_plus, urlsplit, urlunsplit

HIDDEN = "***"
"""What stands where a credential was."""

SECRET_PARAMETERS = re.compile(
    r"(^|[_-])(key|apikey|token|secret|password|passwd|pwd|pass|auth|authorization|"
    r"signature|sig|credential|credentials|session|sessionid)$|^(access|refresh|id)_?token$",
    re.IGNORECASE,
)
"""Query parameter names whose values are credentials (``api_key``, ``access_token``,
``X-Amz-Signature``, ``sig``, ``password``...)."""

_SCHEME = r"[a-zA-Z][a-zA-Z0-9+.-]{1,15}://"
URL_IN_TEXT = re.compile(rf"\b{_SCHEME}(?:(?!,{_SCHEME})[^\s'\"<>`])+")
"""A URL inside free text: a scheme, ``://`` and what follows up to white space, a quote,
or a comma that starts the next URL of a list."""


def redact_url(url: str) -> str:
    """``url`` with the password of its user info (or the whole user info, when it is a
    lone token) and the values of credential-like query parameters replaced by ``***``;
    any other text is returned as it is."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        user, has_password, _password = userinfo.partition(":")
        netloc = f"{user}:{HIDDEN}@{hostport}" if has_password else f"{HIDDEN}@{hostport}"
    query = "&".join(_redacted_parameter(part) for part in parts.query.split("&"))
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def _redacted_parameter(part: str) -> str:
    """One ``name=value`` of a query, its value hidden when the name says it is a secret
    (the rest of the query is kept as written)."""
    name, has_value, _value = part.partition("=")
    if has_value and SECRET_PARAMETERS.search(unquote_plus(name)):
        return f"{name}={HIDDEN}"
    return part


def redact_urls(text: str) -> str:
    """``text`` with every URL in it passed through ``redact_url``."""
    if "://" not in text:
        return text
    return URL_IN_TEXT.sub(lambda match: redact_url(match.group(0)), text)
