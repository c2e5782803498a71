"""Per-tenant advisory locks: 64-bit keys derived from '<dataset>:<project_id>'.

``hashtextextended(text, 0)`` gives 64 bits (``hashtext`` gives 32: at 100k tenants two of
them would share a key with ~69% probability, and block each other's writer and gate;
with 64 bits the chance is ~3 in 10^10). The writer locks the one-bigint key; the gate
locks the same 64 bits split over the two-int4 form, a key space Postgres keeps apart
from the one-bigint form, so a tenant's gate and writer never wait for each other.
"""

from __future__ import annotations


def tenant_key(tenant: str) -> str:
    """SQL for the tenant's 64-bit key; ``tenant`` is a parameter such as ``$1``."""
    return f"hashtextextended({tenant}, 0)"


def writer_lock(tenant: str) -> str:
    """The writer's transaction lock of a tenant (one bigint key)."""
    return f"pg_advisory_xact_lock({tenant_key(tenant)})"


def gate_lock(tenant: str) -> str:
    """The gate's transaction lock of a tenant: the same 64 bits as two int4 keys."""
    key = tenant_key(tenant)
    return f"pg_advisory_xact_lock(({key} >> 32)::int4, {key}::bit(32)::int4)"
