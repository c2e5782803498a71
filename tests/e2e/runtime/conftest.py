"""Runtime e2e fixtures: the same ``topics`` fixture as the runtime integration tests."""

from __future__ import annotations

import pytest

from tests.integration.runtime.conftest import topics

__all__ = ["topics"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: real worker processes, tens of seconds")
