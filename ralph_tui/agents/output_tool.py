"""The single "output tool" an agent must call: its schema, its input rendering, its parsing."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ralph_tui.llm.types import ToolDefinition

OUTPUT_TOOL_NAME = "submit_output"

T = TypeVar("T", bound=BaseModel)


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Resolve ``$ref``s into ``$defs`` so every provider gets one self-contained schema.

    Drops pydantic's ``title`` annotations (noise in every prompt), but only where ``title``
    is a keyword of a schema: a property *named* ``title`` is a field and stays.
    """
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return resolve(dict(defs[ref.removeprefix("#/$defs/")]))
            return {k: resolve_member(k, v) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    def resolve_member(key: str, value: Any) -> Any:
        if key in ("properties", "patternProperties") and isinstance(value, dict):
            return {name: resolve(sub) for name, sub in value.items()}
        return resolve(value)

    resolved: dict[str, Any] = resolve(schema)
    return resolved


def output_tool(model: type[BaseModel], description: str) -> ToolDefinition:
    """The tool whose arguments are an instance of ``model`` (JSON Schema from pydantic)."""
    return ToolDefinition(
        name=OUTPUT_TOOL_NAME,
        description=description,
        parameters=_inline_refs(model.model_json_schema()),
    )


def describe_validation_error(exc: ValidationError) -> str:
    """A precise, model-readable list of what is wrong with the submitted arguments."""
    lines = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err["loc"]) or "(arguments)"
        lines.append(f"- `{where}`: {err['msg']}")
    return "The arguments do not match the output schema:\n" + "\n".join(lines)


def validation_key(exc: ValidationError) -> str:
    """What is wrong with the arguments, normalised: each error's field location and type,
    never the input values (which change from one call to the next)."""
    return "schema: " + "; ".join(
        f"{'.'.join(str(part) for part in err['loc'])}:{err['type']}" for err in exc.errors()
    )


class ArgumentsError(ValueError):
    """The model's tool arguments were not valid JSON or did not match the schema.

    ``key`` is the problem normalised, equal for two calls that are wrong the same way."""

    def __init__(self, message: str, key: str) -> None:
        super().__init__(message)
        self.key = key


def parse_json_object(raw: str) -> dict[str, Any]:
    """The raw JSON arguments of a tool call as an object (empty arguments are ``{}``).

    Parsing is lenient where the meaning is unambiguous: raw newlines and tabs inside strings
    (common in generated code) are accepted. A refusal says where the JSON broke and how to
    fix it, so the model can repair its next call.
    """
    try:
        data = json.loads(raw, strict=False) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        raise ArgumentsError(_json_error_advice(exc), f"json: {exc.msg}") from None
    except RecursionError:
        # A model's arguments are untrusted: nesting past the parser's stack is an
        # unusable call the model is told about, never a crash of the run.
        raise ArgumentsError(
            "The arguments are nested too deeply to read. Call "
            f"`{OUTPUT_TOOL_NAME}` again with one flat JSON object of the schema's fields.",
            "json: nested too deeply",
        ) from None
    if not isinstance(data, dict):
        kind = type(data).__name__
        raise ArgumentsError(
            f"The arguments must be a JSON object, not a JSON {kind}. "
            f"Call `{OUTPUT_TOOL_NAME}` again with an object of the schema's fields.",
            f"json: not an object but a {kind}",
        )
    return data


def _json_error_advice(exc: json.JSONDecodeError) -> str:
    reason = exc.msg.removesuffix(" at").removesuffix(" starting")
    near = exc.doc[max(exc.pos - 40, 0) : exc.pos + 20].replace("\n", "\\n")
    return (
        f"The arguments are not valid JSON: {reason} at line {exc.lineno}, column "
        f"{exc.colno} (near `{near}`). Call `{OUTPUT_TOOL_NAME}` again with one JSON object: "
        'keys and strings in double quotes, `"` inside strings escaped as `\\"`, commas '
        "between members, nothing after the closing brace."
    )


def parse_arguments(raw: str, model: type[T]) -> T:
    """Validate the raw JSON arguments of a tool call against ``model``."""
    data = parse_json_object(raw)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ArgumentsError(describe_validation_error(exc), validation_key(exc)) from None


RLM_ACTION = "action"
"""The one property of the RLM tool: either code to run, or the full output."""


def rlm_tool(output_model: type[BaseModel]) -> ToolDefinition:
    """The RLM output tool: ``action`` is either ``{"code": ...}`` or the output fields with
    ``resultReady: true``.

    The two shapes are alternatives (``anyOf``) so a grammar-constrained server can only
    produce a usable turn: code to run, or every required output field. The alternation sits
    under a property because providers reject ``anyOf`` at a tool schema's top level.
    """
    base = output_tool(output_model, "Run code in the sandbox, or submit the final output.")
    fields = dict(base.parameters)
    explore = {
        "type": "object",
        "properties": {"code": {"type": "string", "description": "Python to run in the sandbox."}},
        "required": ["code"],
        "additionalProperties": False,
    }
    submit = {
        "type": "object",
        "properties": {
            **fields.get("properties", {}),
            "resultReady": {"type": "boolean", "const": True},
        },
        "required": [*fields.get("required", []), "resultReady"],
        "additionalProperties": False,
    }
    schema = {
        "type": "object",
        "properties": {RLM_ACTION: {"anyOf": [explore, submit]}},
        "required": [RLM_ACTION],
    }
    return base.model_copy(update={"parameters": schema})


def rlm_action(arguments: dict[str, Any]) -> dict[str, Any]:
    """The action inside RLM tool arguments; flat arguments (``code``/``resultReady`` at the
    top level, as some models send them) are read as they are."""
    action = arguments.get(RLM_ACTION)
    return action if isinstance(action, dict) else arguments
