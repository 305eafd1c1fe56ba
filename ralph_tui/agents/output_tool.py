"""The single "output tool" an agent must call: its schema, its input rendering, its parsing."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ralph_tui.llm.types import ToolDefinition

OUTPUT_TOOL_NAME = "submit_output"

T = TypeVar("T", bound=BaseModel)


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Resolve ``$ref``s into ``$defs`` so every provider gets one self-contained schema."""
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return resolve(dict(defs[ref.removeprefix("#/$defs/")]))
            return {k: resolve(v) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

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


class ArgumentsError(ValueError):
    """The model's tool arguments were not valid JSON or did not match the schema."""


def parse_json_object(raw: str) -> dict[str, Any]:
    """The raw JSON arguments of a tool call as an object (empty arguments are ``{}``)."""
    try:
        data = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        raise ArgumentsError(
            f"The arguments are not valid JSON ({exc.msg} at line {exc.lineno} column "
            f"{exc.colno}). Call `{OUTPUT_TOOL_NAME}` again with a JSON object."
        ) from None
    if not isinstance(data, dict):
        raise ArgumentsError("The arguments must be a JSON object, not " + type(data).__name__)
    return data


def parse_arguments(raw: str, model: type[T]) -> T:
    """Validate the raw JSON arguments of a tool call against ``model``."""
    data = parse_json_object(raw)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ArgumentsError(describe_validation_error(exc)) from None


def rlm_tool(output_model: type[BaseModel]) -> ToolDefinition:
    """The output tool: the role's fields (optional until ready), ``code`` and ``resultReady``."""
    base = output_tool(output_model, "Run code in the sandbox, or submit the final output.")
    schema = dict(base.parameters)
    properties = dict(schema.get("properties", {}))
    properties["code"] = {"type": "string", "description": "Python to run in the sandbox."}
    properties["resultReady"] = {
        "type": "boolean",
        "description": "true only when the output fields hold the final answer.",
    }
    schema["properties"] = properties
    schema["required"] = ["resultReady"]
    return base.model_copy(update={"parameters": schema})
