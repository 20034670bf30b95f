"""Long listings come in pages: the admin API's ``GET /admin/tools`` and the web UI's tools page.

A page ends at an (alias, tool); its opaque cursor starts the next page after it, so every
tool is listed exactly once, in order, and a small store still answers in one page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.serve.test_admin import Served, serve_admin
from tests.serve.ui_helpers import UiServer, log_in, serve_ui
from tests.store.helpers import read
from toolpool.serve.admin._models import TOOLS_PAGE, TOOLS_PAGE_MAX
from toolpool.serve.ui._routes import TOOLS_PAGE as UI_TOOLS_PAGE
from toolpool.store import SecretKey, Store

_ROW = re.compile(r'<tr data-tool="([^"]+)"')
_NEXT = re.compile(r'<a href="[^"]*\?cursor=([^"]+)" rel="next">')


def _fill(store: Store, aliases: int, tools: int) -> list[str]:
    """``aliases`` servers of ``tools`` tools each; every ``alias/tool`` in listing order."""
    names = [f"t{number:03d}" for number in range(tools)]
    store.tools.sync_policies(
        {f"a{index}": {name: read(f"a{index}.{name}") for name in names} for index in range(aliases)}
    )
    return [f"a{index}/{name}" for index in range(aliases) for name in names]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(f"sqlite:///{tmp_path / 'toolpool.db'}", key=SecretKey.generate()) as opened:
        yield opened


@pytest.fixture
def served(store: Store) -> Iterator[Served]:
    with serve_admin(store) as running:
        yield running


@pytest.fixture
def admin(served: Served) -> Iterator[httpx.Client]:
    with served.client() as opened:
        yield opened


def _names(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    body: list[dict[str, Any]] = response.json()
    return [f"{tool['alias']}/{tool['name']}" for tool in body]


def test_a_store_smaller_than_a_page_lists_every_tool_in_one_answer_without_a_cursor(
    store: Store, admin: httpx.Client
) -> None:
    expected = _fill(store, 3, 4)
    response = admin.get("/admin/tools")
    assert _names(response) == expected
    assert "x-next-cursor" not in response.headers
    assert "link" not in response.headers


def test_the_tools_listing_pages_cover_every_tool_once_in_order(store: Store, admin: httpx.Client) -> None:
    expected = _fill(store, 3, 4)
    first = admin.get("/admin/tools", params={"limit": 5})
    assert _names(first) == expected[:5]
    cursor = first.headers["x-next-cursor"]
    assert cursor == "a1:t000"
    assert first.headers["link"] == '</admin/tools?cursor=a1%3At000&limit=5>; rel="next"'
    second = admin.get("/admin/tools", params={"limit": 5, "cursor": cursor})
    assert _names(second) == expected[5:10]
    last = admin.get("/admin/tools", params={"limit": 5, "cursor": second.headers["x-next-cursor"]})
    assert _names(last) == expected[10:]
    assert "x-next-cursor" not in last.headers


def test_the_next_page_of_one_alias_stays_within_that_alias(store: Store, admin: httpx.Client) -> None:
    expected = [name for name in _fill(store, 3, 4) if name.startswith("a1/")]
    first = admin.get("/admin/tools", params={"alias": "a1", "limit": 3})
    assert _names(first) == expected[:3]
    assert "alias=a1" in first.headers["link"]
    rest = admin.get(
        "/admin/tools", params={"alias": "a1", "limit": 3, "cursor": first.headers["x-next-cursor"]}
    )
    assert _names(rest) == expected[3:]


@pytest.mark.parametrize(
    "cursor",
    [
        "nope!",
        "a0",
        "a0:t000:x",
        "not an alias:t000",
        "a0:",
    ],
)
def test_a_cursor_that_no_page_gave_is_a_400_in_one_line(
    store: Store, admin: httpx.Client, cursor: str
) -> None:
    _fill(store, 1, 2)
    response = admin.get("/admin/tools", params={"cursor": cursor})
    assert response.status_code == 400
    assert response.json() == {"error": "cursor: not a cursor of this listing (pass X-Next-Cursor as it is)"}


def test_a_limit_above_the_maximum_is_refused(admin: httpx.Client) -> None:
    assert TOOLS_PAGE <= TOOLS_PAGE_MAX
    assert admin.get("/admin/tools", params={"limit": TOOLS_PAGE_MAX + 1}).status_code == 422
    assert admin.get("/admin/tools", params={"limit": 0}).status_code == 422


# -- the web UI ------------------------------------------------------------------------------


@pytest.fixture
def ui(store: Store) -> Iterator[UiServer]:
    with serve_ui(store) as running:
        yield running


def test_the_ui_tools_page_shows_a_page_of_tools_and_links_the_next(store: Store, ui: UiServer) -> None:
    expected = _fill(store, 3, UI_TOOLS_PAGE // 2)  # one page and a half
    store.tools.set_server_enabled("zz-empty", False, "ana")  # a server without tools
    with ui.client() as browser:
        log_in(browser)
        first = browser.get("/")
        assert first.status_code == 200, first.text
        assert _ROW.findall(first.text) == expected[:UI_TOOLS_PAGE]
        assert 'data-alias="zz-empty"' not in first.text
        cursor = _NEXT.search(first.text)
        assert cursor is not None
        second = browser.get("/", params={"cursor": cursor.group(1)})
        assert second.status_code == 200, second.text
        assert _ROW.findall(second.text) == expected[UI_TOOLS_PAGE:]
        assert _NEXT.search(second.text) is None
        assert 'data-alias="zz-empty"' in second.text  # on the page whose aliases hold it
        assert ">first page</a>" in second.text


def test_the_ui_refuses_a_cursor_it_did_not_give(store: Store, ui: UiServer) -> None:
    _fill(store, 1, 2)
    with ui.client() as browser:
        log_in(browser)
        assert browser.get("/", params={"cursor": "nope!"}).status_code == 400
