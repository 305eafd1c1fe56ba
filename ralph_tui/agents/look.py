"""``look(page, question)``: the sub-model asked about the picture of a page — a PDF's page,
rendered, or an image document's (a scan read by OCR), scaled down within the same bounds —
for the figures, charts and tables whose text comes out as a scatter of numbers, and the
print OCR may have misread.

A look is a sub-call like ``llm_query``: one of the same budget, under the same cost cap and
concurrency limit, reported as a ``SubQuery`` event, its answer kept in the sub-call cache
under a key that holds the picture's hash. Whether the sub-model reads pictures is decided
once per run (``no_images``): a model that does not is refused in one line the model
reads, and nothing is paid; the offline baseline answers from the page's text (what OCR
read, for a scan or an image).

What a look costs: the picture (about 1,500 input tokens, ``tokens.image_tokens``) and the
question, plus the answer (at most the runner's ``max_tokens``), counted in the ledger as
the provider reports it, or estimated with the picture counted when it reports nothing.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ralph_tui.agents.sub_queries import SubQueryRunner
from ralph_tui.documents.page_images import DocumentPages, PageRefused
from ralph_tui.llm.models import accepts_images
from ralph_tui.llm.types import ImagePart

LOOK_DOC = (
    "`look(page, question, document=None) -> str`: ask a vision model `question` about the "
    "picture of page `page` of a PDF or an image document (numbered from 1, as in "
    "`documents[i]['pages']`; `document` names it when there are several). For figures, "
    "charts and tables whose text is scattered, and for text read by OCR (passages with "
    "`ocr` true) whose figures may be misread. One page a call; each call counts as one "
    "`llm_query` call and costs about 1,500 input tokens for the picture. A refusal comes "
    "back as a string starting with `[error]`."
)
MAX_QUESTION_CHARS = 4000
"""A look's question at most: a question about one page needs no more; a slice of text to
compare with goes to ``llm_query``."""

Look = Callable[..., Awaitable[str]]


@dataclass(frozen=True)
class PageLook:
    """What ``look`` needs from the run: its pages (PDFs, images), and whether the sub-model
    is sent pictures of them."""

    pages: DocumentPages
    no_images: str | None
    """Why the sub-model is not sent pictures (``None``: it is)."""


def no_images(setting: str, provider: str, model: str) -> str | None:
    """Why the sub-model is not sent page pictures, or ``None`` when it is: by the
    ``sub_images`` setting (``on``, ``off``), else (``auto``) by what its model is
    declared to take (``models.IMAGE_INPUT``). The offline baseline never is."""
    if provider == "offline":
        return "the offline baseline reads no pictures"
    if setting == "off":
        return "pictures are turned off (--sub-images off)"
    if setting == "on" or accepts_images(provider, model):
        return None
    return (
        f"the sub-model {provider}:{model} does not take images (if it does, set --sub-images on)"
    )


def look_function(runner: SubQueryRunner, setup: PageLook) -> Look:
    """The sandbox's (and the LCM tools') ``look``: failures come back as ``[error] ...``
    strings, never as exceptions."""

    async def look(page: object, question: object, document: object = None) -> str:
        try:
            chosen, number = setup.pages.find(page, document)
        except PageRefused as exc:
            return f"[error] {exc}"
        if not isinstance(question, str) or not question.strip():
            return "[error] look: question must be a non-empty string"
        if len(question) > MAX_QUESTION_CHARS:
            return (
                f"[error] look: the question is {len(question):,} characters; ask in at most "
                f"{MAX_QUESTION_CHARS:,} (pass long text to llm_query instead)"
            )
        where = f"page {number} of {chosen.name}"
        client = runner.client
        if client.provider == "offline":
            text = setup.pages.text(chosen, number)
            if not text.strip():
                return f"[error] look: {where} has no text, and the offline baseline reads none"
            return (await runner.ask(question, text)).text
        if setup.no_images is not None:
            return f"[error] look: {setup.no_images}; read the text of {where} instead"
        try:
            image = await setup.pages.render(chosen, number)
        except PageRefused as exc:
            return f"[error] {exc}"
        picture = ImagePart(
            data=base64.b64encode(image.data).decode("ascii"),
            width=image.width,
            height=image.height,
            media_type=image.media_type,
        )
        prompt = (
            f"The picture is {where}. Answer from what the page shows; copy figures exactly "
            f"as printed, with their row and column labels.\n\nQuestion: {question}"
        )
        return (await runner.ask(prompt, images=[picture])).text

    return look
