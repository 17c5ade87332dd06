"""The service's logs as JSON lines: one object per record on stderr.

``judge serve`` hands :data:`LOG_CONFIG` to uvicorn, so its own lines (start-up, access log)
and the service's (``judge.*``) come out alike: ``{"ts", "level", "logger", "message"}``, plus
``client``, ``method``, ``path`` and ``status`` on access lines. A campaign invitation token
in a path (``/v1/label/<token>/…``, ``/ui/label/<token>``) is logged as ``tok:`` and the
first 12 hex digits of its SHA-256 (:func:`redact_path`): a log reader cannot use the link,
an admin can still match lines of one invitation.

Example:
    >>> import logging
    >>> rec = logging.LogRecord("judge.api", logging.INFO, __file__, 1, "ready on %s", ("x",),
    ...                         None)
    >>> line = json.loads(JsonLines().format(rec))
    >>> line["level"], line["logger"], line["message"]
    ('info', 'judge.api', 'ready on x')
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from typing import Any

_LABEL = re.compile(r"(/(?:v1|ui)/label/)([^/?#]+)")


def redact_path(path: str) -> str:
    """``path`` with a label token replaced by its hash prefix.

    >>> redact_path("/v1/label/" + "A" * 32 + "/next")
    '/v1/label/tok:22a48051594c/next'
    """
    return _LABEL.sub(
        lambda m: m.group(1) + "tok:" + hashlib.sha256(m.group(2).encode()).hexdigest()[:12],
        path,
    )


class JsonLines(logging.Formatter):
    """Formats a record as one JSON object (no newlines inside)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        if (
            record.name == "uvicorn.access"
            and isinstance(record.args, tuple)
            and len(record.args) == 5
        ):
            client, method, path, _, status = record.args
            path = redact_path(str(path))
            line.update(client=client, method=method, path=path, status=status)
            line["message"] = f"{method} {path} {status}"
        else:
            line["message"] = record.getMessage()
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def log_config(level: str = "info") -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for uvicorn and the service: JSON lines on stderr."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonLines"}},
        "handlers": {"stderr": handler},
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"level": level.upper()},
            "uvicorn.access": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "judge": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
        },
    }


LOG_CONFIG = log_config()
