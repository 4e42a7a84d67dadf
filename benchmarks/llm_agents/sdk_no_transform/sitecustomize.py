"""Put this folder on PYTHONPATH of one of our agents to skip the `openai` SDK's request transform in
`chat.completions.create` (`llm_bench.py --skip-sdk-transform`, a what-if; nothing else changes).

`AsyncCompletions.create` passes the request body through `async_maybe_transform`, which walks every message
and tool against the TypedDict unions of the params, once per union member, and for Chat Completions params
built of plain dicts and lists returns an equal copy minus the arguments left out (those types carry no key
aliases or formats). Its cost grows with the transcript, so it is paid again, larger, at every turn of a tool
loop. Here it only drops the arguments left out, as if the vendor adapter posted the body through
`client.post(...)`.
"""

import openai.resources.chat.completions.completions as _completions
from openai._utils import is_given as _is_given


async def _as_is(data, expected_type):  # type: ignore[no-untyped-def]
    """The body without its omitted top-level arguments (what the transform drops), otherwise as given."""
    return {key: value for key, value in data.items() if _is_given(value)}


_completions.async_maybe_transform = _as_is
