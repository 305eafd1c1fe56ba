"""The RLM agent's system prompt and the shrinking of old observations."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ralph_tui.agents.output_tool import OUTPUT_TOOL_NAME


@dataclass(frozen=True)
class VariableInfo:
    """What the model is told about a sandbox global: its name, type and size, never its text."""

    name: str
    type_name: str
    length: int
    description: str


RLM_TEMPLATE = """{definition}

## How you work
You cannot see the document directly. It is loaded in a persistent Python sandbox, and you
explore it by writing code. Every turn, call `{tool}` with one `action`, either:
- `{{"code": "..."}}`: Python to run in the sandbox (globals persist between turns; top-level
  `await` works; print what you need to see; the value of a final bare expression is shown);
- or, when you have the final answer, the output fields ({fields}) with `"resultReady": true`:
  they are validated, and nothing is run.

## Sandbox variables
{variables}

## Functions available in the sandbox
- `llm_query(prompt, context_slice=None) -> str`: ask a language model a question about a slice
  of text you pass it (it sees only what you pass). Use it for semantic questions over slices.
- `llm_query_batched(prompts) -> list[str]`: many independent prompts at once, run
  concurrently (each item a prompt string, or a `[prompt, context_slice]` pair). A failed item
  comes back as a string starting with `[error]`.
{more_functions}
## Budgets
- {max_steps} turns in all; `llm_query` calls: {max_llm_calls} in all (a batch counts each
  prompt). When the budget runs low you will be warned; when it is exhausted `llm_query`
  returns a message asking you to finish.
- Printed output longer than {max_output_chars} characters is cut to its head and tail, so
  print summaries and slices, not the whole document.
- No network and no files outside the sandbox; each cell has a time limit.

## Method
Look at the document's structure first (size, headings, a few samples), narrow down to the
relevant parts with string operations or regular expressions, use `llm_query` for meaning, and
copy quotes from printed output exactly, character for character.
"""


def describe_variables(variables: list[VariableInfo]) -> str:
    return "\n".join(
        f"- `{v.name}`: {v.type_name}, {v.length:,} "
        f"{'characters' if v.type_name == 'str' else 'entries'}. {v.description}"
        for v in variables
    )


def build_rlm_system(
    definition: str,
    output_fields: list[str],
    variables: list[VariableInfo],
    *,
    max_steps: int,
    max_llm_calls: int,
    max_output_chars: int,
    function_docs: Sequence[str] = (),
) -> str:
    return RLM_TEMPLATE.format(
        more_functions="".join(f"- {doc}\n" for doc in function_docs),
        definition=definition.strip(),
        tool=OUTPUT_TOOL_NAME,
        fields=", ".join(f"`{name}`" for name in output_fields),
        variables=describe_variables(variables),
        max_steps=max_steps,
        max_llm_calls=max_llm_calls,
        max_output_chars=max_output_chars,
    )


def shrink(text: str, limit: int) -> str:
    """Keep head and tail of ``text`` within ``limit`` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    half = max(limit // 2, 1)
    omitted = len(text) - 2 * half
    return f"{text[:half]}\n[... {omitted} characters omitted ...]\n{text[-half:]}"
