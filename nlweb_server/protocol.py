"""The NLWeb protocol as these endpoints speak it (v0.54: the version nlweb-core 0.7.0's models carry).

A request (`AskRequest`) has four sections: `query` (`text` required; `site`,
`num_results`, `max_results` and domain filters such as `location` accepted,
the filters not used), `context` (accepted, not used: every question is
answered as asked), `prefer` (`streaming`, `response_format`
`chatgpt_app` (the default) or `conv_search`, `mode` `list` (the default) or
`summarize`, or both comma-separated) and `meta`. `AskInput` below is the one
boundary rule: strict types, a clear message naming the field at fault, and
text the database could not store refused as the JSON-RPC core refuses it
(mirror/values/storable.py).

An answer (`_meta.response_type` "Answer", `_meta.version` "0.54"):
- `chatgpt_app`: `content` (`[{"Type": "text", "Text": ...}]`: the answer
  sentence in summarize mode, empty in list mode) and `structuredData` (the
  schema.org items);
- `conv_search`: `results` (the items; in summarize mode followed by
  `{"@type": "Summary", "text": ...}`, as nlweb-core's summarizer adds it).
A failure: `_meta.response_type` "Failure" and `error` {`code`, `message`}.

Streaming (`prefer.streaming: true`, or, when the request does not say, an
`Accept` header preferring `text/event-stream` to JSON): server-sent events, each `data:` line one JSON object
holding a part of the answer in the protocol's own keys, the `_meta` block
first; merged in order (lists joined) they are the whole answer above.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from mirror.query.limits import QUESTION_TEXT_MAX
from mirror.values.jsontext import dumps

PROTOCOL_VERSION = "0.54"
CHATGPT_APP, CONV_SEARCH = "chatgpt_app", "conv_search"
LIST, SUMMARIZE = "list", "summarize"
MODES = (LIST, SUMMARIZE)
INVALID_REQUEST = "INVALID_REQUEST"
DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
EVENT_STREAM = "text/event-stream"


class _Section(BaseModel):
    # Strict: "true" is not a boolean nor "5" a number; sections the protocol may extend keep unknown keys out.
    model_config = ConfigDict(strict=True, extra="ignore")


class AskQuery(_Section):
    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=QUESTION_TEXT_MAX)]
    site: str | list[str] | None = None
    num_results: Annotated[int, Field(ge=1, le=1000)] | None = None
    max_results: Annotated[int, Field(ge=1, le=100)] | None = None


class AskPrefer(_Section):
    streaming: bool | None = None
    response_format: Literal["chatgpt_app", "conv_search"] | None = None
    mode: str | None = None

    @field_validator("mode")
    @classmethod
    def known_modes(cls, value: str | None) -> str | None:
        """list, summarize, or both ("list,summarize")."""
        if value is None:
            return None
        modes = [m.strip() for m in value.split(",")]
        unknown = [m for m in modes if m not in MODES]
        if unknown:
            raise ValueError(f"mode {unknown[0][:40]!r} is not supported: use list or summarize")
        return ",".join(modes)


class AskInput(_Section):
    """The request, as validated at the boundary (see the module docstring)."""

    query: AskQuery
    context: dict[str, Any] | None = None
    prefer: AskPrefer | None = None
    meta: dict[str, Any] | None = None

    @property
    def response_format(self) -> str:
        """chatgpt_app unless conv_search was asked."""
        return (self.prefer.response_format if self.prefer else None) or CHATGPT_APP

    @property
    def summarize(self) -> bool:
        """Whether the answer sentence is asked for (summarize mode)."""
        mode = self.prefer.mode if self.prefer else None
        return SUMMARIZE in (mode or LIST).split(",")

    def streaming(self, events_preferred: bool) -> bool:
        """prefer.streaming; when unset, whether the Accept header prefers server-sent events to JSON."""
        asked = self.prefer.streaming if self.prefer else None
        return asked if asked is not None else events_preferred

    @property
    def max_results(self) -> int:
        """How many items at most (query.max_results, else num_results, else 9 as nlweb-core has it)."""
        return self.query.max_results or min(self.query.num_results or 9, 100)


def describe(error: ValidationError) -> str:
    """One line per problem, each naming its field ("query.text: ...")."""
    problems = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"]) or "body"
        text = "required field is missing" if item["type"] == "missing" else item["msg"]
        problems.append(f"{where}: {text.removeprefix('Value error, ')}")
    return "Invalid request: " + "; ".join(problems)


def meta(response_type: str, response_format: str | None = None) -> dict:
    """The `_meta` block."""
    block: dict = {"response_type": response_type, "version": PROTOCOL_VERSION}
    if response_format is not None:
        block["response_format"] = response_format
    return block


def failure(code: str, message: str) -> dict:
    """A Failure response."""
    return {"_meta": meta("Failure"), "error": {"code": code, "message": message}}


def answer_parts(ask: AskInput, sentence: str, items: list[dict]) -> list[dict]:
    """The answer in the order it is sent: `_meta`, the items, then (summarize mode) the sentence.

    Merged (`merged`), the parts are the whole Answer response.
    """
    response_format = ask.response_format
    parts: list[dict] = [{"_meta": meta("Answer", response_format)}]
    if response_format == CONV_SEARCH:
        parts.append({"results": items})
        if ask.summarize:
            parts.append({"results": [{"@type": "Summary", "text": sentence}]})
    else:
        parts.append({"structuredData": items})
        parts.append({"content": [{"Type": "text", "Text": sentence}] if ask.summarize else []})
    return parts


def merged(parts: list[dict]) -> dict:
    """The parts as one response: each key once, lists joined in order."""
    whole: dict = {}
    for part in parts:
        for key, value in part.items():
            if isinstance(value, list) and isinstance(whole.get(key), list):
                whole[key] = whole[key] + value
            else:
                whole[key] = value
    return whole


def events(parts: list[dict]) -> Iterator[bytes]:
    """The parts as server-sent events: one `data:` line of compact JSON each."""
    for part in parts:
        yield b"data: " + dumps(part).encode("utf-8") + b"\n\n"
