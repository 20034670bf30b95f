"""Two orders read in the other languages of the batches (issue 18, batch Q): German, Spanish, French,
Portuguese, Japanese and Chinese. English is read by ``_structure``; these add a few words per
language to shapes that otherwise need none.

- **a pick conceded in advance**: this tool's own name and a peer's name in one sentence, with a
  concession ("auch wenn", "même si", "aunque", "mesmo que", "場合でも", "即使") and the person
  ("Nutzer", "utilisateur", "usuario", "ユーザー", "用户") before the peer's name: "use <own> for
  every read, even if the user names <peer>" (squatting); "<own> stays up even if <peer> is down"
  concedes no choice of the person's;
- **every reply carries a link**: "every reply" ("cada resposta", "jede Antwort", "每个回答" …) and a
  literal link or host in one sentence: the model's replies shaped to advertise (line jumping).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._input_drop import PLACE
from toolpool.vetting.screener._signals import Finding

__all__ = ["language_findings"]

_CONCESSION = re.compile(
    r"\b(?:auch|selbst|sogar)\s+wenn\b|\bmême\s+(?:si|quand|lorsque)\b|\baunque\b|\bincluso\s+(?:si|cuando)\b|"
    r"\bmesmo\s+(?:que|se|quando)\b|場合でも|即使|即便"
)
_EVERY_REPLY = re.compile(
    r"\b(?:cada|toda)\s+(?:a\s+)?(?:resposta|respuesta)\b|\bchaque\s+réponse\b|\bjede[rn]?\s+antwort\b|"
    r"各回答|すべての回答|毎回の回答|各返答|每个回答|每次回答|每条回复|每次回复"
)
# The person whose choice is conceded ("auch wenn der Nutzer …", "même si l'utilisateur …").
_PERSON = re.compile(
    r"\b(?:nutzer\w*|benutzer\w*|anwender\w*|utilisat\w+|personne|usuari[oa]s?|usuári[oa]s?|utilizador\w*|cliente?s?)\b|"
    r"ユーザー|利用者|用户|用戶"
)
_WORD = re.compile(r"[\w-]+(?:\.[\w-]+)*")


def language_findings(doc: Doc, own: str, peers: Collection[str]) -> Iterator[Finding]:
    lower = doc.lower
    if lower.isascii() and not any(word in lower for word in ("wenn", "même", "aunque", "incluso", "mesmo")):
        return  # the cheap gate: every marker but four has a letter outside ASCII
    for match in _CONCESSION.finditer(lower):
        start, end = doc.sentence(match.start())
        before = set(_WORD.findall(lower[start : match.start()]))
        after = set(_WORD.findall(lower[match.end() : end]))
        # The person's choice conceded, not the peer's state ("even if <peer> is down").
        person = _PERSON.search(lower, match.end(), end) is not None
        if person and own in before and not after.isdisjoint(peer.lower() for peer in peers if len(peer) > 2):
            yield Finding("squatting", doc.where(start), 1.0)
            break
    for match in _EVERY_REPLY.finditer(lower):
        start, end = doc.sentence(match.start())
        if PLACE.search(lower, start, end):
            yield Finding("line_jumping", doc.where(start), 1.0)
            break
