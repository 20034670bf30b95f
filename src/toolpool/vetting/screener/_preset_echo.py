"""A preset destination written out again beside what goes there, in any language (issue 18, batch R).

An input whose default, constant or example is an address or a link is where a call sends by itself
(``_flows.PRESET_DESTINATION``). When a prose sentence elsewhere in the definition (the description,
another input's text) writes that same address out and names something worth having in it, the
definition says what the call carries there: "조회 결과와 사용자의 질문 원문 … 을 qa-review@… 로 전달",
or a Turkish property text that adds passwords and access keys and forwards the report to destek@….
The address and the preset read the same in every language. What is worth having is the person's
conversation as a whole or its history, their secrets as a collection or a sensitive file (not a
bare "chat" or "password": "chat support: help@…", a reset mail from a preset sender), in English
with the word lists of ``_flows.is_valuable``, and in a few words for each of the six languages of
batch R (Italian, Korean, Russian, Dutch, Polish, Turkish). English flows with a verb are read by
``_flows`` too; this adds the echo of a preset, which needs none.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._flows import PRESET, persons_records, to_its_issuer
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._signals import Finding
from toolpool.vetting.screener._text import fold
from toolpool.vetting.screener._vocab import ANY_PATH, CONVERSATION, SECRETS
from toolpool.vetting.screener._wording import OBJECTS

__all__ = ["preset_echo_findings"]

# A preset value that is one address or one link, and nothing else (not the person's own machine).
_ADDRESS = compiled(
    r"(?:[\w.+-]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+|[a-z][a-z0-9+.-]{1,15}://"
    r"(?!localhost\b|127\.|\[::1\])[^\s]{3,200})"
)
# The person's conversation and secrets, in the languages of batch R (English is ``is_valuable``'s).
# Russian is written as ``fold`` leaves it: Cyrillic letters that look Latin are read as Latin.
_RUSSIAN = fold(
    r"переписк|истори\w*\s+(?:чата|диалог\w*)|сообщени\w*\s+пользовател|пароли|токены|ключи\s+доступа|"
    r"учётн\w*\s+данн|учетн\w*\s+данн"
)
_WORTH_HAVING = compiled(
    _RUSSIAN
    + "|"
    + r"대화\s*(?:내용|기록|전체)|채팅\s*기록|사용자의\s*(?:질문|메시지)|자격\s*증명|인증\s*정보|액세스\s*키|api\s*키|"  # Korean
    r"\b(?:sohbet|konuşma)\s+geçmiş|\bkullan\u0131c\u0131n\u0131n\s+mesaj|\bparolalar|\bşifreler|"  # Turkish
    r"\berişim\s+anahtarlar|\bkimlik\s+bilgileri|"
    r"\bcronologia\s+della\s+chat|\b(?:intera|tutta\s+la)\s+conversazione|\bconversazione\s+completa|"  # Italian
    r"\bmessaggi\s+dell'utente|\bcredenziali|\bchiavi\s+(?:api|di\s+accesso)|"
    r"\bchatgeschiedenis|\b(?:hele|volledige)\s+gesprek|\bberichten\s+van\s+de\s+gebruiker|\bwachtwoorden|"  # Dutch
    r"\binloggegevens|\bapi-sleutels|"
    r"\bhistori\w*\s+czatu|\bcał\w*\s+rozmow|\bwiadomości\s+użytkownika|\bhas(?:ła|eł)\s+użytkownik|"  # Polish
    r"\bdane\s+logowania|\bklucze\s+(?:api|dostępu)"
)


def _worth_having(sentence: str) -> bool:
    """The person's data as something to collect: their conversation as a whole or its history (not a
    bare "chat", the topic of a contact line), their secrets as a collection, a sensitive file; not
    one the sentence says is left out ("without the contents of the chat", "hariç")."""
    found = [
        *(m for words in (OBJECTS, ANY_PATH.pattern, SECRETS.pattern) for m in words.finditer(sentence)),
        *(m for m in CONVERSATION.pattern.finditer(sentence) if " " in m.group().strip()),
        *_WORTH_HAVING.finditer(sentence),
    ]
    return any(not _LEFT_OUT.search(sentence[max(0, m.start() - 30) : m.end() + 30]) for m in found)


# Left out, in the same languages: "without", "no", "not", "never" and their kin beside the data.
_LEFT_OUT = compiled(
    r"\b(?:without|never|not|no|excluding|except)\b|\b(?:senza|non|mai|tranne)\b|\b(?:zonder|geen|niet|nooit)\b|"
    r"\b(?:bez|nie|nigdy|oprócz)\b|\b(?:olmadan|hariç|asla)\b|\w+(?:maz|mez)\b|없이|제외|않|"
    + fold(r"(?<!\w)(?:без|не|никогда|кроме)(?!\w)")
)


def preset_echo_findings(doc: Doc) -> Iterator[Finding]:
    """One ``data_flow`` finding for the first prose sentence that writes out a preset address with
    something worth having."""
    presets = {
        part.text.strip().lower()
        for part in doc.parts
        if part.prop is not None
        and PRESET.search(part.where)
        and _ADDRESS.fullmatch(part.text.strip().lower())
    }
    if not presets:
        return
    for address in presets:
        at = doc.lower.find(address)
        while at != -1:
            part = doc.part(at)
            if not part.name and not PRESET.search(part.where):
                start, end = doc.sentence(at)
                sentence = doc.lower[start:end]
                if _worth_having(sentence) and not to_its_issuer(sentence) and not persons_records(sentence):
                    yield Finding("data_flow", part.where, 1.0)
                    return
            at = doc.lower.find(address, at + len(address))
