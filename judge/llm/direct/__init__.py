"""The direct route: calls to an OpenAI-compatible server sent by the judge's own HTTP client,
with what they carry decided by litellm.

litellm spends 5–7 ms of CPU on every call (logging objects, parameter mapping, pricing,
response objects). For an OpenAI-compatible server — ``JUDGE_API_BASE`` set and a model
litellm routes as ``openai/`` or ``hosted_vllm/`` — that per-call work is the same every
time, so the judge asks litellm once and then repeats its answer:

1. **Calibration** (:mod:`.template`): once per model, endpoint, key and call parameters,
   litellm builds a request for a probe conversation through its normal path, with an HTTP
   client that records the request instead of sending it (:mod:`.replay`). The recorded URL,
   headers and body (everything but the messages and the response format) become the route's
   template. A route whose probe messages litellm rewrites (e.g. ``o1``/``o3`` models, whose
   system prompt it re-roles) keeps going through litellm.
2. **Calls** (:mod:`.transport`): the template with the call's messages and response format,
   sent over one pooled aiohttp session per event loop, used as litellm's own aiohttp
   transport uses its session (no decompression, no redirects, the same timeouts). The
   provider receives the same bytes as from litellm.
3. **Answers**: a plain 200 is read directly — text, the provider's token counts, and
   litellm's price per token when litellm prices the model at all. Anything else (an HTTP
   error, a compressed or unusual body, another model than asked for, a reply opening with a
   ``<think>`` block, usage details that change the price) is handed to litellm as the
   response to its own request (:mod:`.replay`); a failure without an answer (timeout,
   refused, dropped) is handed to it as the error its transport would have met. Errors,
   retries and prices come out exactly as on the litellm route.

The route is not taken (every call goes through ``litellm.acompletion``) with
``JUDGE_LLM_TRANSPORT=litellm``, for ``https://`` endpoints (litellm's TLS settings apply),
when a proxy is configured in the environment, when litellm's aiohttp transport is off, and
for other providers (Anthropic, Gemini, Ollama, OpenAI without an endpoint set, ...).

Example:
    >>> from judge.config import JudgeSettings
    >>> routes = DirectRoutes()
    >>> routes.eligible("openai/my-model", JudgeSettings(api_base="http://127.0.0.1:8000/v1"))
    True
    >>> routes.eligible("anthropic/claude-3-5-sonnet", JudgeSettings(api_base="http://h/v1"))
    False
    >>> routes.eligible("openai/gpt-4o", JudgeSettings(llm_transport="litellm", api_base="http://h"))
    False
"""

from judge.llm.direct.routes import DirectRoute, DirectRoutes

__all__ = ["DirectRoute", "DirectRoutes"]
