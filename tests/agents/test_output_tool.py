"""The output tools' schemas and argument parsing, as a real model's server sees them."""

from __future__ import annotations

import json

import jsonschema
import pytest
from pydantic import BaseModel

from ralph_tui.agents.output_tool import (
    ArgumentsError,
    output_tool,
    parse_arguments,
    parse_json_object,
    rlm_action,
    rlm_tool,
)
from ralph_tui.roles.decomposer import Plan


class Answer(BaseModel):
    answer: str
    evidence: list[str]


def test_a_field_named_title_stays_in_the_schema() -> None:
    schema = output_tool(Plan, "Submit.").parameters
    subtask = schema["properties"]["subtasks"]["items"]
    assert "title" in subtask["required"]
    assert "title" in subtask["properties"]
    assert "title" not in subtask["properties"]["title"], "annotations are still dropped"


def test_a_plan_a_model_writes_from_the_schema_validates() -> None:
    schema = output_tool(Plan, "Submit.").parameters
    sub = {"id": "s1", "title": "Backwash", "description": "List the backwash rules."}
    raw = json.dumps({"subtasks": [sub]})
    jsonschema.validate(json.loads(raw), schema)
    assert parse_arguments(raw, Plan).subtasks[0].title == "Backwash"


def test_raw_newlines_inside_a_string_are_accepted() -> None:
    raw = '{"action": {"code": "for line in context.splitlines()[:3]:\n    print(line)"}}'
    assert rlm_action(parse_json_object(raw))["code"].startswith("for line")


def test_a_refusal_says_where_the_json_broke_and_how_to_fix_it() -> None:
    with pytest.raises(ArgumentsError) as refused:
        parse_json_object('{"action": {"code": "print(1)" "resultReady": true}}')
    message = str(refused.value)
    assert "at at" not in message and "Expecting ',' delimiter at line 1, column" in message
    assert 'near `{"action": {"code": "print(1)" "result' in message
    assert "commas between members" in message


def test_a_non_object_is_refused_by_its_kind() -> None:
    with pytest.raises(ArgumentsError, match="not a JSON list"):
        parse_json_object("[1, 2]")


RLM_SCHEMA = rlm_tool(Answer).parameters


@pytest.mark.parametrize(
    "arguments",
    [
        {"action": {"code": "print(len(context))"}},
        {"action": {"answer": "a", "evidence": ["q"], "resultReady": True}},
    ],
)
def test_the_worker_schema_admits_code_or_a_full_output(arguments: dict[str, object]) -> None:
    jsonschema.validate(arguments, RLM_SCHEMA)


@pytest.mark.parametrize(
    "arguments",
    [
        {"action": {"resultReady": True}},
        {"action": {"answer": "a", "resultReady": True}},
        {"action": {"code": "x = 1", "resultReady": False}},
        {},
    ],
)
def test_the_worker_schema_refuses_turns_that_do_nothing(arguments: dict[str, object]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(arguments, RLM_SCHEMA)


def test_the_worker_schema_has_no_combinator_at_its_top_level() -> None:
    assert RLM_SCHEMA["type"] == "object"
    assert not {"anyOf", "oneOf", "allOf"} & set(RLM_SCHEMA)


def test_flat_worker_arguments_are_still_read() -> None:
    assert rlm_action({"code": "x", "resultReady": False}) == {"code": "x", "resultReady": False}


@pytest.mark.parametrize("raw", ["[" * 100_000, '{"a": ' * 100_000], ids=["arrays", "objects"])
def test_arguments_nested_past_the_parsers_stack_are_an_unusable_call_not_a_crash(
    raw: str,
) -> None:
    with pytest.raises(ArgumentsError) as refused:
        parse_json_object(raw)
    assert refused.value.key == "json: nested too deeply"
    with pytest.raises(ArgumentsError, match="nested too deeply"):
        parse_arguments(raw, Answer)
