"""The summariser compaction uses: one call to the agent's own model, metered like any."""

from __future__ import annotations

from ralph_tui.lcm.compaction import Style, Summariser
from ralph_tui.llm.types import ChatMessage, LLMClient

INSTRUCTIONS: dict[Style, str] = {
    "detailed": (
        "Summarise this part of an agent's working conversation in at most {target} tokens. "
        "Keep every finding, number, name, quote and open question; drop repetition."
    ),
    "bullets": (
        "Summarise this part of an agent's working conversation as terse bullets, at most "
        "{target} tokens. Keep findings, numbers, names and quotes only."
    ),
}


def model_summariser(client: LLMClient) -> Summariser:
    """Summaries written by ``client`` (the generate role)."""

    async def summarise(text: str, target: int, style: Style) -> str:
        prompt = INSTRUCTIONS[style].format(target=target) + "\n\n" + text
        reply = await client.chat(
            [ChatMessage(role="user", content=prompt)], max_tokens=max(64, target * 2)
        )
        return reply.text

    return summarise
