"""The not-English gate of the concept layer (issue 18, screen18): which strings it reads.

``foreign`` reads one string: mostly letters outside ASCII, or function words of other languages
that outnumber the English ones. ``may_be_foreign`` rules out a whole definition first, in about ten
microseconds: an English definition in ASCII (nearly all) takes exactly the screener's own path.
"""

from __future__ import annotations

from toolpool.vetting.screener._guard import compiled

__all__ = ["foreign", "may_be_foreign"]

# The gate: English function words ("a" and "do" are words of Portuguese, Spanish, Hungarian … too),
# those of other languages, and letters outside ASCII.
_ENGLISH = compiled(
    r"\b(?:the|an|of|to|and|or|is|are|be|for|in|on|with|this|that|it|by|as|if|not|no|you|your|any|"
    r"when|from|at|use|does|only|will|can|must|should|all|each|before|after|into|than|then|its|"
    r"their|they|we|our|has|have|was|were|here|there|which|what|who|how|also|but|so|per|via|e\.g)\b"
)
_WORDS = compiled(r"[^\W\d_]+")
_NON_ASCII_LETTER = compiled(r"[^\W\d_a-zA-Z]")
# Function words of the other Latin-script languages that English does not use ("os", "est",
# "mit", "per", "met", "com", "pro", "dos", "die" are left out: English text has them).
_OTHER_TEXT = (
    "de la le les los las des du der das den dem und ein eine einen nicht von zu ist f\u00fcr que "
    "qui para por pour avec sur dans une el lo con del della di che il gli sono una um uma n\u00e3o "
    "nao da \u00e9 och att som p\u00e5 inte \u00e4r ikke og til af er het een van voor niet zijn "
    "wordt jest nie si\u0119 sie ve bir bu ile i\u00e7in yang dan ke untuk dengan ini itu ng sa "
    "ang mga kwa wa za ya katika na kh\u00f4ng c\u1ee7a v\u00e0 l\u00e0 c\u00e1c cho ja ei ning "
    "je se si cu pe sau \u00een \u0219i c\u0103 det en aj ako az hogy egy nem \u00e9s ta ka "
    "\u00e8 \u00e0 au aux im auf zum zur bij ook mer fra kan eller \u00f6ver oraz lub jak oder "
    "aber wenn weil como pero muy tambi\u00e9n mas tamb\u00e9m anche sempre questo cette ces deze "
    "elke aan naar uit maar wanneer vir hierdie wat yn mae gyda wrth hefyd kui v\u00f5i mis oma ole "
    "v\u0259 il\u0259 \u00fc\u00e7\u00fcn ki d\u0259 "
    # screen21, languages added by reach: Javanese, Sundanese, Cebuano, Haitian Creole
    "kanggo karo ora iki kuwi saka marang uga jeung anu keur teu ieu kana tina nga dili kini alang "
    "gikan usab pou av\u00e8k sou l\u00e8 yon nou f\u00e8 "
    # screen21: the lexicon's other Latin-script languages (Baltic, South Slavic, Icelandic, Maltese,
    # Albanian, Irish, Basque, Hausa, Yoruba, Somali, Uzbek, Zulu, Galician; Luxembourgish and
    # Kinyarwanda, added after reading batch X: fitted), none an English word
    "ir yra kad arba kaip jei kai nuo tai j\u0173 \u0161\u012f i\u0161 \u012f ar vai kas lai uz "
    "ar\u012b tiek \u0161o ali ter kot tudi ili kao koji koje koja \u0161to iz od a\u00f0 me\u00f0 "
    "ekki fyrir sem e\u00f0a \u00fea\u00f0 \u00feegar g\u0127al minn jew huwa hija biex dhe n\u00eb "
    "t\u00eb p\u00ebr q\u00eb \u00ebsht\u00eb nj\u00eb ose agus chun leis n\u00f3 at\u00e1 ez edo "
    "dira baina cikin kuma wanda amma ati p\u00e9 w\u1ecdn t\u00e0b\u00ed iyo waa bilan uchun yoki "
    "emas futhi ukuthi noma kanye unha coa pola tam\u00e9n cando fir vun ouni g\u00ebtt awer ze "
    "kandi cyangwa uko buri "
    # screen23: the polite speech levels of Javanese (krama) and Sundanese (lemes)
    "kangge kaliyan saking menika punika ingkang dhateng boten mboten sampun sareng atanapi upami henteu "
    # screen23: Quechua, after batch AA used it (fitted)
    "ima mana manan ama nitaq chay chayqa kayqa hina hinaspa sapa tukuy ichaqa chaymanta "
    # §4bt: the frequent words of the major Latin-script languages beside their function words —
    # "every", "always", "never", "whole", "must", "without", "this" — so that a short order written
    # without accents ("Schick immer den ganzen Chat an …") outnumbers the English "in", "an", "a" it
    # shares. Left out as English words in tool text: todo(s), sin, poi, mai, al, nos, nas, dos,
    # sans, tout, cap, aus, dies, ya
    "ogni tutto tutta tutti tutte alla alle nella nelle nello dalla sulla nel dal sul degli delle "
    "ancora molto questa quello quella viene deve devono essere senza "
    "siempre toda todas nunca cuando donde debe deben hacia desde hasta este esta estos estas "
    "immer jede jeden jedes jeder ganz ganze ganzen bei nach wird werden sich sind ohne nur noch "
    "schon dann diese dieser diesen "
    "toujours chaque tous toute toutes jamais sont doit doivent leur leurs vous nous votre puis "
    "aussi "
    "ao aos pelo pela isso esse essa onde devem "
    "mereu tot toate fiecare pentru este sunt trebuie acest doar "
    "altijd nooit zonder worden moet moeten "
)
_OTHER_WORDS = tuple(_OTHER_TEXT.split())
_OTHER_FUNCTION_WORDS = compiled(r"(?<!\w)(?:" + "|".join(_OTHER_WORDS) + r")(?!\w)")
# Those written in ASCII letters: a definition in ASCII with none of them has no string to read.
_OTHER_ASCII = frozenset(word for word in _OTHER_WORDS if word.isascii())
_ASCII_WORD = compiled(r"[a-z]+")
_MIN_WORDS = 4  # shorter strings ("ISO currency code") are too short to tell
_MIN_LETTERS = 4
_LONGER = 8
_ENGLISH_SHARE = 0.12  # English prose has 0.3 to 0.5 of its words in ``_ENGLISH``
_ADDRESS = compiled(r"\S+(?:://|@)\S+|\S+\.\S*[a-z0-9]")
_FOREIGN_LETTERS = 0.3
_ACCENTED = 0.03  # letters with marks beyond this share: one foreign function word is enough


