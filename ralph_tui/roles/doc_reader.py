"""DocReader: distils the document (and memory, and hints) into a compact brief for a task."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ralph_tui.agents.agent_run import RLMSpec
from ralph_tui.config import Settings
from ralph_tui.roles.budgets import rlm_spec

DEFINITION = """You read a document for a task and write a compact brief: the facts, figures,
names and passages the task needs, each traceable to the document. The sandbox also holds
`memory`, the findings of earlier iterations: build on them. When `docReaderHints` are given,
treat each as an extraction target an earlier attempt missed. `retrievedContext` holds the
passages a search found for the task, each under a label such as
`[source=doc chunk 412 chars 205000-205500]` (that passage is `context[205000:205500]`): start
from them, read around them in `context`, and call `retrieve()` to search for more. Keep the
brief under 2000 characters. Put the passages the task rests on in `passages`, each copied
character for character from `context` (a sentence or a few; no ellipsis, no reformatting),
and cite them in the brief by their number as `[P1]`, `[P2]`... (the first passage is
`[P1]`) where the brief uses them, so every fact can be traced to where the document says
it."""


class Brief(BaseModel):
    brief: str = Field(
        description="The compact brief for the task (under 2000 characters), citing its"
        " passages as [P1], [P2]..."
    )
    passages: list[str] = Field(
        description="The passages the brief cites, in order ([P1] first), each verbatim from"
        " the document."
    )


def doc_reader_spec(settings: Settings) -> RLMSpec[Brief]:
    return rlm_spec("doc_reader", DEFINITION, Brief, settings)
