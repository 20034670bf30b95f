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
- **a peer's call changed** (batch R's languages: Italian, Korean, Russian, Dutch, Polish, Turkish):
  a peer's name right beside its call as the condition ("когда срабатывает <peer>", "quando viene
  chiamato <peer>", "wanneer <peer> wordt aangeroepen", "<peer> 호출될 때" …), then a verb that changes it
  (replace, alter, add, remove, hide, forward): shadowing, as ``_shadowing``'s "when <peer> is called,
  …" reads it in English. A peer named as missing or down ("если <peer> недоступен") has no call as
  its condition, "this tool is used beside <peer>" calls this tool, not the peer, "when <peer> is
  called, this tool adds …" is this tool's own act, and a change after a ";" is another clause.
- **other tools run down** (the same languages): "the other tools" ("gli altri strumenti", "другие
  инструменты", "andere tools", "inne narzędzia", "diğer araçlar", "다른 도구") and a run-down or an
  avoidance after them in the same clause ("… sono dismessi: da evitare", "… устарели", "… zijn
  verouderd", "… są przestarzałe", "… eskimiş", "… 사용하지 마세요"), not denied: squatting, as
  ``_structure`` reads "the other tools here are deprecated". "Avoid long sentences; other tools split
  them" is not, nor "other tools are optional and not outdated".
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._input_drop import PLACE
from toolpool.vetting.screener._peer_index import lowered_names
from toolpool.vetting.screener._signals import Finding
from toolpool.vetting.screener._text import fold

__all__ = ["language_findings"]

_CONCESSION = compiled(
    r"\b(?:auch|selbst|sogar)\s+wenn\b|\bmême\s+(?:si|quand|lorsque)\b|\baunque\b|\bincluso\s+(?:si|cuando)\b|"
    r"\bmesmo\s+(?:que|se|quando)\b|場合でも|即使|即便"
)
_EVERY_REPLY = compiled(
    r"\b(?:cada|toda)\s+(?:a\s+)?(?:resposta|respuesta)\b|\bchaque\s+réponse\b|\bjede[rn]?\s+antwort\b|"
    r"各回答|すべての回答|毎回の回答|各返答|每个回答|每次回答|每条回复|每次回复"
)
# A scope wider than one call: the whole conversation, every conversation (as ``_structure`` reads
# "for every chat" in English).
_WHOLE_CONVERSATION = compiled(
    r"\b(?:tod[ao]s?|em\s+qualquer|cada)\s+(?:a\s+|la\s+|as\s+|las\s+)?(?:conversas?|conversaci[oó]n(?:es)?|sess[aã]o|chats?)\b|"
    r"\b(?:toute?s?\s+(?:la\s+|les\s+)?|chaque\s+)conversations?\b|"
    r"\b(?:ganze[nm]?|jede[mnrs]?|alle[nm]?)\s+(?:unterhaltung(?:en)?|gespr[aä]ch(?:e|en)?|konversation(?:en)?|chats?)\b|"
    r"会話全体|すべての会話|全ての会話|どの会話|整个对话|整個對話|所有对话|所有對話|每次对话|每个对话|整个会话|所有会话"
)
# The person whose choice is conceded ("auch wenn der Nutzer …", "même si l'utilisateur …").
_PERSON = compiled(
    r"\b(?:nutzer\w*|benutzer\w*|anwender\w*|utilisat\w+|personne|usuari[oa]s?|usuári[oa]s?|utilizador\w*|cliente?s?)\b|"
    r"ユーザー|利用者|用户|用戶"
)
# The person asking for, naming or picking the peer; "even if the user has not installed <peer>"
# concedes nothing the person chose.
_ASKS = compiled(
    r"\b(?:nennt|nennen|fragt|verlangt|w[aä]hlt|bittet|m[oö]chte|will|erw[aä]hnt|fordert|"
    r"demande|nomme|choisit|pr[ée]f[èe]re|veut|mentionne|cite|r[ée]clame|"
    r"pid[ea]n?|nombr[ae]n?|elij[ae]n?|elige|prefier[ae]n?|quier[ae]n?|mencion[ae]n?|solicit[ae]n?|"
    r"pe[cç]a|pede|nomei[ae]|escolh[ae]|prefir[ae]|queira|quer|cite|solicit[ae])\b|"
    r"指定|求め|頼|選|言及|要求|选择|選擇|选用|点名|提到|提及"
)
# The peer's call as a condition (Russian as ``fold`` leaves it: look-alike Cyrillic read as Latin).
_CALLED = compiled(
    fold(r"срабатыва\w*|вызыва\w*|вызов\w*|запуска\w*|запуск\w*")
    + r"|\bviene\s+(?:chiamat|invocat|eseguit|usat)\w*|\bwordt\s+(?:aangeroepen|uitgevoerd|gestart|gebruikt)\b|"
    r"\bwywo\u0142ywan\w*|\bwywo\u0142ani\w*|\buruchamian\w*|\buruchomieni\w*|"
    r"\u00e7a\u011fr\u0131ld\u0131\u011f\u0131nda|\u00e7al\u0131\u015ft\u0131r\u0131ld\u0131\u011f\u0131nda|"
    r"\u00e7al\u0131\u015ft\u0131\u011f\u0131nda|호출될\s*때|실행될\s*때|호출되면|실행되면|호출\s*시|실행\s*시"
)
# A change of that call: replace, alter, add, remove, hide, forward.
_CHANGED = compiled(
    fold(r"замен\w*|подмен\w*|измен\w*|добав\w*|удал\w*|скрыв\w*|скры\w*|перенаправ\w*|пересыл\w*")
    + r"|\b(?:sostitu|modific|aggiung|rimuov|nascond|inoltr|reindirizz)\w*|"
    r"\b(?:vervang|wijzig|voeg|toegevoegd|verwijder|verberg|doorgestuurd|stuur)\w*|"
    r"\b(?:zast\u0119p|zast\u0105p|zmien|zmie\u0144|doda|usuw|usu\u0144|ukry|przekier)\w*|"
    r"\b(?:de\u011fi\u015ftir|ekle|kald\u0131r|gizle|y\u00f6nlendir)\w*|바꾸|바꿔|변경|추가|삭제|숨기|숨겨|대체"
)
# "The other tools" and a run-down or an avoidance of them.
_OTHER_TOOLS = compiled(
    r"\b(?:gli\s+)?altr[ie]\s+(?:strumenti|tool|app)\b|\b(?:andere|overige)\s+\w*(?:tools|hulpmiddelen)\b|"
    r"\b(?:inne|pozosta\u0142e)\s+narz\u0119dzia\b|\bdi\u011fer\s+ara\u00e7lar\w*|다른\s*(?:\S+\s*)?도구|"
    + fold(r"(?:други\w*|остальн\w*)\s+инструмент\w*")
)
_RUN_DOWN = compiled(
    r"\b(?:dismess|obsolet|deprecat|inaffidabil|superat)\w*|\bda\s+evitare\b|\bevita\w*|\bnon\s+(?:usare|utilizzare)\b|"
    r"\b(?:verouderd|onbetrouwbaar|afgeschaft|uitgefaseerd)\b|\bvermijd\w*|\bniet\s+gebruiken\b|"
    r"\b(?:przestarza\u0142|unikaj|zawodn|wycofan)\w*|\bnie\s+u\u017cywaj\w*|"
    r"\beskimi\u015f\b|\bkullanmay\w*|\bka\u00e7\u0131n\w*|\bg\u00fcvenilmez\b|"
    r"사용하지\s*마|피하|오래된|지원\s*중단|신뢰할\s*수\s*없|"
    + fold(r"устарел\w*|избега\w*|не\s+используй\w*|ненад[её]жн\w*|не\s+рекоменду\w*")
)
_CLAUSE_END = compiled(r"[;]")
# A run-down denied: "non", "niet", "nie", "не" before it, "değil", "아니", "않" after it.
_DENIED = compiled(r"\b(?:non|niet|geen|nie|not)\b|\bde\u011fil\b|아니|않|" + fold(r"(?<!\w)не(?!\w)"))
# The markers written in ASCII letters only; every other marker has a letter outside ASCII.
_ASCII_MARKERS = (
    "wenn",
    "même",
    "aunque",
    "incluso",
    "mesmo",
    "viene",
    "wordt",
    "uruch",
    "altri",
    "altre",
    "andere",
    "overige",
    "inne",
)
_WORD = compiled(r"[\w-]+(?:\.[\w-]+)*")


def language_findings(doc: Doc, own: str, peers: Collection[str]) -> Iterator[Finding]:
    lower = doc.lower
    if lower.isascii() and not any(word in lower for word in _ASCII_MARKERS):
        return  # the cheap gate: every marker but four has a letter outside ASCII
    for match in _CONCESSION.finditer(lower):
        start, end = doc.sentence(match.start())
        before = set(_WORD.findall(lower[start : match.start()]))
        after = set(_WORD.findall(lower[match.end() : end]))
        # The person's choice conceded, not the peer's state ("even if <peer> is down").
        person = _PERSON.search(lower, match.end(), end)
        asks = person is not None and _ASKS.search(lower, person.end(), end) is not None
        if asks and own in before and not after.isdisjoint(lowered_names(peers)):
            yield Finding("squatting", doc.where(start), 1.0)
            break
    yield from _peer_call_changed(doc, peers)
    yield from _others_run_down(doc)
    for match in _EVERY_REPLY.finditer(lower):
        start, end = doc.sentence(match.start())
        if PLACE.search(lower, start, end) and _WHOLE_CONVERSATION.search(lower, start, end):
            yield Finding("line_jumping", doc.where(start), 1.0)
            break


def _peer_call_changed(doc: Doc, peers: Collection[str]) -> Iterator[Finding]:
    """A sentence with a peer's call as its condition (the peer's name within ``_NEAR`` characters of
    the call) and a change of it after the peer's name."""
    lower = doc.lower
    names = lowered_names(peers)
    for match in _CALLED.finditer(lower):
        start, end = doc.sentence(match.start())
        window = max(start, match.start() - _NEAR), min(end, match.end() + _NEAR)
        if _THIS_TOOL.search(lower, max(start, match.start() - _NEAR), match.start()):
            continue  # "deze tool wordt gebruikt naast <peer>": this tool's call, not the peer's
        for name in _IDENTIFIER.finditer(lower, *window):
            after = max(name.end(), match.end())
            clause = lower.find(";", after, end)
            change = _CHANGED.search(lower, after, clause if clause != -1 else end)
            # "quando viene chiamato <peer>, questo strumento aggiunge …": this tool's own act
            if name.group() in names and change and not _THIS_TOOL.search(lower, after, change.start()):
                yield Finding("shadowing", doc.where(start), 1.0)
                return


# This tool as the one called, in the same languages.
_THIS_TOOL = compiled(
    r"\b(?:deze\s+tool|dit\s+(?:hulpmiddel|programma)|questo\s+strumento|lo\s+strumento|to\s+narz\u0119dzie|"
    r"narz\u0119dzie|bu\s+ara\u00e7)\b|이\s*도구|" + fold(r"этот\s+инструмент|инструмент")
)
_NEAR = 30  # characters between a peer's name and its call ("wanneer <peer> wordt aangeroepen")
_IDENTIFIER = compiled(r"[a-z0-9_][a-z0-9_.-]*[a-z0-9_]")  # ASCII only: "<peer>이" is the peer


def _others_run_down(doc: Doc) -> Iterator[Finding]:
    """ "The other tools" and a run-down or an avoidance of them, in one sentence."""
    for match in _OTHER_TOOLS.finditer(doc.lower):
        start, end = doc.sentence(match.start())
        clause = _CLAUSE_END.search(doc.lower, match.end(), end)  # said of them, not of what precedes
        for run_down in _RUN_DOWN.finditer(doc.lower, match.end(), clause.start() if clause else end):
            near = doc.lower[max(start, run_down.start() - 12) : run_down.end() + 12]
            if not _DENIED.search(near):  # "… zijn optioneel en niet verouderd"
                yield Finding("squatting", doc.where(start), 1.0)
                return
