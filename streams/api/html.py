"""HTML for the Playground, escaped by construction.

Everything shown comes from users, models or Kafka, so every piece of text is data: it
goes through :func:`h` (``html.escape``, quotes too) unless it is :class:`Markup` that
this module built. Pages are assembled from :func:`tag` calls, never by formatting text
into markup, so forgetting to escape is not something a page can do by accident.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote


class Markup(str):
    """HTML built here: inserted as it is."""

    __slots__ = ()


Child = Any  # text (escaped), Markup, None (nothing) or an iterable of those


def h(value: Child) -> Markup:
    """Escaped text, or the markup itself; lists are joined; None is nothing."""
    if value is None:
        return Markup("")
    if isinstance(value, Markup):
        return value
    if isinstance(value, (list, tuple)) or (
        isinstance(value, Iterable) and not isinstance(value, (str, bytes))
    ):
        return Markup("".join(h(v) for v in value))
    if isinstance(value, datetime):
        value = show_time(value)
    return Markup(html.escape(str(value), quote=True))


def tag(name: str, /, *children: Child, **attrs: Any) -> Markup:
    """``<name attrs>children</name>``. ``class_`` is ``class``, ``data_x`` ``data-x``;
    False and None attributes are left out, True ones are bare."""
    parts = [name]
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        attr = key.rstrip("_").replace("_", "-")
        parts.append(attr if value is True else f'{attr}="{h(value)}"')
    opening = "<" + " ".join(parts) + ">"
    if name in ("input", "br", "meta", "link", "img"):
        return Markup(opening)
    return Markup(opening + h(list(children)) + f"</{name}>")


def show_time(value: datetime | None) -> str:
    if value is None:
        return ""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def show_millis(timestamp_ms: int) -> str:
    """A Kafka record timestamp (ms since the epoch), or '-' when the record has none."""
    if timestamp_ms <= 0:
        return "-"
    return show_time(datetime.fromtimestamp(timestamp_ms / 1000, UTC))


def pretty_json(value: Any) -> str:
    """JSON as text for a ``<pre>``: indented, every script as it is."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return str(value)
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def table(headers: Sequence[str], rows: Iterable[Sequence[Child]], **attrs: Any) -> Markup:
    head = tag("thead", tag("tr", [tag("th", x) for x in headers]))
    body = tag("tbody", [tag("tr", [tag("td", cell) for cell in row]) for row in rows])
    return tag("table", head, body, **attrs)


def link(href: str, text: Child, **attrs: Any) -> Markup:
    return tag("a", text, href=href, **attrs)


def seg(value: str) -> str:
    """One URL path segment (an episode id may hold any character)."""
    return quote(value, safe="")


def tenant_path(dataset: str, project: str) -> str:
    return f"/tenants/{seg(dataset)}/{seg(project)}"


def episode_path(tenant: str, episode_id: str) -> str:
    """The episode's page under ``tenant`` (a tenant_path). An id that is a dot segment
    goes in the query instead: browsers and HTTP clients resolve ``/.`` and ``/..`` (also
    escaped) away before sending."""
    if episode_id in (".", ".."):
        return f"{tenant}/episode?id={seg(episode_id)}"
    return f"{tenant}/episodes/{seg(episode_id)}"


def page(title: str, *body: Child, script: str | None = None) -> Markup:
    """A whole Playground page: navigation, the body, the bundled script and style."""
    nav = tag(
        "nav",
        link("/", "episodes"),
        link("/tenants", "memory"),
        link("/pipeline", "pipeline"),
        tag("span", "factstream playground", class_="brand"),
    )
    head = tag(
        "head",
        Markup('<meta charset="utf-8">'),
        tag("title", f"{title} · factstream"),
        tag("link", rel="stylesheet", href="/static/playground.css"),
    )
    scripts = [tag("script", src="/static/playground.js")]
    if script:
        if not script.isidentifier():
            raise ValueError(f"not a script entry point: {script!r}")
        scripts.append(tag("script", Markup(f"Playground.{script}();")))
    content = tag("body", nav, tag("main", tag("h1", title), *body), *scripts)
    return Markup("<!doctype html>" + tag("html", head, content, lang="en"))
