"""Conditions and questions marked without an opening word (for streams/domain/mood.py).

Many languages mark a condition at the end of its clause, not with an "if" before it:
Turkish by a suffix ("işi alırsam Berlin'e taşınacağım"), Korean by "-면"/"-으면"
("취직하면"), Japanese by たら, れば, なら ("仕事が決まったらベルリンに"), Chinese by 的话
("找到工作的话我就搬到柏林"); English and German put the verb first ("Should I get the
job, I'll move", "Had I known", "Sollte ich die Stelle bekommen, ..."). And a yes/no
question may have no opening at all ("Moving to Berlin next month?", "Still working at
Acme?"), or a closing word only (Turkish "mıyım", Vietnamese "không?", Thai ไหม).

Each marker here is chosen so that it is not an everyday word elsewhere: Turkish endings
of the first person or with a vowel before "r" (not "nurse", "course", Danish
"Andersen"), Korean endings of two syllables (not 라면 "ramen" or 화면 "screen"), Japanese
kana not followed by more hiragana of the same word (たらこ, あたらしい, はたらく).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from streams.domain.wording import (
    folded_words,
    normalise,
    phrase_ending,
    phrase_index,
    word_set,
)

# Turkish conditional verbs (folded: ı is i, ü is u): aorist + -sa/-se with a person
# ("alırsam", "içersem", "gelirsek"), the negative aorist ("olmazsa", "gelmezsem"), the
# third person after a back vowel ("olursa", "yaparsa"), and a few common ones.
_TURKISH_CONDITIONAL = re.compile(
    r"(?:[aeiu]r|[ae]z)s(?:am|em|ak|ek|aniz|eniz|alar|eler)$|[ae]zs[ae]$|^\w{2,}[aiu]rsa$"
)
_TURKISH_CONDITIONAL_WORDS = word_set(
    "varsa yoksa gelirse isterse verirse bilirse ederse giderse isem isek iseniz"
)


# Korean conditional endings (Hangul folds to its letters, so endings are compared as
# folded text).
def _joined(words: str) -> tuple[str, ...]:
    """Each word of a word list folded, its tokens joined (Thai, kana, Hangul endings)."""
    return tuple("".join(word) for word in folded_words(words))


_KOREAN_CONDITIONAL = _joined("으면 하면 되면 다면 려면 가면 오면 보면 나면 이라면")
# Closing a condition, as kana or Chinese characters, when no hiragana follows.
_TRAILING = phrase_index("的话 的話", phrases=("た ら", "だ ら", "な ら"))
# Before the kana or characters, another word: さようなら ("goodbye"), 说的话 ("the words
# said").
_NOT_CONDITIONS = tuple(normalise(w) for w in ("さよう", "さよ", "说", "說", "讲", "講"))
_E_ROW = frozenset(normalise(k) for k in "えけげせぜてでねへべぺめれ")
_BA = normalise("ば")
# "できれば" ("if I can": preferably), "よければ" (if you like): no condition of the told.
_BA_NOT_CONDITIONS = frozenset(normalise(w) for w in ("でき", "よけ", "良け"))
_HIRAGANA = re.compile("[\u3041-\u309f]")
# Verb-first conditions: "Should I get the job, ...", "Had I known, ...", "Sollte ich".
_INVERTING = word_set("should had were sollte hätte wäre mocht")
_SUBJECTS = word_set("i we he she they it ich wir er sie es ik")


def trailing_condition(words: Sequence[str], at: int, breaks: frozenset[int]) -> int:
    """How many tokens of a condition's closing mark end just before ``words[at]``: a
    conditional verb (one token) or a kana or Chinese ending; 0 if none."""
    if at <= 0:
        return 0
    last = words[at - 1]
    if (
        _TURKISH_CONDITIONAL.search(last)
        or last in _TURKISH_CONDITIONAL_WORDS
        or (len(last) > len(_KOREAN_CONDITIONAL[0]) and last.endswith(_KOREAN_CONDITIONAL))
    ):
        return 1
    joined_ok = at in breaks or at >= len(words) or not _HIRAGANA.match(words[at])
    if not joined_ok:
        return 0  # たらこ, あたらしい: the kana go on as one word
    phrase = phrase_ending(words, at, _TRAILING)
    if phrase is not None:
        before = "".join(words[max(0, at - 5) : at - len(phrase)])
        return 0 if before.endswith(_NOT_CONDITIONS) else len(phrase)
    if at < 2 or last != _BA or words[at - 2] not in _E_ROW:
        return 0
    return 0 if "".join(words[max(0, at - 4) : at - 2]) in _BA_NOT_CONDITIONS else 2


def any_trailing(words: Sequence[str], lo: int, hi: int, breaks: frozenset[int]) -> bool:
    """Whether a condition's closing mark ends anywhere in ``words[lo:hi]``."""
    return any(trailing_condition(words, at, breaks) for at in range(hi, lo, -1))


def inverted_condition(
    words: Sequence[str], first: int, start: int, breaks: frozenset[int]
) -> bool:
    """Whether the sentence from ``first`` opens with a verb-first condition ("Should I
    get the job,", "Had I known,") that ends, at punctuation, before ``words[start]``."""
    if start < first + 3 or words[first] not in _INVERTING:
        return False
    if words[first + 1] not in _SUBJECTS:
        return False
    return any(b in breaks for b in range(first + 3, start + 1))


