"""A person's stores of data, taken whole (issue 18, batch W): what ``_gather`` reads as a source.

A phone or a computer keeps a few stores of a person's life that platforms guard one by one
behind a permission: the contacts, the messages, the call log, the photos, the calendar, the
browsing and location history, health records. A store *taken whole* — "the full address book",
"all of their photos", "the last 50 SMS", "the user's call log" — is never what an input of an
unrelated tool needs, whatever the input is called (an input named for the store only names the
drop box). Only a tool whose job is that store (its name and description, not the input's own
text) has a use for it: a contacts exporter for the contacts, a gallery tool for the photos.
"""

from __future__ import annotations

import re

from toolpool.vetting.screener._guard import compiled

__all__ = ["unneeded_store"]

# Each store: the words that name it as a collection, and the words of a job that needs it.
_STORES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        r"contacts|contact\s+(?:book|list|cards)|address\s*books?|phone\s*books?",
        compiled(r"contact|address\s*book|phone\s*book|crm|directory|vcard"),
    ),
    (
        r"(?:text|sms|chat|direct|private)\s+messages|sms(?:es)?|texts|inbox(?:es)?|e-?mails|messages|"
        r"message\s+history|chats",
        compiled(r"messag|\bsms|\btext(?:s|ing)?\b|inbox|e-?mail|\bmail|chat"),
    ),
    (
        r"call\s+(?:logs?|history|records|lists?)|calls",
        compiled(r"\bcall\s+(?:log|histor)|dialer|phone\s+calls"),
    ),
    (
        r"photos|photo\s+(?:library|albums?|roll)|pictures|gallery|camera\s+roll|videos",
        compiled(r"photo|picture|image|gallery|camera|video|album"),
    ),
    (
        r"calendars?|appointments|agenda",
        compiled(r"calendar|appointment|schedul|meeting|agenda|event|booking"),
    ),
    (
        r"(?:browsing|search|location|web|watch|listening|purchase)\s+history|visited\s+(?:sites|pages)|bookmarks",
        compiled(r"histor|brows|bookmark|locat|track|order"),
    ),
    (
        r"(?:health|medical|fitness)\s+(?:data|records|history)",
        compiled(r"health|medic|fitness|patient|clinic"),
    ),
)
# Taken whole: "full", "all of", "every"; a count of the latest ("the last 20"); or someone's store as
# one thing ("the driver's contact book", "their call log", "the phone's camera roll").
_OWNER = r"(?:their|your|his|her|(?:the\s+)?[a-z]+'s)\s+"
_LATEST = r"(?:last|latest|recent|past|newest|first)\s+(?:\d+|few|several|dozen|hundred|thousand)\s+"
_WHOLE = (
    rf"(?:(?:full|entire|whole|complete|all|every)\s+(?:of\s+)?(?:the\s+)?(?:{_OWNER})?|{_OWNER}(?:{_LATEST})?|{_LATEST})"
    r"(?:(?:full|entire|whole|complete|saved|stored|recent|own|phone|device)\s+)?"
)
_TAKEN = [(compiled(rf"\b{_WHOLE}(?:{store})\b"), job) for store, job in _STORES]


def unneeded_store(span: str, purpose: str) -> bool:
    """Does ``span`` (lower case) take a store of the person's data whole, one that the tool's job
    (``purpose``: its name and description, lower case) does not name?"""
    return any(taken.search(span) and not job.search(purpose) for taken, job in _TAKEN)
