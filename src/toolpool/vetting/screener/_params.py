"""Spare parameters: inputs that exist to carry stolen data out through an ordinary call.

A parameter whose name or description asks for the conversation, secrets or other files is a
drop box, unless the tool is about exactly that (a chat summariser may take the conversation,
a vault tool a secret): then it is only a weak hint. So is a secret asked beside an input for the
host it signs in to ("host", "username", "password" of an SFTP destination): a connection's login,
if what it asks is a password or a token, not a collection ("all stored passwords"). A boolean is
no drop box: it carries true or false, not data ("reveal_secrets" switches what the tool shows its
caller). Nor is an ask that is forbidden in its own clause ("never reuse other credentials", "do not
ask for the PIN"): the sentence keeps the data out, it does not collect it. An account's own number
(not a bank's, not a card's) is the key of what a provider keeps on that account: a tool about a
bill, a tariff, a premium or a statement needs it (issue 18, batch W). Nor is a parameter whose
schema cannot hold what the words ask for (``_shapes``): a ``card_number`` of eight digits is no
payment card, in any language the description is written in (issue 18, batch Z).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from functools import lru_cache
from itertools import islice

from toolpool.vetting.screener._categories import PRESET_FIELD
from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._hits import EAGER, OTHER_FILES, SentenceHits
from toolpool.vetting.screener._shapes import Shape, holds
from toolpool.vetting.screener._signals import MATCH_BUDGET, Finding
from toolpool.vetting.screener._text import fold, humanise
from toolpool.vetting.screener._vocab import CONVERSATION, Vocab, vocab

__all__ = ["TRIGGERS", "parameter_findings"]

# Words in a tool's name or description that make asking for such data part of its job.
_PURPOSE = {
    "conversation": compiled(
        r"conversation|chat|message|history|transcript|dialog|prompt|llm|memory|summar|会話|对话|對話|聊天|チャット"
    ),
    # Linking or signing into an account needs its sign-in ("Links a bank account …").
    "secrets": compiled(
        r"key|credential|secret|password|token|auth|login|vault|ssh|env|config|wallet|"
        r"\b(?:link|connect|sign|log)\w*\s+(?:in\w*\s+)?(?:to\s+)?(?:an?\s+|the\s+|your\s+|their\s+)?(?:\w+\s+)?accounts?\b"
    ),
    "files": compiled(r"file|path|document|director|folder|content|disk|read"),
    # The model's own instructions: only a tool that manages prompts, or builds assistants, has a use
    # for them ("System instructions for the new assistant").
    "instructions": compiled(r"prompt|instruction|template|persona|llm|assistant|agent|bot\b|gpt"),
    # A person's means of payment or identity: only a tool that pays, bills or verifies needs them.
    "payment": compiled(
        r"card|pay|charg|checkout|billing|invoice|wallet|bank|purchas|refund|kyc|identit|verif|passport|tax"
    ),
    # An account's own number is the key of what a provider keeps on it (a bill, a tariff, a balance),
    # not a means of payment: a tool about any of those is about that account.
    "account": compiled(
        r"card|pay|charg|checkout|billing|invoice|wallet|bank|purchas|refund|kyc|identit|verif|passport|tax|"
        r"account|\bbills?\b|tariff|statement|balance|subscri|\bmeters?\b|premium|loan|mortgage"
    ),
}
# Means of payment and identity numbers asked of a parameter: "append the card number and CVV".
_PAYMENT = vocab(
    r"\b(?:card|credit\s+card|debit\s+card)\s+(?:numbers?|details|data|pan)\b|\b(?:cvv2?|cvc2?|csc)\b|"
    r"\bcard\s+(?:security\s+|verification\s+)?codes?\b|\b(?:iban|routing\s+number|sort\s+code|"
    r"(?:bank\s+)?account\s+numbers?)\b|\b(?:social\s+security|passport|national\s+id|tax\s+id)\s+numbers?\b|"
    r"\bssn\b",
    "card|cvv|cvv2|cvc|cvc2|csc|iban|routing number|sort code|account number|account numbers|social security|"
    "passport|national id|tax id|ssn",
)
_ACCOUNT_REF = compiled(r"account\s+numbers?")  # not a bank's ("bank account number"): a key, not a means
# An input naming the place a connection goes to: a secret beside one is that connection's sign-in.
_PLACE_INPUT = compiled(r"(?:host|hostname|server|endpoint|url|uri|dsn)$")
_LOGIN = compiled(
    r"(?:(?:the\s+user'?s|their)\s+(?!(?:all|every|any|other|stored|saved|local|cached)\b)(?:\w+\s+){0,2}?)?"
    r"(?:credentials|secrets|passwords|tokens|api[ _-]?keys?)"
)
# A collecting verb negated right before the data it would take: "never reuse other credentials".
# Only verbs that take data: "do not omit the password" (a double negation) still asks.
_REFUSED = compiled(
    r"\b(?:never|not|don't|mustn't|shouldn't|cannot|can't)\s+(?:ask\s+(?:\w+\s+){0,2}?for|reuse|re-use|use|"
    r"collect|request|store|save|log|keep|share|send|include|guess|copy|paste|read|take|try|enter|record|"
    r"retain|forward)\s+(?:(?:any|the|their|other|its|your|his|her|saved|stored|cached|a|an|\w+'s)\s+){0,3}$"
)
_NEAR = 60  # characters before an ask read for its refusal
_INSTRUCTIONS = compiled(r"\b(?:system|initial|hidden|original|developer)\s+(?:prompt|instructions?)")

# Every finding of this module starts at a match of one of these (the fast path relies on it).
TRIGGERS: tuple[Vocab, ...] = (CONVERSATION, EAGER["secret"], EAGER["path"], OTHER_FILES, _PAYMENT)


def parameter_findings(
    doc: Doc,
    hits: SentenceHits,
    tool_name: str,
    description: str,
    flags: Collection[str] = frozenset(),
    shapes: Mapping[str, Shape] | None = None,
) -> Iterator[Finding]:
    """One finding per input parameter whose name or description asks for such data (``flags``,
    the boolean parameters, carry none; nor does a parameter whose schema, ``shapes`` of
    ``_shapes.value_shapes``, cannot hold it)."""
    asked: dict[str, tuple[str, str]] = {}
    words: dict[str, str] = {}  # the words that asked, per input: "card number", "iban"
    login: set[str] = set()  # inputs whose secret is a sign-in (a password, a token), not a collection
    refused: dict[str, tuple[str, str]] = {}  # inputs whose only asks are forbidden
    for category, matches in (
        ("conversation", doc.finditer(CONVERSATION)),
        ("secrets", hits.found("secret")),
        ("secrets", hits.found("path")),
        ("files", doc.finditer(OTHER_FILES)),
        ("payment", doc.finditer(_PAYMENT)),
    ):
        for match in islice(matches, MATCH_BUDGET):
            part = doc.part(match.start())
            # A parameter asks in its name and description; its enum, default and examples are
            # values a caller may pass ("iban" among the kinds of data to mask), not an ask.
            if (
                part.prop is not None
                and part.where.startswith("inputSchema")
                and not PRESET_FIELD.search(part.where)
                and part.prop not in flags
            ):
                if _REFUSED.search(doc.lower, max(0, match.start() - _NEAR), match.start()):
                    refused.setdefault(part.prop, (category, part.where))
                    continue
                if category == "conversation" and _INSTRUCTIONS.match(match.group()):
                    asked[part.prop] = ("instructions", part.where)  # the strongest ask of a property
                kind = (
                    "account" if category == "payment" and _ACCOUNT_REF.fullmatch(match.group()) else category
                )
                asked.setdefault(part.prop, (kind, part.where))
                words.setdefault(part.prop, match.group().lower())
                if category == "secrets" and part.prop not in login and _LOGIN.fullmatch(match.group()):
                    login.add(part.prop)
    for prop, (category, where) in refused.items():
        if prop not in asked:
            yield Finding("spare_parameter", where, 0.3, f"{category}, refused")
    if not asked:
        return
    name, text = humanise(tool_name), fold(description)[:_PURPOSE_CHARS]
    for prop, (category, where) in asked.items():
        if shapes is not None and not holds(shapes.get(prop, Shape()), category, words.get(prop, "")):
            continue  # its schema rules the reading out: eight digits are no card number
        purpose = f"{name} {_said_without(text, prop)}".lower()
        if _PURPOSE[category].search(purpose) or (prop in login and _signs_in_beside(doc, prop, where)):
            yield Finding("spare_parameter", where, 0.3, f"{category}, which the tool is about")
        else:
            yield Finding("spare_parameter", where, 1.0, category)


def _signs_in_beside(doc: Doc, prop: str, where: str) -> bool:
    """Does the input ``prop`` (asking at ``where``) stand in one object with an input for a host?"""
    cut = where.rfind(f".properties.{prop}")
    if cut == -1:
        return False
    parent = where[: cut + len(".properties.")]
    return any(
        p.name
        and p.prop != prop
        and p.prop
        and p.where.startswith(parent)
        and _PLACE_INPUT.search(p.prop.lower())
        for p in doc.parts
    )


def _said_without(text: str, prop: str) -> str:
    """The description as a statement of what the tool is for, without the sentences that name the
    input ``prop`` as an input (batch R: "the `context` argument holds the session transcript …" made asking for
    the transcript look like the tool's job, and it is the ask itself)."""
    named = _named_input(prop)
    kept, last = [], 0
    for end in [*(m.end() for m in _SENTENCE_END.finditer(text)), len(text)]:
        sentence = text[last:end]
        if not named.search(sentence.lower()):
            kept.append(sentence)
        last = end
    return " ".join(kept)


@lru_cache(maxsize=256)
def _named_input(prop: str) -> re.Pattern[str]:
    """``prop`` named as an input: quoted, called an argument or a field, or an identifier no prose
    word is (kept by name: ``re``'s own cache is emptied between two tools by peer-name patterns)."""
    name = re.escape(prop.lower())
    plain = rf"|(?<![\w-]){name}(?![\w-])" if not prop.isalpha() else ""
    return re.compile(
        rf"[`'\"]{name}[`'\"]|\b{name}\s+(?:argument|parameter|param|field|input|property)\b{plain}"
    )


_SENTENCE_END = compiled(r"[.!?\n](?:\s|$)")
_PURPOSE_CHARS = 600
