"""The operators as native tools of the LCM agent: each one's JSON Schema, and the call of
a tool with the model's arguments, its result as the text the model reads."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ralph_tui.agents.look import MAX_QUESTION_CHARS
from ralph_tui.agents.output_tool import ArgumentsError, parse_json_object
from ralph_tui.agents.rlm_prompt import shrink
from ralph_tui.llm.types import ToolCall, ToolDefinition

Operator = Callable[..., Awaitable[Any]]

SCHEMAS: dict[str, dict[str, Any]] = {
    "grep": {
        "pattern": {"type": "string", "description": "A Python regular expression."},
        "scope": {"type": "string", "enum": ["document", "messages", "summaries"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "offset": {"type": "integer", "minimum": 0},
    },
    "read": {
        "start": {"type": "integer", "minimum": 0},
        "end": {"type": "integer", "minimum": 1},
    },
    "retrieve": {
        "query": {"type": "string"},
        "k": {"type": "integer", "minimum": 1, "maximum": 20},
        "sources": {
            "type": "array",
            "items": {"type": "string", "enum": ["doc", "episode", "external"]},
        },
    },
    "llm_map": {
        "items": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"type": "string"},
                    {
                        "type": "array",
                        "items": {"type": "integer"},
                        "minItems": 2,
                        "maxItems": 2,
                    },
                ]
            },
            "description": "Strings, or [start, end] spans of the document.",
        },
        "instruction": {"type": "string"},
        "schema": {"type": "object", "description": "A JSON Schema every answer must match."},
    },
    "look": {
        "page": {
            "type": "integer",
            "minimum": 1,
            "description": "A page number of a PDF or an image.",
        },
        "question": {"type": "string", "maxLength": MAX_QUESTION_CHARS},
        "document": {
            "type": "string",
            "description": "The PDF's or image's name, when there are several.",
        },
    },
    "expand": {
        "summary_id": {"type": "string", "description": "A summary's id, e.g. S0001."},
        "max_tokens": {"type": "integer", "minimum": 1},
    },
    "rlm_query": {
        "prompt": {"type": "string", "description": "The child agent's question."},
        "context": {
            "anyOf": [
                {"type": "string"},
                {"type": "array", "items": {"type": "string"}},
                {"type": "null"},
            ],
            "description": "A text to explore, or a list of document names; null: the whole.",
        },
    },
    "rlm_query_batched": {
        "items": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"type": "string"},
                    {"type": "array", "minItems": 2, "maxItems": 2},
                ]
            },
            "description": "Prompts, or [prompt, context] pairs.",
        },
    },
}
REQUIRED = {
    "grep": ["pattern"],
    "read": ["start", "end"],
    "retrieve": ["query"],
    "llm_map": ["items", "instruction"],
    "expand": ["summary_id"],
    "look": ["page", "question"],
    "rlm_query": ["prompt"],
    "rlm_query_batched": ["items"],
}


@dataclass(frozen=True)
class Tool:
    """An operator the model calls as a tool: its definition and what runs it."""

    definition: ToolDefinition
    run: Operator

    @classmethod
    def of(cls, name: str, doc: str, run: Operator) -> Tool:
        """The tool ``name`` (one of ``SCHEMAS``) described by ``doc``."""
        parameters = {
            "type": "object",
            "properties": SCHEMAS[name],
            "required": REQUIRED[name],
            "additionalProperties": False,
        }
        return cls(ToolDefinition(name=name, description=doc, parameters=parameters), run)


async def call_tool(tools: dict[str, Tool], call: ToolCall, limit: int) -> tuple[str, bool]:
    """What the tool ``call`` names returned, as text within ``limit`` characters, and
    whether it succeeded (a failure is told to the model so it can fix its call)."""
    tool = tools.get(call.name)
    if tool is None:
        return f"Unknown tool `{call.name}`; the tools are {', '.join(sorted(tools))}.", False
    try:
        result = await tool.run(**parse_json_object(call.arguments))
    except ArgumentsError as exc:
        return str(exc), False
    except (TypeError, ValueError, KeyError) as exc:
        return f"`{call.name}` failed: {exc}", False
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return shrink(text, limit), True
