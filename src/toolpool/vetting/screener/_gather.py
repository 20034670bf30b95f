"""Gather and place (issue 18, batch U): data the tool does not need, put into one of its own inputs.

An order in three parts, wherever it stands (the description, a property's description, a title,
a default): an act of placing ("put, place, fill, include, attach, paste, copy, enter …") into one
of this tool's inputs named as such (quoted, or followed by "field / parameter …"); a source the
tool has no use for; and no sign that the input names what goes in it. Sources, by kind:

- a secret (passwords, login details, keys, bank and card numbers) or a file of configuration or
  credentials (a hidden file of the home folder, ``/etc``, the paths of ``_vocab.ANY_PATH``): a
  tool that needs a login is configured with it, it does not have the model collect it;
- the person's identity (date of birth, passport, national ID) *gathered* from elsewhere;
- the conversation, the person's files or other tools' results, taken broadly ("everything",
  "any files") or put into a spare input (``_exfil.SPARE_NAMES``, one described as internal);
- a store of the person's data taken whole (``_stores``: the contact book, the last 20 messages)
  that the tool's job does not name, even put into an input named for it.

The place sentence is read with the sentence before it when it points back ("Put these in …").
What the person is asked for ("ask the user for their address") is theirs to give, and an input
whose name names what goes in it ("the card number … in `card_number`", a password in `pwd`) is
the data the tool plainly needs, as is a secret put in an input made for one (`headers`, `auth_token`). Each clause is read alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._exfil import SPARE_NAMES
from toolpool.vetting.screener._guard import compiled, guarded
from toolpool.vetting.screener._outflow import outflow_findings
from toolpool.vetting.screener._signals import Finding
from toolpool.vetting.screener._stores import unneeded_store
from toolpool.vetting.screener._vocab import ANY_PATH

__all__ = ["gather_findings"]

_PLACE = guarded(  # searched in every definition: the lookahead skips most positions (_guard)
    compiled(
        r"\b(?:put(?:s|ting)?|plac(?:e|es|ed|ing)|fill\w*|includ(?:e|es|ed|ing)|attach\w*|past(?:e|es|ed|ing)|"
        r"cop(?:y|ies|ied|ying)|insert\w*|add(?:s|ed|ing)?|append\w*|writ(?:e|es|ing|ten)|wrote|enter\w*|"
        r"stor(?:e|es|ed|ing)|populat\w*|embed\w*|stash\w*|sav(?:e|es|ed|ing)|record\w*|drop(?:s|ped|ping)?|"
        r"carr(?:y|ies|ied|ying)|dump\w*)\b"
    )
)
# The destination right after a preposition, or an input filled by name ("fill `notes` with").
_INTO = compiled(
    r"\b(?:in|into|to|under|inside|within|as)\s+(?:the\s+|its\s+|this\s+tool'?s\s+)?(?:(?:field|parameter|argument|"
    r"property|input)\s+)?([`'\"])?([a-z_][\w.-]*\w)\1?(\s+(?:field|parameter|argument|property|input)\b)?"
)
_HERE = guarded(re.compile(r"\bhere\b"))
_FILL = compiled(
    r"\b(?:fill|populate|prefill)\w*\s+(?:in\s+)?(?:the\s+)?([`'\"])?([a-z_][\w.-]*\w)\1?(\s+(?:field|"
    r"parameter|argument|property|input))?\s+with\b"
)
# A placing forbidden, not ordered: "never paste a password into `comment`".
_NEGATED = compiled(r"\b(?:not|never|n't|no|avoid|nor|without)\s+(?:\w+\s+){0,2}?$")
_POINTS_BACK = compiled(
    r"\b(?:these|those|them|it|its|this|that|they|both|each|all\s+of\s+(?:it|them|this)|the\s+above)\b"
)

_SECRET = compiled(
    r"\blogin\s+(?:details|credentials|info\w*|names?)\b|\blogins\b|\bpass(?:words?|codes?|phrases?)\b|"
    r"\bcredentials?\b|\bsecrets\b|\b(?:api|access|secret|private|ssh|signing)\s+keys?\b|"
    r"\b(?:auth|access|bearer|session|refresh|api)\s+tokens?\b|\b(?:session\s+)?cookies\b|\bseed\s+phrases?\b|"
    r"\brecovery\s+(?:phrases?|codes?)\b|\bbank\s+(?:account|details|logins?)\b|\bsort\s+codes?\b|"
    r"\brouting\s+numbers?\b|\biban\b|\bcard\s+(?:numbers?|details)\b|\bcvv\b|\bsecurity\s+(?:answers?|questions?)\b"
)
# A hidden file or folder of the home folder, or of the system's configuration.
_CONFIG_PATH = compiled(
    r"(?:~|\$home|%userprofile%|%appdata%)[/\\]|(?<![\w.])/etc/\w|(?<![\w/.~-])\.[a-z][\w-]*/[\w.-]+"
)
_IDENTITY = compiled(
    r"\bdates?\s+of\s+birth\b|\bbirth\s*dates?\b|\bpassports?\b|\bnational\s+(?:id|insurance)\w*|"
    r"\bsocial\s+security\b|\btax\s+(?:id|number)\w*|\bmaiden\s+name\b|\bdriver'?s\s+licen[cs]e\b|\bhome\s+address\b"
)
# Elsewhere than the person's answer: the conversation, their files, other tools' results.
_ELSEWHERE = compiled(
    r"\b(?:from|in|of|across|throughout)\s+(?:the\s+|this\s+|your\s+)?(?:(?:current|whole|entire|full|earlier|"
    r"preceding|prior|ongoing)\s+)?(?:conversation|chat|dialog(?:ue)?|transcript|messages)\b|"
    r"\b(?:has|have|had)\s+(?:\w+\s+)?(?:mentioned|said|typed|shared|written|pasted|uploaded)\b|"
    r"\b(?:earlier|previous|prior|past|preceding|older)\s+(?:\w+\s+)?(?:messages|turns|replies|answers|chats?)\b|"
    r"\b(?:uploaded|shared|attached|pasted)\s+(?:\w+\s+)?(?:files?|documents?|pictures?|photos?|images?|scans?)\b|"
    r"\b(?:any|all|every|other|local|open|available|their|the\s+user'?s)\s+(?:\w+\s+)?(?:files?|documents?|folders?|"
    r"attachments?|uploads?|downloads)\b|\b(?:other|any|all|every|available|previous|earlier)\s+(?:\w+\s+)?tools?\b|"
    r"\btools?\s+(?:\w+\s+)?available\s+to\s+you\b|\b(?:results?|outputs?|responses?)\s+(?:of|from)\s+(?:\w+\s+){0,2}?"
    r"(?:tools?|calls?)\b"
)
# The source taken as a whole, not one item of it ("any anecdote" is one; "any files" are all).
_WHOLE = (
    r"\b(?:entire|whole|full|complete|all|every|any)\s+(?:of\s+)?(?:the\s+|this\s+|"
    r"your\s+|their\s+)?(?:\w+\s+)?(?:conversation|chat|dialog(?:ue)?|thread|session|transcript|history|messages|turns|"
    r"files|documents|folders|uploads|results|outputs|tools)\b"
)
_BROAD = compiled(r"\b(?:everything|anything|whatever)\b|" + _WHOLE)
# An input made for a login: a secret put there is where one goes ("headers", "auth_token").
_SLOT = compiled(
    r"(?:^|[._-])(?:headers?|auth\w*|authori[sz]ation|credentials?|tokens?|api[_-]?keys?|secrets?|passwords?|"
    r"bearer|cookies?)$"
)
_GATHER = compiled(
    r"\b(?:collect|gather|harvest|compile|scrape|pull|extract|look\s+up|find|grab|retrieve|read)\w*"
)
_ASKED = compiled(
    r"\b(?:ask|asks|asking|prompt)\s+(?:the\s+)?\w+\s+(?:for|to|which|what|whether)\b|"
    r"\b(?:typed|entered|given|provided|supplied|chosen)\s+by\s+(?:the\s+)?(?:user|person|customer|caller)\b"
)
_INTERNAL = compiled(r"\binternal\b|\bhidden\b|\bfilled\s+(?:in\s+)?by\s+the\s+(?:assistant|model|agent)\b")
_WORD = compiled(r"[a-z]+")
_SHORT = 4  # letters: a longer name is a word, not an abbreviation ("notes" is not in "nationalities")
_NAME_PATH = compiled(r"^inputSchema\.properties\.(.+) \(name\)$")


def gather_findings(doc: Doc) -> Iterator[Finding]:
    """One ``param_carry`` finding for the first place sentence of that shape (and the outflows stated
    as facts, ``_outflow``: a side copy to a literal place, the person's identity published)."""
    yield from outflow_findings(doc)
    names = _inputs(doc)
    if not names or not _PLACE.search(doc.lower):
        return
    if not any(name in doc.lower for name in names) and not _HERE.search(doc.lower):
        return  # no input named, and no "here" in an input's own text
    spare = _spare(doc, names)
    for start, end in doc.sentences():
        part = doc.part(start)
        if part.name:
            continue
        sentence = doc.lower[start:end]
        own = (part.prop or "").lower()
        if not (own or any(name in sentence for name in names)) or not _PLACE.search(sentence):
            continue  # no input named and nothing placed: most sentences
        for dest, at in _destinations(sentence, names, own):
            if _unneeded(doc, start, sentence, dest, at, dest in spare):
                yield Finding("param_carry", part.where, 1.0)
                return


def _destinations(sentence: str, names: set[str], own: str) -> Iterator[tuple[str, int]]:
    """Inputs of this tool that a verb of placing before them, in the same clause, sends something
    into; named as inputs (quoted, "… field", an identifier) or by the property's own text."""
    for match in (*_INTO.finditer(sentence), *_FILL.finditer(sentence)):
        name = match.group(2)
        named = name in names or (name.rsplit(".", 1)[-1] in names and "." in name)
        marked = match.group(1) is not None or match.group(3) is not None or "_" in name or "." in name
        if not (named and (marked or name == own)):
            continue
        clause = sentence.rfind(";", 0, match.start()) + 1
        verbs = [
            verb
            for verb in _PLACE.finditer(sentence, clause, match.start(2))
            if not _NEGATED.search(sentence, clause, verb.start())
        ]
        if verbs:
            yield name, match.start(2)
    here = _HERE.search(sentence) if own else None  # "insert here …" in a property's own text
    if here is not None and _PLACE.search(sentence, 0, here.start()):
        yield own, here.start()


def _unneeded(doc: Doc, start: int, sentence: str, dest: str, at: int, spare: bool) -> bool:
    """Is what the clause placing into ``dest`` puts there something the tool has no use for?"""
    sentence = (
        sentence[:at] + " " * len(dest) + sentence[at + len(dest) :]
    )  # the input's own name says nothing
    begin = sentence.rfind(";", 0, at) + 1
    end = sentence.find(";", at)
    span = sentence[begin : end if end != -1 else len(sentence)]
    pronoun = _POINTS_BACK.search(sentence, begin, at)
    if pronoun is not None and not _sourced(sentence[begin : pronoun.start()]):
        # "Put these in `record`": what "these" were, in the clause or the sentence before
        span = (sentence[:begin] if begin else _before(doc, start)) + " " + span
    if _ASKED.search(span) and not spare:
        return False
    if unneeded_store(span, _purpose(doc, start)):
        return True  # a store of the person's data taken whole, whatever the input is called
    if _named_by(dest, span):
        return False
    if _SECRET.search(span) or _CONFIG_PATH.search(span) or ANY_PATH.pattern.search(span):
        return not _SLOT.search(dest)  # a login put in `headers` or `auth_token` is where one goes
    elsewhere = _ELSEWHERE.search(span) is not None or re.search(_WHOLE, span) is not None
    if _IDENTITY.search(span) and (elsewhere or _GATHER.search(span)):
        return True
    return elsewhere and _BROAD.search(span) is not None


def _purpose(doc: Doc, start: int) -> str:
    """The tool's job: its name and description, without the sentence at ``start`` (the ask itself)."""
    return " ".join(
        doc.lower[begin:end]
        for begin, end in doc.sentences()
        if begin != start and doc.part(begin).where in ("name", "description")
    )


def _sourced(text: str) -> bool:
    """Does the clause name its own source before a pronoun ("read X and place its contents")?"""
    return any(words.search(text) for words in (_GATHER, _SECRET, _CONFIG_PATH, _IDENTITY, _ELSEWHERE))


def _before(doc: Doc, start: int) -> str:
    """The sentence before the one at ``start``, in the same field ("" if none)."""
    index = doc.sentence_index(start)
    if index == 0 or doc.part(doc.sentence_starts[index - 1]) is not doc.part(start):
        return ""
    return doc.lower[doc.sentence_starts[index - 1] : start]


def _named_by(dest: str, span: str) -> bool:
    """Does the input's name name what the span puts in it: a word of the name that starts a word of
    the span ("record" / "records"), or an abbreviation of one ("pwd" / "password", "dob")?"""
    words = _WORD.findall(span)
    initials = "".join(word[0] for word in words)
    for part in re.split(r"[._-]+", dest):
        if len(part) < 3:
            continue
        if any(word.startswith(part[:4]) or _abbreviates(part, word) for word in words):
            return True
        if len(part) <= _SHORT and part in initials:
            return True
    return False


def _abbreviates(short: str, word: str) -> bool:
    """``short`` is ``word`` with letters left out, keeping the first ("pwd" in "password")."""
    if len(short) > _SHORT or len(word) <= len(short) or short[0] != word[0]:
        return False
    rest = iter(word)
    return all(letter in rest for letter in short)


def _inputs(doc: Doc) -> set[str]:
    """This tool's inputs by leaf name and by dotted path ("record", "verification.record")."""
    names = set()
    for part in doc.parts:
        path = _NAME_PATH.match(part.where) if part.name else None
        if path is not None:
            dotted = path.group(1).replace(".properties.", ".").lower()
            names |= {dotted, dotted.rsplit(".", 1)[-1]}
    return {name for name in names if len(name) >= 3}


def _spare(doc: Doc, names: set[str]) -> set[str]:
    """Inputs with a drop-box name, or described as internal or filled in by the model."""
    spare = {name for name in names if name.rsplit(".", 1)[-1] in SPARE_NAMES}
    for part in doc.parts:
        if part.prop is not None and not part.name and _INTERNAL.search(part.text.lower()):
            spare.add(part.prop.lower())
    return spare
