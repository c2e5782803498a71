"""The README's Playground screenshots, from a running `factstream demo --console`.

    FACTSTREAM_API_PORT=8765 factstream demo --console     # in one shell
    .venv/bin/python docs/playground/take_screenshots.py http://127.0.0.1:8765

Headless Debian chromium through Playwright (no browser download); PNGs beside this file.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from playwright.async_api import Page, async_playwright

HERE = Path(__file__).resolve().parent


async def fact_id(page: Page, base: str, text: str) -> str:
    await page.goto(base + "/tenants/demo/alice?history=true")
    bar = page.locator("svg.timeline g.bar.closed", has_text=text).first
    return str(await bar.get_attribute("data-fact-id"))


async def shoot(base: str) -> None:
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = await browser.new_page(viewport={"width": 1200, "height": 760})
        google = await fact_id(page, base, "user works at google")
        shots = {
            "episodes": ("/", None),
            "trace": ("/tenants/demo/carol/episodes/carol-2", None),
            "trace-extraction": ("/tenants/demo/carol/episodes/carol-2",
                                 "details.kind-extract summary"),
            "trace-response": ("/tenants/demo/carol/episodes/carol-2",
                               "details.kind-extract h4 >> text=response (as stored)"),
            "trace-decisions": ("/tenants/demo/carol/episodes/carol-2", "h2 >> text=judge verdicts"),
            "memory": ("/tenants/demo/alice", None),
            "memory-valid-at": ("/tenants/demo/alice?valid_at=2026-02-20T00:00:00", None),
            "fact": (f"/tenants/demo/alice/facts/{google}", None),
            "search": ("/tenants/demo/alice/search?q=user+drives+honda+civic&valid_at=2026-03-15", None),
            "pipeline": ("/pipeline", None),
        }
        for name, (path, anchor) in shots.items():
            await page.goto(base + path)
            await page.wait_for_timeout(1200)  # the page's own fetches (feed, lag chart)
            if anchor:
                await page.locator(anchor).first.evaluate("e => e.scrollIntoView({block: 'start'})")
                await page.evaluate("() => window.scrollBy(0, -12)")
            await page.screenshot(path=str(HERE / f"{name}.png"))
        await page.goto(base + "/pipeline")
        await page.locator("#dlq-counts a", has_text="extract").click()
        await page.locator("#dead-letters a").first.click()
        await page.wait_for_timeout(500)
        await page.screenshot(path=str(HERE / "dead-letter.png"))
        await browser.close()


if __name__ == "__main__":
    asyncio.run(shoot(sys.argv[1].rstrip("/")))
