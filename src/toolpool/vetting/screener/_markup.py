"""Hidden-instruction blocks and fake chat turns: markup that a person's screen hides or that
makes text look like it came from the system, the user or the assistant.

``<IMPORTANT>``, ``<secret>``, ``<instructions>`` open a block of orders; ``<system>``, ``[INST]``,
``<|im_start|>``, ``{{ system: ... }}`` or a line starting "SYSTEM:" fake a chat turn; an HTML
comment with orders in it is hidden from anyone reading the rendered text. HTML tags are
ignored; other paired tags are an unusual-markup hint.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._signals import MATCH_BUDGET, Finding
from toolpool.vetting.screener._vocab import vocab

__all__ = ["VOCABS", "markup_findings"]

_I = re.IGNORECASE
_CHAT_TOKEN = compiled(
    r"\[/?INST\]|<</?SYS>>|<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|"
    r"end_header_id|begin_of_text)\|>|\{\{\s*(?:system|assistant|user)\b|#{2,}\s*(?:new\s+|updated\s+)?"
    r"system\s+(?:message|prompt|instructions?|override)\b|\[(?:system|assistant|admin|developer|ai)"
    r"(?:\s+(?:message|instructions?|note|override|prompt))?\s*[:\]]",
    _I,
)
_ROLE_LABEL = vocab(
    r"(?<![\w-])(system|assistant|developer|user|human)\s*:", "system|assistant|developer|user|human"
)
VOCABS = (_ROLE_LABEL,)  # the word lists ``markup_findings`` reads (``_plain`` must know them)
_TAG = compiled(r"<\s*(/?)\s*([a-z][\w-]{0,30})(?:\s[^<>]{0,80})?>", _I)
_STRONG_TAGS = frozenset(
    {"important", "secret", "hidden", "instructions", "instruction", "sys", "critical", "directive"}
    | {"override", "tool_instructions", "toolinstructions", "assistant_instructions", "jailbreak"}
)
_TURN_TAGS = frozenset({"system", "user", "human", "assistant", "ai", "admin"})
_BLOCK_TAGS = frozenset({"prompt", "context", "note", "rules", "rule", "policy", "task", "directives"})
_HTML_TAGS = frozenset(
    [
        "a",
        "b",
        "i",
        "u",
        "s",
        "p",
        "br",
        "hr",
        "em",
        "strong",
        "code",
        "pre",
        "kbd",
        "samp",
        "var",
        "ul",
        "ol",
        "li",
        "dl",
        "dt",
        "dd",
        "table",
        "tr",
        "td",
        "th",
        "thead",
        "tbody",
        "tfoot",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "div",
        "span",
        "img",
        "script",
        "style",
        "blockquote",
        "sup",
        "sub",
        "small",
        "details",
        "summary",
        "input",
        "button",
        "form",
        "select",
        "option",
        "textarea",
        "label",
        "html",
        "head",
        "body",
        "title",
        "meta",
        "link",
        "iframe",
        "svg",
        "path",
        "mark",
        "del",
        "ins",
        "cite",
        "abbr",
        "q",
        "figure",
        "figcaption",
        "section",
        "article",
        "header",
        "footer",
        "nav",
        "main",
        "aside",
        "video",
        "audio",
        "source",
        "canvas",
        "noscript",
        "template",
        "slot",
        "center",
        "font",
        "caption",
        "col",
        "colgroup",
    ]
)
_COMMENT_ORDERS = compiled(
    r"\b(?:you|must|always|never|call|ignore|instead|before|important|assistant|model|do\s+not)\b", _I
)


def markup_findings(doc: Doc) -> Iterator[Finding]:
    text = doc.text
    if any(needle in text for needle in ("[", "<", "{{", "##")):
        for match in islice(_CHAT_TOKEN.finditer(text), MATCH_BUDGET):
            yield Finding("fake_turn", doc.where(match.start()))
    for match in islice(doc.finditer(_ROLE_LABEL), MATCH_BUDGET) if ":" in text else ():
        start, _ = doc.sentence(match.start())
        if text[start : match.start()].strip(" \t\n*#>-_[(\"'"):
            continue
        role = doc.original(match, 1)
        shouting = role.isupper() and role.lower() not in ("user", "human")
        found = 1.0 if shouting else (0.7 if role.lower() in ("system", "assistant", "developer") else 0.4)
        yield Finding("fake_turn", doc.where(match.start()), found)
    if "<" not in text:
        return
    yield from _tags(doc)
    for start, body in _comments(text):
        hidden = _COMMENT_ORDERS.search(body) is not None
        yield Finding("hidden_block" if hidden else "html_comment", doc.where(start))


def _comments(text: str) -> Iterator[tuple[int, str]]:
    """HTML comments, found with ``str.find`` (linear even for "<!--" repeated without an end)."""
    start = text.find("<!--")
    while start != -1:
        end = text.find("-->", start + 4)
        if end == -1:
            return
        yield start, text[start + 4 : min(end, start + 4004)]
        start = text.find("<!--", end + 3)


def _tags(doc: Doc) -> Iterator[Finding]:
    opened: dict[str, int] = {}
    closed: set[str] = set()
    for match in islice(_TAG.finditer(doc.text), 4 * MATCH_BUDGET):
        name = match.group(2).lower()
        if name in _HTML_TAGS:
            continue
        if match.group(1):
            closed.add(name)
        else:
            opened.setdefault(name, match.start())
    for name, start in opened.items():
        paired = name in closed
        where = doc.where(start)
        if name in _STRONG_TAGS:
            yield Finding("hidden_block", where)
        elif name in _TURN_TAGS:
            yield Finding("fake_turn", where, 1.0 if paired else 0.4)
        elif name in _BLOCK_TAGS:
            yield Finding("hidden_block", where, 1.0 if paired else 0.4)
        elif paired:
            yield Finding("markup_block", where)
