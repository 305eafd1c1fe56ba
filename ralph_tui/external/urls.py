"""External documentation URLs: checked up front (bad input is one line, nothing written),
normalised so one page is fetched once, and judged same-site or not."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlsplit, urlunsplit

from ralph_tui.config import Settings
from ralph_tui.documents import InputError
from ralph_tui.external.policy import DEFAULT_PORTS, Origin

SCHEMES = ("http", "https")


def parse_url(text: str, where: str = "--externalDocs") -> str:
    """``text`` as a normalised absolute http(s) URL; ``InputError`` says what is wrong."""
    candidate = text.strip()
    try:
        parts = urlsplit(candidate)
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError as exc:
        raise InputError(f"{where}: {candidate!r} is not a URL ({exc})") from None
    if parts.scheme.lower() not in SCHEMES:
        shown = f"scheme {parts.scheme!r}" if parts.scheme else "no scheme"
        raise InputError(
            f"{where}: {candidate!r} has {shown}: external docs are fetched over http(s) only"
        )
    if not parts.hostname:
        raise InputError(f"{where}: {candidate!r} has no host")
    return normalize(candidate)


def normalize(url: str) -> str:
    """Without its fragment, scheme and host lowercased, an empty path as ``/``."""
    url, _fragment = urldefrag(url)
    parts = urlsplit(url)
    return urlunsplit(
        (parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, "")
    )


def resolve(base: str, href: str) -> str | None:
    """``href`` (a link on page ``base``) as a normalised http(s) URL, or ``None``."""
    try:
        url = urljoin(base, href.strip())
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in SCHEMES or not parts.hostname:
        return None
    return normalize(url)


def same_site(url: str, other: str) -> bool:
    """Whether ``other`` is on ``url``'s site: the same scheme, host and port (a host's
    ``www.`` aside), or the https form of an http site on its default port. Another port
    of the same host is another site: it may be another service altogether."""
    base, target = Origin.of(url), Origin.of(other)
    if base is None or target is None:
        return False
    if _bare(target) == _bare(base):
        return True
    upgraded = Origin("https", base.host, DEFAULT_PORTS["https"])
    return (
        base.scheme == "http"
        and base.port == DEFAULT_PORTS["http"]
        and (_bare(target) == _bare(upgraded))
    )


def _bare(origin: Origin) -> Origin:
    return Origin(origin.scheme, origin.host.removeprefix("www."), origin.port)


def read_url_file(path: Path) -> list[str]:
    """The URLs in ``path``, one a line; blank lines and ``#`` comments skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"--externalDocsFile: {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"--externalDocsFile: cannot read {path} ({exc})") from None
    urls = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if text:
            urls.append(parse_url(text, f"{path} line {number}"))
    return urls


def external_urls(settings: Settings) -> list[str]:
    """Every external documentation URL the settings give, once each, in order."""
    urls = [
        parse_url(part)
        for part in (settings.external_docs or "").replace(",", " ").split()
        if part.strip()
    ]
    if settings.external_docs_file is not None:
        urls += read_url_file(settings.external_docs_file)
    return list(dict.fromkeys(urls))
