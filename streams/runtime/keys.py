"""The key rule: every record is keyed by its payload's tenant, ``"<dataset>:<project_id>"``.

A record keyed by another tenant sits on that tenant's partition, out of its own tenant's
order; a record without a key (null) lands on any partition, just as out of order. The
runtime dead-letters both before the handler runs (``key_mismatch``, ``no_key``), and
``factstream replay --reprocess`` does not copy them (they were never handled).
"""

from __future__ import annotations

from pydantic import BaseModel

from streams.errors import PoisonError
from streams.events import TenantEvent
from streams.runtime.records import bytes_as_text

KEY_SHOWN = 200  # characters of a key a log line or an error message shows


class KeyMismatch(PoisonError):
    """The record's key is not the tenant its payload names."""

    reason = "key_mismatch"


class NoKey(PoisonError):
    """The record has no key (null); its payload names a tenant."""

    reason = "no_key"


def shown_key(key: bytes | None) -> str | None:
    """A record key as a log line or a message shows it: escaped (``\\xff``), and cut
    after KEY_SHOWN characters (a producer's 1 MB key is in the dead letter, not in every
    line about it)."""
    if key is None:
        return None
    text = bytes_as_text(key)
    return text if len(text) <= KEY_SHOWN else f"{text[:KEY_SHOWN]}..."


def wrong_key(key: bytes | None, event: BaseModel) -> PoisonError | None:
    """Why a record with this key must not be handled as its event's tenant's (None: the
    key is right, or the event names no tenant)."""
    if not isinstance(event, TenantEvent):
        return None
    if key is None:
        return NoKey(
            "record has no key; the key must be the tenant '<dataset>:<project_id>',"
            f" here {event.tenant!r}"
        )
    if key == event.tenant.encode("utf-8"):
        return None
    return KeyMismatch(
        f"record key '{shown_key(key)}' is not the payload's tenant {event.tenant!r}"
    )
