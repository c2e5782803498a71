"""The suite's fixtures live in tests/support/fixtures.py; this file only loads them."""

pytest_plugins = ("tests.support.fixtures",)
