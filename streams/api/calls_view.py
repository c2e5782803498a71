"""One model call of llm_calls, as the trace page shows it: prompt, schema, raw reply.

Live providers (Gemini, OpenAI-compatible) store the prompt and the config with the
response schema in ``request``, and the reply text as received beside the parsed value in
``response``. A replayed call stores the call's input data instead of a prompt (a cassette
is keyed by input), and scripted models store their input: for those the page shows the
prompt rebuilt from that input by the same renderer the live providers use
(streams/model/prompts), and says so. Pure apart from that rendering.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from streams.domain.graph import RawGraph
from streams.model import ports
from streams.model.prompts import extract, judge, summarize

_RENDER: dict[str, tuple[type[Any], Any]] = {
    "extract": (ports.ExtractInput, extract.render),
    "judge": (ports.JudgeInput, judge.render),
    "summarize": (ports.SummarizeInput, summarize.render),
}
_ANSWER: dict[str, type[BaseModel]] = {
    "extract": RawGraph, "judge": ports.JudgeOutput, "summarize": ports.SummaryOutput,
}  # fmt: skip
REBUILT = "rebuilt from the recorded input (this provider stores no prompt)"
SCHEMA_OF_MODEL = "the response model's JSON schema (this provider stores no request config)"


@dataclass(frozen=True)
class CallView:
    prompt: str | None
    prompt_note: str | None  # None: the prompt as sent
    schema: Any  # the response schema sent, when recorded
    schema_note: str | None  # None: the schema as sent
    reply_text: str | None  # the reply exactly as received
    parsed: Any  # the value read from it (or the recorded output)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _schema(request: dict[str, Any]) -> Any:
    config = _dict(request.get("config"))
    for key in ("response_schema", "responseSchema", "response_json_schema", "response_format"):
        if key in config:
            return config[key]
    return request.get("response_format")


def _rebuilt_prompt(kind: str, request: dict[str, Any], scope: dict[str, str]) -> str | None:
    if kind not in _RENDER:
        return None
    model, render = _RENDER[kind]
    data = _dict(request.get("input")) or request
    try:
        call_input = model.model_validate({**data, "scope": data.get("scope", scope)})
    except ValidationError:
        return None
    text: str = render(call_input, boundary="BOUNDARY")
    return text


def view(call: dict[str, Any], scope: dict[str, str]) -> CallView:
    """``scope``: dataset, project_id and episode_id of the call's episode."""
    request, response = _dict(call.get("request")), call.get("response")
    prompt, note = request.get("prompt"), None
    if not isinstance(prompt, str):
        prompt = _rebuilt_prompt(str(call.get("kind")), request, scope)
        note = REBUILT if prompt is not None else None
    schema, schema_note = _schema(request), None
    kind = str(call.get("kind"))
    if schema is None and note is not None and kind in _ANSWER:
        schema, schema_note = _ANSWER[kind].model_json_schema(), SCHEMA_OF_MODEL
    reply = _dict(response)
    text = reply.get("text") if isinstance(reply.get("text"), str) else None
    parsed = reply.get("parsed", response) if "parsed" in reply else response
    return CallView(prompt, note, schema, schema_note, text, parsed)
