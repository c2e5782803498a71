"""One round trip for two statements: a write put in front of another as a CTE.

A data-modifying CTE runs whether or not the statement after it reads it, in the same
statement and so the same transaction (Postgres "WITH ... INSERT"); its parameters are
renumbered after the statement's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

_PARAM = re.compile(r"\$(\d+)")

# What a store function takes to let another write ride on its statement: the statement
# and its arguments in, the combined statement and arguments out (with_write, with_calls).
Rider = Callable[[str, list[Any]], tuple[str, list[Any]]]


def with_write(
    query: str, args: Sequence[Any], name: str, write: str, write_args: Sequence[Any]
) -> tuple[str, list[Any]]:
    """``query`` with ``write`` (an INSERT/UPDATE/DELETE numbering its parameters from $1)
    run first in the same statement, as the CTE ``name``."""
    offset = max((int(n) for n in _PARAM.findall(query)), default=0)
    renumbered = _PARAM.sub(lambda m: f"${int(m.group(1)) + offset}", write)
    cte = f"{name} AS ({renumbered})"
    stripped = query.lstrip()
    if stripped[:5].upper() == "WITH ":
        return f"WITH {cte}, {stripped[5:]}", [*args, *write_args]
    return f"WITH {cte} {stripped}", [*args, *write_args]