# Conditions of more than a word, counted only opening the sentence with a clause of their
# own before the quote ("As long as the rent is low, I'll stay": not "My commute is as
# long as my workday", "the list you provided"); Swedish "om" only before its subject.
_OPENING_PHRASES = frozenset(
    tuple(p.split())
    for p in (
        "as long as", "so long as", "provided that", "provided i", "provided we",
        "providing that", "providing i", "on condition that", "con tal de que",
        "siempre y cuando", "pourvu que", "a condition que", "a condicion de que", "purche",
        "om jag", "om du", "om vi", "om ni", "om han", "om hon", "provided they",
        "provided he", "provided she", "providing they",
        "pourvu qu", "a condition qu", "con tal que", "a patto che", "unter der bedingung",
    )
)  # fmt: skip


_OPENING_FIRST = frozenset(p[0] for p in _OPENING_PHRASES)
_DURATION = word_set("have has had takes took")
# "if" words that are everyday words elsewhere ("Ha ha", "Kung Fu", German "Solange" a
# name): a condition only before a word of their own language, a verb or a subject:
# Hungarian "Ha megkapom az állást", Tagalog "Kung makukuha ko", "Solange sie mich".
_HU_PREFIXES = ("meg", "el", "ki", "be", "fel", "le", "at", "haza", "vissza")
_HU_ENDINGS = ("om", "em", "ok", "ek", "unk", "nak", "nek", "od", "ed", "ja", "i")
_TL_PREFIXES = ("ma", "na", "mag", "nag", "um", "pa")
_TL_WORDS = word_set("ako ikaw ka siya kami tayo kayo sila may wala hindi")
_DE_SUBJECTS = word_set("ich du er sie es wir ihr man")


def foreign_if(words: Sequence[str], first: int) -> bool:
    """Whether the sentence from ``first`` opens with Hungarian "ha", Tagalog "kung" or
    German "solange" before a word of their own language."""
    if first + 1 >= len(words):
        return False
    opening, nxt = words[first], words[first + 1]
    if opening == "ha":
        return len(nxt) > 4 and nxt.startswith(_HU_PREFIXES) and nxt.endswith(_HU_ENDINGS)
    if opening == "kung":
        return nxt in _TL_WORDS or (len(nxt) > 4 and nxt.startswith(_TL_PREFIXES))
    return opening == "solange" and nxt in _DE_SUBJECTS


def opening_condition(words: Sequence[str], first: int, start: int, breaks: frozenset[int]
                      ) -> bool:  # fmt: skip
    """Whether the sentence from ``first`` opens with a condition of several words ("As
    long as", "Provided that", "Om jag") whose clause ends before ``words[start]``."""
    if words[first] not in _OPENING_FIRST:
        return False  # the common case
    for phrase in _OPENING_PHRASES:
        if tuple(words[first : first + len(phrase)]) == phrase:
            after = words[first + len(phrase) : first + len(phrase) + 3]
            if phrase[1:2] == ("long",) and not _DURATION.isdisjoint(after):
                return False  # "As long as I've lived here,", "As long as it takes,"
            return any(b in breaks for b in range(first + len(phrase), start + 1))
    return False


# Words that make a question one the user asks the assistant, or not yes/no: a quote of
# it stands (streams/domain/mood.py).
_ASKING_OTHERS = phrase_index(
    "what where when who whom whose why how which you your wo was wie wann wer warum welche"
    " du dich dir ihr où quoi comment quand pourquoi qui quel quelle tu vous qué dónde cómo"
    " cuándo quién cuál usted tú что где как когда почему кто какой ты вы gdzie jak"
    " kiedy dlaczego kto ty wat waar hoe wanneer waarom jij jou onde quando você"
    " nerede neden nasıl kim sen siz mana siapa kapan bagaimana mengapa"
    " kenapa berapa kamu anda gì đâu nào sao bạn ماذا أين متى كيف لماذا أنت מה איפה מתי"
    " איך למה אתה את कहाँ कब कैसे क्यों कौन आप तुम 你 您 谁 誰 哪 几 幾 뭐 어디 언제 누가 왜"
    " 어떻게 무엇 몇 당신 どこ いつ なぜ 何 あなた",
    phrases=("什么", "什麼", "怎么", "怎麼", "多少", "だれ", "どう"),
)
_QUESTION_ENDINGS = _joined("까 냐")
# A question's closing word after a quote: with a question mark (Vietnamese "không?",
# Turkish "mi?"), or without one where it is only that (Thai ไหม, Turkish "mıyım").
_CLOSING_UNMARKED = frozenset(
    _joined(
        "ไหม มั้ย miyim mıyım muyum müyüm misin mısın musun müsün miyiz mıyız muyuz müyüz"
        " misiniz mısınız musunuz müsünüz midir mıdır mudur müdür"
    )
)
_CLOSING = _CLOSING_UNMARKED | frozenset(_joined("không chưa nhỉ mi mı mu mü"))
_ASKED_ONLY_OPENING = 1  # words before a quote of a question with no opening word


def asked_whole(words: Sequence[str], span: tuple[int, int, int, int], marked: bool) -> bool:
    """Whether the quote at ``span`` (sentence first, quote start, quote end, sentence
    last) is the user's yes/no question with no opening: the whole sentence but a word
    or a closing particle, ending with a question mark (``marked``), a Korean question
    ending or a closing word that only asks, and neither a question word nor the
    assistant in it."""
    first, start, end, last = span
    if start - first > _ASKED_ONLY_OPENING:
        return False
    closing = "".join(words[end:last])
    if closing and closing not in _CLOSING:
        return False
    if not (
        marked
        or closing in _CLOSING_UNMARKED
        or (not closing and words[last - 1].endswith(_QUESTION_ENDINGS))
    ):
        return False
    return not any(phrase_ending(words, at, _ASKING_OTHERS) for at in range(first + 1, last + 1))
