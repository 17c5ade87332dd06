"""litellm's own request path, run with an HTTP client that answers locally.

litellm accepts an HTTP client per call (``client=``). :class:`LocalClient` is litellm's
``AsyncHTTPHandler`` on an ``httpx.MockTransport``: every request litellm builds reaches
``answer`` instead of the network, and whatever ``answer`` returns is what litellm reads,
through its normal error handling and response building. Calibration uses it to record the
request litellm would send; the direct route uses it to let litellm read a response the
direct route received.

Example:
    >>> import httpx
    >>> client = LocalClient(lambda request: httpx.Response(204))
    >>> isinstance(client.client, httpx.AsyncClient)
    True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler, get_default_headers

from judge.llm import litellm_settings

Answer = Callable[[httpx.Request], httpx.Response]


class LocalClient(AsyncHTTPHandler):
    """litellm's async HTTP handler whose requests are answered by ``answer``."""

    def __init__(self, answer: Answer):
        self._answer = answer
        super().__init__(timeout=None)

    def create_client(self, *args: Any, **kwargs: Any) -> httpx.AsyncClient:
        """An httpx client on a transport that calls ``answer`` (never the network), with
        the default headers litellm's own client has (its user agent)."""
        return httpx.AsyncClient(
            transport=httpx.MockTransport(self._answer), headers=get_default_headers()
        )


async def through_litellm(
    answer: Answer, model: str, messages: list[dict], fmt: dict, kwargs: dict[str, Any]
) -> Any:
    """``litellm.acompletion`` for the call, its HTTP requests answered by ``answer``."""
    client = LocalClient(answer)
    try:
        return await litellm_settings.load().acompletion(
            model=model,
            messages=messages,
            response_format=fmt,
            drop_params=True,
            client=client,
            **kwargs,
        )
    finally:
        await client.client.aclose()
