"""Counting tokens without a provider: the one home of every token figure the code makes up
itself.

Two figures, for two needs:

- ``estimate_tokens`` — a quick size (characters / ``CHARS_PER_TOKEN``, rounded up), for
  budgets checked many times a step (the LCM context, a sub-prompt against a window). It
  needs no tokenizer and costs nothing.
- ``count_tokens`` — what a model call used when its server did not say (a stream without
  usage, a response whose usage is missing or 0 input tokens for a prompt that was not
  empty). The ledger counts it as an *estimate* (``Usage.estimated``) instead of 0, so a
  token or cost cap still sees the call.

``count_tokens`` uses the BPE tokenizer that ships inside the ``wordllama`` package (Llama 2's
vocabulary of 32,000 pieces, read from the wheel: no download, no network, the same offline
in CI). A smaller vocabulary than the GPT-4-class and Claude tokenizers' splits text into
somewhat more pieces, so the estimate errs high — the side a cap should err on. Where that
file cannot be read it falls back to ``estimate_tokens``. The tokenizer loads on first use
(about 0.1 s), never at import: nothing on the app's start path imports it.

Counting is bounded: a text past ``EXACT_CHARS`` is counted on ``SAMPLES`` evenly spread
slices and scaled by its length, so a huge prompt costs a fraction of a second.
"""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path
from typing import Any

from ralph_tui.llm.types import ChatMessage, Completion, ImagePart, ToolDefinition, Usage

CHARS_PER_TOKEN = 4
"""Characters per token of ``estimate_tokens``: a round figure for English text and code."""
MESSAGE_OVERHEAD_TOKENS = 4
"""Role and framing tokens a message costs beyond its text (an estimate)."""
EXACT_CHARS = 200_000
"""Texts up to this long are tokenized whole (about 0.2 s at most)."""
SAMPLES = 8
"""Longer ones: this many slices of ``EXACT_CHARS / SAMPLES`` characters, scaled up."""
TOKENIZER_FILE = Path("tokenizers") / "l2_supercat_tokenizer_config.json"
"""The tokenizer inside the ``wordllama`` package folder."""