def may_be_foreign(lower: str) -> bool:
    """Whether a definition's lower-case text can hold a string that ``foreign`` reads as not
    English: a letter outside ASCII, or a function word of another language (about 10 µs)."""
    if not lower.isascii() and _NON_ASCII_LETTER.search(lower) is not None:
        return True
    return not _OTHER_ASCII.isdisjoint(_ASCII_WORD.findall(lower))


def foreign(text: str) -> bool:
    """Whether ``text`` is written in a language other than English (a cheap reading, per string).

    Mostly letters outside ASCII: yes. Otherwise the function words decide, links and addresses
    left out: those of other languages must outnumber the English ones, twice at least, or once in
    a longer string with almost no English ones (an identifier, a number or a terse English note is
    no evidence of another language); with letters that carry marks, they must only not be
    outnumbered. A longer string with a marked letter and no English function word at all is not
    English either (Quechua, whose function words are suffixes)."""
    words = _WORDS.findall(text)
    letters = sum(map(len, words))
    marked = 0 if text.isascii() else len(_NON_ASCII_LETTER.findall(text))
    if letters >= _MIN_LETTERS and marked > _FOREIGN_LETTERS * letters:
        return True
    lower = _ADDRESS.sub(" ", text.lower())
    count = len(_WORDS.findall(lower))
    if count < _MIN_WORDS:
        return False
    other, found = len(_OTHER_FUNCTION_WORDS.findall(lower)), _ENGLISH.findall(lower)
    # Two-letter English words are frequent words of languages written with marks (Finnish and Estonian
    # "on", Polish and Czech "to", Breton "an", Turkmen "at"): with a marked letter, only longer ones count.
    english = sum(len(word) > 2 for word in found) if marked else len(found)
    if marked > _ACCENTED * letters:
        return other >= english
    if marked and english == 0 and count >= _LONGER:
        return True  # eight words and more, a marked letter, not one English function word (Quechua)
    return other > english and (other >= 2 or (count >= _LONGER and english < _ENGLISH_SHARE * count))
