"""The context budget: pricing a tool list, its stable order, and finding tools with BM25."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.data import DATASETS
from toolpool.agent._budget import (
    QUERY_MAX_CHARS,
    TOOL_OVERHEAD_TOKENS,
    ContextBudget,
    ToolIndex,
    estimate_text_tokens,
    estimate_tokens,
    order_tools,
)
from toolpool.agent._messages import ToolSpec
from toolpool.vetting.names import local_name

LIVEMCPBENCH = DATASETS / "livemcpbench" / "normalized.jsonl"


def tool(name: str, description: str = "", **properties: str) -> ToolSpec:
    schema = {"type": "object", "properties": {key: {"type": kind} for key, kind in properties.items()}}
    return ToolSpec(name, description, schema)


TOOLS = (
    tool(
        "mcp__weather__get_forecast",
        "Get the weather forecast for a city: temperature, rain, wind.",
        city="string",
    ),
    tool(
        "mcp__calendar__create_event",
        "Create an event in the user's calendar at a date and time.",
        title="string",
    ),
    tool("mcp__calendar__list_events", "List upcoming events in the user's calendar.", days="integer"),
    tool("mcp__files__read_file", "Read the complete contents of a file from disk.", path="string"),
    tool("mcp__files__write_file", "Write text to a file on disk, replacing the file.", path="string"),
    tool("mcp__files__list_directory", "List the files and folders in a directory.", path="string"),
    tool("mcp__mail__send_email", "Send an email message to one or more recipients.", to="string"),
    tool("mcp__search__web_search", "Search the web and return result titles and links.", query="string"),
    tool("mcp__finance__getStockPrice", "Latest quote for a ticker symbol.", symbol="string"),
)
INDEX = ToolIndex(TOOLS)


def names(tools: tuple[ToolSpec, ...]) -> list[str]:
    return [spec.name for spec in tools]


def test_the_estimate_grows_with_each_tool_and_with_longer_descriptions() -> None:
    assert estimate_tokens([]) == 0
    one = estimate_tokens(TOOLS[:1])
    assert one > TOOL_OVERHEAD_TOKENS
    assert estimate_tokens(TOOLS[:2]) > one
    assert estimate_tokens(TOOLS) == sum(estimate_tokens([spec]) for spec in TOOLS)
    longer = ToolSpec(TOOLS[0].name, TOOLS[0].description * 10, TOOLS[0].input_schema)
    assert estimate_tokens([longer]) > one


def test_the_estimate_is_deterministic_and_ignores_schema_key_order() -> None:
    reordered = ToolSpec("t", "d", {"properties": {"b": {}, "a": {}}, "type": "object"})
    original = ToolSpec("t", "d", {"type": "object", "properties": {"a": {}, "b": {}}})
    assert estimate_tokens([reordered]) == estimate_tokens([original])
    assert estimate_tokens(TOOLS) == estimate_tokens(TOOLS)


def test_text_costs_one_token_per_four_utf8_bytes_rounded_up() -> None:
    assert estimate_text_tokens("") == 0
    assert estimate_text_tokens("abcd") == 1
    assert estimate_text_tokens("abcde") == 2
    assert estimate_text_tokens("天气预报") == 3  # 12 bytes
    assert estimate_text_tokens("\udcff") == 1  # a lone surrogate does not raise


def test_tools_are_ordered_by_name_whatever_order_they_come_in() -> None:
    ordered = order_tools(TOOLS)
    assert names(ordered) == sorted(names(TOOLS))
    assert order_tools(reversed(TOOLS)) == ordered
    assert names(order_tools([tool("b"), tool("B"), tool("a_"), tool("a")])) == ["B", "a", "a_", "b"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("what's the weather in Paris tomorrow?", "mcp__weather__get_forecast"),
        ("create a calendar event for my meeting with Ana", "mcp__calendar__create_event"),
        ("read the file notes.txt", "mcp__files__read_file"),
        ("send an email to Bob", "mcp__mail__send_email"),
        ("look something up on the web", "mcp__search__web_search"),
        ("stock price of ACME", "mcp__finance__getStockPrice"),
    ],
)
def test_the_plainly_matching_tool_ranks_first(query: str, expected: str) -> None:
    assert names(INDEX.search(query))[0] == expected


def test_names_split_on_underscores_dots_dashes_and_camel_case() -> None:
    index = ToolIndex([tool("mcp__demo_alpha__lookup"), tool("getWeather"), tool("files.read-Text")])
    assert names(index.search("alpha")) == ["mcp__demo_alpha__lookup"]
    assert names(index.search("demo")) == ["mcp__demo_alpha__lookup"]
    assert names(index.search("weather")) == ["getWeather"]
    assert names(index.search("getweather")) == ["getWeather"]
    assert names(index.search("text")) == ["files.read-Text"]
    assert index.search("mcp") == ()


def test_unknown_words_blank_queries_and_stopwords_find_nothing() -> None:
    assert INDEX.search("xylophone quasar") == ()
    assert INDEX.search("") == ()
    assert INDEX.search("   \n\t") == ()
    assert INDEX.search("the and of to") == ()
    assert INDEX.search("calendar", limit=0) == ()


def test_results_are_best_first_capped_by_limit_and_ties_go_by_name() -> None:
    assert names(INDEX.search("list upcoming calendar events", limit=2)) == [
        "mcp__calendar__list_events",
        "mcp__calendar__create_event",
    ]
    assert len(INDEX.search("file", limit=1)) == 1
    twins = ToolIndex([tool("b_twin", "same words"), tool("a_twin", "same words")])
    assert names(twins.search("same words")) == ["a_twin", "b_twin"]


def test_only_the_first_query_characters_are_read() -> None:
    assert INDEX.search(" " * QUERY_MAX_CHARS + "calendar") == ()
    assert INDEX.search("calendar" + " x" * 10_000)


def test_a_long_description_does_not_bury_its_own_tools_name() -> None:
    long = tool("mcp__desk__read_file", "Read a file. " + "Lorem ipsum dolor sit amet, consectetur. " * 150)
    notes = tool("mcp__notes__search_notes", "Search your notes, kept in one file.")
    others = [spec for spec in TOOLS if spec.name != "mcp__files__read_file"]
    index = ToolIndex([long, notes, *others])
    assert names(index.search("read file"))[0] == "mcp__desk__read_file"


def test_plurals_meet_their_singular() -> None:
    assert names(INDEX.search("events"))[:2] == names(INDEX.search("event"))[:2]
    assert "mcp__files__read_file" in names(INDEX.search("files"))


def test_cjk_descriptions_are_searchable_by_a_few_characters() -> None:
    index = ToolIndex([tool("bing_search", "使用必应搜索指定的关键词"), tool("get_news", "获取新闻")])
    assert names(index.search("必应搜索")) == ["bing_search"]


def test_a_tool_name_used_twice_cannot_be_indexed() -> None:
    with pytest.raises(ValueError, match="unique"):
        ToolIndex([tool("same"), tool("same", "other")])


def test_the_budget_is_over_only_past_its_token_limit() -> None:
    cost = estimate_tokens(TOOLS)
    assert ContextBudget(max_tool_tokens=cost).over(TOOLS) is False
    assert ContextBudget(max_tool_tokens=cost - 1).over(TOOLS) is True
    assert ContextBudget().search_limit == 5
    with pytest.raises(ValueError, match="at least 1"):
        ContextBudget(search_limit=0)


@given(query=st.text(), limit=st.integers(min_value=-3, max_value=12))
def test_search_never_raises_and_returns_at_most_limit_distinct_indexed_tools(query: str, limit: int) -> None:
    found = INDEX.search(query, limit)
    assert len(found) <= max(limit, 0)
    assert len(set(names(found))) == len(found)
    assert all(spec in TOOLS for spec in found)


@given(
    texts=st.lists(st.tuples(st.text(min_size=1), st.text()), max_size=8, unique_by=lambda pair: pair[0]),
    query=st.text(),
)
def test_any_names_and_descriptions_index_and_search_without_raising(
    texts: list[tuple[str, str]], query: str
) -> None:
    specs = [tool(name, description) for name, description in texts]
    index = ToolIndex(specs)
    found = index.search(query)
    assert len(found) <= 5 and all(spec in specs for spec in found)
    assert estimate_tokens(specs) >= TOOL_OVERHEAD_TOKENS * len(specs)


def livemcpbench() -> tuple[ToolSpec, ...]:
    rows = [
        json.loads(line) for line in LIVEMCPBENCH.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    return tuple(
        ToolSpec(
            local_name(row["server"], row["name"]),
            row.get("description") or "",
            row.get("inputSchema") or {"type": "object"},
        )
        for row in rows
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("what is the weather in Lisbon", "mcp__weather__get_weather"),
        ("show the diff between two git branches", "mcp__git__git_diff"),
        ("convert 3pm Tokyo time to another timezone", "mcp__time__convert_time"),
        ("draw a bar chart of sales per region", "mcp__mcp-server-chart__generate_bar_chart"),
        ("address for these GPS coordinates", "mcp__osm-mcp-server__reverse_geocode"),
        ("income statement of AAPL", "mcp__yahoo-finance__get_income_statement"),
        ("extract text from a PDF", "mcp__pdf-reader-mcp__read_pdf"),
        ("搜索游戏王卡牌", "mcp__ygocdb__search_cards"),
    ],
)
def test_on_livemcpbench_the_plainly_right_tool_is_in_the_top_five(query: str, expected: str) -> None:
    tools = livemcpbench()
    assert expected in names(tools), "the data set changed: pick another tool"
    assert expected in names(ToolIndex(tools).search(query, limit=5))
