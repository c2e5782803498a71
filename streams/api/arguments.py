"""The Python reader's arguments, checked before any query (ValueError naming what is
wrong): a tenant id as publishers' events spell it, a row id Postgres' bigint holds, an
episode id without NUL. The HTTP API checks its parameters itself (params.py) first."""

from __future__ import annotations

import re
from typing import Any

from streams.events import TENANT_ID_PATTERN

_TENANT_ID = re.compile(TENANT_ID_PATTERN)
_BIGINT_MAX = 2**63 - 1
_EPISODE_ID_CHARS = 200


def is_tenant_id(value: Any) -> bool:
    """Whether ``value`` is a dataset or project id as publishers' events spell it."""
    return isinstance(value, str) and _TENANT_ID.match(value) is not None


def check_tenant(dataset: Any, project_id: Any) -> None:
    for name, value in (("dataset", dataset), ("project_id", project_id)):
        if not is_tenant_id(value):
            raise ValueError(f"{name}: {value!r} is not a tenant id ({TENANT_ID_PATTERN})")


def check_row_id(value: Any, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _BIGINT_MAX:
        raise ValueError(f"{name}: a whole number from 0 to 2**63 - 1, not {value!r}")


def check_episode_id(value: Any) -> None:
    if not isinstance(value, str) or not value or "\x00" in value:
        raise ValueError(f"episode_id: a non-empty text without NUL, not {value!r}")
    if len(value) > _EPISODE_ID_CHARS:
        raise ValueError(f"episode_id: at most {_EPISODE_ID_CHARS} characters")