def tokens_of_chars(chars: int) -> int:
    """Tokens of ``chars`` characters, one per ``CHARS_PER_TOKEN`` (rounded up)."""
    return -(-max(chars, 0) // CHARS_PER_TOKEN)


def estimate_tokens(text: str) -> int:
    """Tokens of ``text``, estimated as one per ``CHARS_PER_TOKEN`` characters (rounded up):
    providers' tokenizers differ, and budgets keep a margin below hard limits for that."""
    return tokens_of_chars(len(text))


NON_ASCII_TOKENS = 1.0
"""Tokens counted per non-ASCII character by ``document_tokens``: Chinese, Japanese or Korean
text costs about one a character, Cyrillic or Greek less; counting one keeps the estimate on
the safe side."""


def document_tokens(text: str) -> int:
    """The documents' size in tokens, as a run chooses and fits its inner mode by, estimated
    without a tokenizer: ``CHARS_PER_TOKEN`` ASCII characters a token (as the agent's context
    counts them), ``NON_ASCII_TOKENS`` for every other character."""
    # Dropping what is not ASCII is done in C: a 500 MB corpus is counted in a blink.
    other = len(text) - len(text.encode("ascii", "ignore"))
    return tokens_of_chars(len(text) - other) + int(other * NON_ASCII_TOKENS)


def count_tokens(text: str) -> int:
    """Tokens of ``text`` by a real BPE tokenizer (see the module's docstring), in bounded
    time; ``estimate_tokens`` when the tokenizer is not available."""
    if not text:
        return 0
    tokenizer = _tokenizer()
    if tokenizer is None:
        return estimate_tokens(text)
    if len(text) <= EXACT_CHARS:
        return _encoded_length(tokenizer, text)
    size = EXACT_CHARS // SAMPLES
    step = (len(text) - size) / (SAMPLES - 1)
    slices = [text[round(i * step) : round(i * step) + size] for i in range(SAMPLES)]
    sampled = sum(_encoded_length(tokenizer, piece) for piece in slices)
    return -(-sampled * len(text) // (size * SAMPLES))


ANTHROPIC_IMAGE_PIXELS = 1_150_000
"""Pixels past which the Messages API scales an image down before reading it."""
ANTHROPIC_IMAGE_EDGE = 1568
"""Longest edge past which it does the same."""
ANTHROPIC_PIXELS_PER_TOKEN = 750
OPENAI_TILE_PX = 512
OPENAI_TILE_TOKENS = 170
OPENAI_BASE_IMAGE_TOKENS = 85
OPENAI_IMAGE_EDGE = 2048
OPENAI_SHORT_SIDE = 768


def image_tokens(width: int, height: int) -> int:
    """The input tokens of a ``width`` x ``height`` picture, as the dearer of the two
    providers' published rules: Anthropic's pixels / 750 (after its own scaling down to
    1.15 megapixels and a 1568 px edge), OpenAI's 85 plus 170 a 512 px tile at ``high``
    detail (after scaling into 2048 px, then the short side to 768 px)."""
    if width <= 0 or height <= 0:
        return 0
    shrink = min(
        1.0,
        ANTHROPIC_IMAGE_EDGE / max(width, height),
        (ANTHROPIC_IMAGE_PIXELS / (width * height)) ** 0.5,
    )
    anthropic = -(-int(width * shrink) * int(height * shrink) // ANTHROPIC_PIXELS_PER_TOKEN)
    fit = min(1.0, OPENAI_IMAGE_EDGE / max(width, height))
    fit *= min(1.0, OPENAI_SHORT_SIDE / (min(width, height) * fit))
    tiles = -(-int(width * fit) // OPENAI_TILE_PX) * -(-int(height * fit) // OPENAI_TILE_PX)
    return max(anthropic, OPENAI_BASE_IMAGE_TOKENS + OPENAI_TILE_TOKENS * tiles)


def images_tokens(images: list[ImagePart]) -> int:
    """The input tokens of a message's pictures (``image_tokens`` each)."""
    return sum(image_tokens(image.width, image.height) for image in images)


def prompt_tokens(messages: list[ChatMessage], tools: list[ToolDefinition] | None) -> int:
    """The input tokens of a request, counted: every message's text, tool calls and
    pictures, the tools' definitions, and ``MESSAGE_OVERHEAD_TOKENS`` per message for its
    framing."""
    parts = [m.content + "".join(c.name + c.arguments for c in m.tool_calls) for m in messages]
    parts += [json.dumps(tool.model_dump(), ensure_ascii=False) for tool in tools or []]
    counted = count_tokens("\n".join(part for part in parts if part))
    counted += sum(images_tokens(m.images) for m in messages)
    return counted + MESSAGE_OVERHEAD_TOKENS * len(messages) if counted else 0


def turn_tokens(completion: Completion) -> int:
    """The output tokens of a model's turn, counted: its text and its tool calls."""
    calls = [call.name + call.arguments for call in completion.tool_calls]
    return count_tokens("\n".join(part for part in [completion.text, *calls] if part))


def with_estimates(
    completion: Completion, messages: list[ChatMessage], tools: list[ToolDefinition] | None
) -> Usage:
    """``completion``'s usage as reported, or — where its server reported nothing (no usage,
    or 0 input tokens for a prompt that was not empty) — counted by ``count_tokens`` and
    marked ``estimated``: the input from the request, the output (unless the server gave
    it) from the turn."""
    usage = completion.usage
    if usage.input_tokens > 0:
        return usage
    input_tokens = prompt_tokens(messages, tools)
    if not input_tokens:
        return usage
    output_tokens = usage.output_tokens if usage.output_tokens > 0 else turn_tokens(completion)
    return usage.model_copy(
        update={"input_tokens": input_tokens, "output_tokens": output_tokens, "estimated": True}
    )


def _encoded_length(tokenizer: Any, text: str) -> int:
    # The tokenizer's encode is thread-safe (the sandbox host's threads may share it).
    return len(tokenizer.encode(text, add_special_tokens=False).ids)


@cache
def _tokenizer() -> Any:
    """WordLlama's tokenizer, read from its package folder without importing ``wordllama``
    (which loads numpy and its model, and reconfigures logging); ``None`` when missing."""
    try:
        spec = importlib.util.find_spec("wordllama")
        folders = list(spec.submodule_search_locations or []) if spec else []
        if not folders:
            return None
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(Path(folders[0]) / TOKENIZER_FILE))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        return tokenizer
    except Exception:  # missing, or a damaged file (the tokenizer raises plain Exception)
        return None
