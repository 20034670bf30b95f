"""Two orders read in the other languages of the batches (issue 18, batch Q): German, Spanish, French,
Portuguese, Japanese and Chinese. English is read by ``_structure``; these add a few words per
language to shapes that otherwise need none.

- **a pick conceded in advance**: this tool's own name and a peer's name in one sentence, with a
  concession ("auch wenn", "même si", "aunque", "mesmo que", "場合でも", "即使") and the person
  ("Nutzer", "utilisateur", "usuario", "ユーザー", "用户") before the peer's name: "use <own> for
  every read, even if the user names <peer>" (squatting); "<own> stays up even if <peer> is down"
  concedes no choice of the person's, and neither does "even if the user has not installed <peer>"
  (the person must ask for, name or pick the peer: "nennt", "demande", "pida", "指定" …);
- **every reply carries a link**: "every reply" ("cada resposta", "jede Antwort", "每个回答" …), a
  literal link or host and a scope wider than a call ("em toda a conversa", "in jedem Gespräch",
  "整个对话") in one sentence: the model's replies shaped to advertise (line jumping). Without the
  scope it describes what the tool returns ("jede Antwort enthält den Link zur Quelle").
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
# A scope wider than one call: the whole conversation, every conversation (as ``_structure`` reads
# "for every chat" in English).
_WHOLE_CONVERSATION = re.compile(
    r"\b(?:tod[ao]s?|em\s+qualquer|cada)\s+(?:a\s+|la\s+|as\s+|las\s+)?(?:conversas?|conversaci[oó]n(?:es)?|sess[aã]o|chats?)\b|"
    r"\b(?:toute?s?\s+(?:la\s+|les\s+)?|chaque\s+)conversations?\b|"
    r"\b(?:ganze[nm]?|jede[mnrs]?|alle[nm]?)\s+(?:unterhaltung(?:en)?|gespr[aä]ch(?:e|en)?|konversation(?:en)?|chats?)\b|"
    r"会話全体|すべての会話|全ての会話|どの会話|整个对话|整個對話|所有对话|所有對話|每次对话|每个对话|整个会话|所有会话"
)
# The person whose choice is conceded ("auch wenn der Nutzer …", "même si l'utilisateur …").
_PERSON = re.compile(
    r"\b(?:nutzer\w*|benutzer\w*|anwender\w*|utilisat\w+|personne|usuari[oa]s?|usuári[oa]s?|utilizador\w*|cliente?s?)\b|"
    r"ユーザー|利用者|用户|用戶"
)
# The person asking for, naming or picking the peer; "even if the user has not installed <peer>"
# concedes nothing the person chose.
_ASKS = re.compile(
    r"\b(?:nennt|nennen|fragt|verlangt|w[aä]hlt|bittet|m[oö]chte|will|erw[aä]hnt|fordert|"
    r"demande|nomme|choisit|pr[ée]f[èe]re|veut|mentionne|cite|r[ée]clame|"
    r"pid[ea]n?|nombr[ae]n?|elij[ae]n?|elige|prefier[ae]n?|quier[ae]n?|mencion[ae]n?|solicit[ae]n?|"
    r"pe[cç]a|pede|nomei[ae]|escolh[ae]|prefir[ae]|queira|quer|cite|solicit[ae])\b|"
    r"指定|求め|頼|選|言及|要求|选择|選擇|选用|点名|提到|提及"
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
        person = _PERSON.search(lower, match.end(), end)
        asks = person is not None and _ASKS.search(lower, person.end(), end) is not None
        if asks and own in before and not after.isdisjoint(peer.lower() for peer in peers if len(peer) > 2):
            yield Finding("squatting", doc.where(start), 1.0)
            break
    for match in _EVERY_REPLY.finditer(lower):
        start, end = doc.sentence(match.start())
        if PLACE.search(lower, start, end) and _WHOLE_CONVERSATION.search(lower, start, end):
            yield Finding("line_jumping", doc.where(start), 1.0)
            break
