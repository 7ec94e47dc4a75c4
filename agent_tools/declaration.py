"""The one shape of a tool declaration, and how a declaration is run.

A `ToolSpec` holds everything about a tool: name, title, description (ending
in a short "Returns:" summary generated from the output schema, since WebMCP
has no output schema and the summary must never disagree with it), the
pydantic input model (strict, unknown arguments forbidden) and output model
that generate `inputSchema` and `outputSchema`, the annotations and `_meta`,
and the handler. `tools/list`, argument validation, `tools/call` and
webmcp.js all read these objects; nothing else describes a tool.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from mirror.values.jsontext import pretty_dumps
from mirror.values.storable import REASON as UNSTORABLE_REASON
from mirror.values.storable import first_unstorable

UNSTORABLE_ERROR = "unstorable_text"

# Every tool here only reads the mirror: all four hints, explicitly.
READ_ONLY_ANNOTATIONS: Mapping[str, bool] = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}
# WebMCP extras: nothing a tool does has consequences, and catalog text is
# contractor-authored (untrusted) content.
WEBMCP_ANNOTATIONS: Mapping[str, bool] = {"consequentialHint": False, "untrustedContentHint": True}

_SCHEMA_MAPS = ("properties", "$defs", "patternProperties", "dependentSchemas")
_SCHEMA_ONE = (
    "items",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
)
_SCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")


class ToolError(Exception):
    """A tool-level failure: reported to the model as `isError: true` with this text."""


def refuse_unstorable(arguments: Any) -> Any:
    """A before-validator for input models: text the database cannot store is an invalid argument."""
    where = first_unstorable(arguments)
    if where is not None:
        raise PydanticCustomError(UNSTORABLE_ERROR, "{where}: " + UNSTORABLE_REASON, {"where": where})
    return arguments


class StorableInput(BaseModel):
    """Base of every tool's arguments model (MCP and UCP): text the database cannot store is refused."""

    @model_validator(mode="before")
    @classmethod
    def storable_text(cls, data: Any) -> Any:
        """Refuse text the database cannot store, naming the argument."""
        return refuse_unstorable(data)


class ToolInput(StorableInput):
    """Base of input models: strict types, unknown arguments refused, only storable text."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ToolOutput(BaseModel):
    """Base of output models."""

    model_config = ConfigDict(frozen=True)


@dataclass(frozen=True)
class ToolSpec:
    """One tool, declared once."""

    name: str
    title: str
    description: str
    input_model: type[ToolInput]
    output_model: type[ToolOutput]
    handler: Callable[[Any, Any], ToolOutput]
    meta: Mapping[str, Any] | None = None
    annotations: Mapping[str, bool] = field(default_factory=lambda: dict(READ_ONLY_ANNOTATIONS))

    @cached_property
    def returns(self) -> str:
        """The short shape of `structuredContent`, generated from `output_schema`."""
        return summarise_schema(self.output_schema)

    @cached_property
    def full_description(self) -> str:
        """The description every client sees, with its Returns: summary."""
        return f"{self.description}\n\nReturns: {self.returns}"

    @cached_property
    def input_schema(self) -> dict:
        """JSON Schema 2020-12 of the arguments (`additionalProperties: false`)."""
        schema = clean_schema(self.input_model.model_json_schema(mode="validation"), optional_null=False)
        schema.setdefault("properties", {})
        return schema

    @cached_property
    def output_schema(self) -> dict:
        """JSON Schema 2020-12 of `structuredContent`."""
        return clean_schema(self.output_model.model_json_schema(mode="serialization"))

    def list_entry(self) -> dict:
        """The tools/list entry."""
        entry = {
            "name": self.name,
            "title": self.title,
            "description": self.full_description,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
            "annotations": dict(self.annotations),
        }
        if self.meta:
            entry["_meta"] = json.loads(json.dumps(self.meta))  # a private copy
        return entry

    def webmcp_definition(self) -> dict:
        """The WebMCP registerTool definition (minus `execute`)."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.full_description,
            "inputSchema": self.input_schema,
            "annotations": {**self.annotations, **WEBMCP_ANNOTATIONS},
        }

    def run(self, context: Any, arguments: dict) -> dict:
        """Validate the arguments, run the handler, build the CallToolResult."""
        try:
            params = self.input_model.model_validate(arguments)
        except ValidationError as error:
            return tool_error(describe_invalid_arguments(self.name, error))
        try:
            output = self.handler(context, params)
        except ToolError as error:
            return tool_error(str(error))
        if not isinstance(output, self.output_model):
            output = self.output_model.model_validate(output)
        return tool_success(output.model_dump(mode="json"))


