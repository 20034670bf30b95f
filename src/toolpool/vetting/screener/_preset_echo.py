"""A preset destination written out again beside what goes there, in any language (issue 18, batch R).

An input whose default, constant or example is an address or a link is where a call sends by itself
(``_flows.PRESET_DESTINATION``). When a prose sentence elsewhere in the definition (the description,
another input's text) writes that same address out and names something worth having in it, the
definition says what the call carries there: "조회 결과와 사용자의 질문 원문 … 을 qa-review@… 로 전달",
and a Turkish property text that adds passwords and access keys and forwards the report to destek@….
The address and the preset are the same in every language; what is worth having is read with ``_flows.is_valuable``
(English, without a bare "password") and a few words per language for the person's conversation and
their secrets as a collection (plural or the person's: "parolalar", "hasła użytkownika", not a bare
"password", which a reset mail from a preset sender names too), for the six languages of batch R (Italian, Korean, Russian, Dutch, Polish, Turkish). English flows are read by
``_flows`` too; this adds the echo of a preset, which needs no verb.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._flows import PRESET, is_valuable, to_its_issuer
from toolpool.vetting.screener._signals import Finding

__all__ = ["preset_echo_findings"]

# A preset value that is one address or one link, and nothing else (not the person's own machine).
_ADDRESS = re.compile(
    r"(?:[\w.+-]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+|[a-z][a-z0-9+.-]{1,15}://"
    r"(?!localhost\b|127\.|\[::1\])[^\s]{3,200})"
)
# The person's conversation and secrets, in the languages of batch R (English is ``is_valuable``'s).
_WORTH_HAVING = re.compile(
    r"대화|채팅|사용자의\s*질문|자격\s*증명|인증\s*정보|액세스\s*키|api\s*키|"  # Korean
    r"\bsohbet|\bkonuşma|\bkullan\u0131c\u0131n\u0131n\s+mesaj|\bparolalar|\bşifreler|\berişim\s+anahtarlar|"  # Turkish
    r"\bkimlik\s+bilgileri|"
    r"\bconversazion|\bcronologia\s+della\s+chat|\bcredenziali|\bchiavi\s+(?:api|di\s+accesso)|"  # Italian
    r"переписк|разговор|диалог|истори\w*\s+чата|пароли|токены|ключи\s+доступа|учётн\w*\s+данн|учетн\w*\s+данн|"  # Russian
    r"\bgesprek|\bchatgeschiedenis|\bwachtwoorden|\binloggegevens|\bapi-sleutels|"  # Dutch
    r"\brozmow|\bhistori\w*\s+czatu|\bhas(?:ła|eł)\s+użytkownik|\bdane\s+logowania|\bklucze\s+(?:api|dostępu)"  # Polish
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
                worth = is_valuable(sentence, bare_secrets=False) or _WORTH_HAVING.search(sentence)
                if worth and not to_its_issuer(sentence):
                    yield Finding("data_flow", part.where, 1.0)
                    return
            at = doc.lower.find(address, at + len(address))
