"""Who may read: loopback without a token by default; a token, once set, on every request;
and no serving beyond loopback without one. Real Postgres under the app."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import SecretStr

from streams.api.app import create_app
from streams.api.auth import COOKIE, check_exposure, is_loopback
from streams.errors import ConfigError
from streams.settings import Settings
from streams.store.databases import drop_database
from tests.support.db import create_fresh_database
from tests.support.playground import api_client

TOKEN = "s3cret-token"


@pytest.fixture
def db_settings(module_db_url: str) -> Settings:
    return Settings(database_url=module_db_url, embedding_dim=16)


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "10.0.0.7", "play.example.com"])
def test_no_serving_beyond_loopback_without_a_token(db_settings: Settings, address: str) -> None:
    with pytest.raises(ConfigError, match="FACTSTREAM_API_TOKEN"):
        create_app(db_settings.model_copy(update={"api_bind_address": address}))
    check_exposure(address, TOKEN)  # with one it may


@pytest.mark.parametrize("address", ["127.0.0.1", "::1", "localhost", "127.0.0.2"])
def test_loopback_needs_no_token(address: str) -> None:
    assert is_loopback(address)
    check_exposure(address, None)


def exposed(settings: Settings) -> Any:
    return create_app(settings.model_copy(update={"api_bind_address": "0.0.0.0",
                                                  "api_token": SecretStr(TOKEN)}))  # fmt: skip


async def test_the_token_is_required_on_every_request(db_settings: Settings) -> None:
    async with api_client(exposed(db_settings)) as api:
        missing = await api.get("/api/tenants")
        assert missing.status_code == 401
        assert missing.headers["www-authenticate"] == "Bearer"
        assert "bearer token" in missing.json()["error"]
        wrong = await api.get("/api/tenants", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        basic = await api.get("/api/tenants", headers={"Authorization": f"Basic {TOKEN}"})
        assert basic.status_code == 401
        ok = await api.get("/api/tenants", headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200 and ok.json() == {"tenants": []}
        page = await api.get("/pipeline")
        assert page.status_code == 401 and "token" in page.text
        assert (await api.get(f"/api/tenants?token={TOKEN}")).status_code == 401  # API: header
        assert (await api.get("/static/playground.js")).status_code == 401


async def test_a_browser_opens_the_playground_with_its_token_once(db_settings: Settings) -> None:
    async with api_client(exposed(db_settings)) as api:
        opened = await api.get(f"/tenants?token={TOKEN}&x=1")
        assert opened.status_code == 303
        assert opened.headers["location"] == "/tenants?x=1"  # the token leaves the URL
        cookie = opened.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}={TOKEN}") and "HttpOnly" in cookie
        assert "samesite=strict" in cookie.lower()
        api.cookies.set(COOKIE, TOKEN)
        assert (await api.get("/tenants")).status_code == 200
        assert (await api.get("/api/tenants")).status_code == 200
        api.cookies.clear()
        api.cookies.set(COOKIE, "forged")
        assert (await api.get("/tenants")).status_code == 401


async def test_without_a_token_loopback_is_open(db_settings: Settings) -> None:
    async with api_client(create_app(db_settings)) as api:
        assert (await api.get("/api/tenants")).status_code == 200
        for host in ("127.0.0.1:8765", "[::1]:8765", "localhost", "127.0.0.2"):
            answer = await api.get("/api/tenants", headers={"Host": host})
            assert answer.status_code == 200, host


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "10.0.0.7", "[::2]"])
async def test_without_a_token_another_host_name_is_refused(
    db_settings: Settings, host: str
) -> None:
    """A page of another site whose name resolves to 127.0.0.1 (DNS rebinding) reaches
    the server, but names its own host: it reads nothing and redrives nothing."""
    async with api_client(create_app(db_settings)) as api:
        read = await api.get("/api/tenants", headers={"Host": host})
        assert read.status_code == 403 and "localhost" in read.json()["error"]
        post = await api.post(
            "/api/pipeline/dlq/extract/0/0/redrive",
            json={"confirm": "extract 0/0"},
            headers={"Host": host},
        )
        assert post.status_code == 403
        page = await api.get("/tenants", headers={"Host": host})
        assert page.status_code == 403 and "answers only to localhost" in page.text


async def test_a_token_cannot_be_sent_to_another_site(db_settings: Settings) -> None:
    async with api_client(exposed(db_settings)) as api:
        for path, location in [
            ("//evil.example/", "/evil.example/"),
            ("///evil.example/x", "/evil.example/x"),
            ("/\\evil.example/", "/%5Cevil.example/"),
            ("/tenants/demo/alice", "/tenants/demo/alice"),
        ]:
            api.cookies.clear()  # else the cookie the last answer set lets it through
            opened = await api.get(f"http://localhost{path}?token={TOKEN}")
            assert opened.status_code == 303, path
            assert opened.headers["location"] == location


async def test_a_database_gone_away_is_a_503_that_says_so(database_url: str) -> None:
    url = await create_fresh_database(database_url)
    async with api_client(create_app(Settings(database_url=url, embedding_dim=16))) as api:
        assert (await api.get("/api/tenants/demo/alice/facts")).status_code == 200
        await drop_database(database_url, url)  # terminates the app's connections too
        answer = await api.get("/api/tenants/demo/alice/facts")
        assert answer.status_code == 503, answer.text
        assert "Postgres is unreachable or failed" in answer.json()["error"]