def tool_success(structured: dict) -> dict:
    """A successful result: structuredContent plus the same JSON, pretty-printed, as text."""
    text = pretty_dumps(structured)  # json.dumps(structured, indent=2, ensure_ascii=False), NaN as null
    return {"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": False}


def tool_error(text: str) -> dict:
    """A tool error the model can read and correct (no structuredContent)."""
    return {"content": [{"type": "text", "text": text}], "isError": True}


def describe_invalid_arguments(tool_name: str, error: ValidationError) -> str:
    """One line per problem, each naming its argument."""
    problems = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        if item["type"] == UNSTORABLE_ERROR:  # raised before field validation: it names its own argument
            where, text = item["ctx"]["where"], UNSTORABLE_REASON
        elif item["type"] == "extra_forbidden":
            text = "unknown argument (not in this tool's inputSchema)"
        elif item["type"] == "missing":
            text = "required argument is missing"
        else:
            text = item["msg"]
        problems.append(f"{where}: {text}")
    return f"Invalid arguments for {tool_name}: " + "; ".join(problems)


# Deeper than this, an object is summarised as `{...}`: the summary stays one
# readable line (the outputSchema has the rest).
SUMMARY_DEPTH = 2


def summarise_schema(schema: dict, depth: int = 0) -> str:
    """A one-line shape of a (self-contained) JSON Schema.

    `{a, b?, c|null, d[], e{x, y}, f[{...}], g (x|y)}`: `?` marks a property
    that may be absent, `|null` one that may be null, `[]` an array, `{}` an
    object with free keys, `(x|y)` the allowed values; alternatives of a
    union are joined with " or ".
    """
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        kept = [option for option in options if option.get("type") != "null"]
        if len(kept) > 1 and depth > 0:
            shown = "{...}"  # a nested union (UCP messages): the outputSchema says which
        else:
            shown = " or ".join(summarise_schema(option, depth) for option in kept)
        return shown + ("|null" if len(kept) < len(options) else "")
    if "enum" in schema or "const" in schema:
        values = schema.get("enum", [schema.get("const")])
        return " (" + "|".join(str(value) for value in values) + ")"
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items") or {}
        inner = summarise_schema(items, depth) if items.get("type") == "object" or "anyOf" in items else ""
        return f"[{inner}]"
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties")
        if not properties:
            return "{}"
        if depth >= SUMMARY_DEPTH:
            return "{...}"
        required = set(schema.get("required", ()))
        fields = [
            name + ("" if name in required else "?") + summarise_schema(sub, depth + 1)
            for name, sub in properties.items()
        ]
        return "{" + ", ".join(fields) + "}"
    return ""


def clean_schema(schema: dict, *, optional_null: bool = True) -> dict:
    """Inline local `$ref`s, drop generated titles and (for inputs) `null` alternatives.

    Clients differ in how they resolve `$ref`, and WebMCP hosts pass the input
    schema straight to a model; a self-contained schema works everywhere.
    Optional arguments are simply not required: a `null` alternative and a
    `default: null` only add noise for the model (an explicit null is still
    accepted).
    """
    defs = schema.get("$defs", {})
    inlined = _inline(schema, defs)
    inlined.pop("$defs", None)
    return _tidy(inlined, optional_null)


def _inline(node: Any, defs: dict) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {**target, **{k: _inline(v, defs) for k, v in node.items() if k != "$ref"}}
    return {k: _inline(v, defs) if k not in ("enum", "const", "default", "examples") else v for k, v in node.items()}


def _tidy(node: Any, optional_null: bool) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _tidy(sub, optional_null) for name, sub in value.items()}
        elif key in _SCHEMA_ONE and isinstance(value, dict):
            out[key] = _tidy(value, optional_null)
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_tidy(sub, optional_null) for sub in value]
        else:
            out[key] = value
    if not optional_null:
        out = _drop_null_alternative(out)
    return out


def _drop_null_alternative(node: dict) -> dict:
    options = node.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        kept = next(option for option in options if option != {"type": "null"})
        node = {**{k: v for k, v in node.items() if k != "anyOf"}, **kept}
    if "default" in node and node["default"] is None:
        node = {k: v for k, v in node.items() if k != "default"}
    return node
