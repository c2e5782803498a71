"""Negation around a quote: words that turn what the user said into its opposite.

A quote the user negated before it in the same clause ("I do not really like coffee",
"I don't think I like coffee" for "like coffee"), just after it ("Ich mag meinen Job
nicht", "Je fume pas", Korean "좋아하지 않아요", Japanese "好きじゃない"), or with a negating
word left out of its middle ("I like coffee" from "I don't like coffee"), is not the
user's claim. A clause ends at punctuation and at a conjunction ("I'm not sure, but I
moved to Lisbon"), and an answering "no" before a pronoun negates nothing ("No I work at
Google now"). The lists cover the common negators of the languages people write to
assistants in, leaving out those that are everyday words in another language (Italian
"mai" is German "Mai", Romanian "nu" is Dutch "nu"); every entry is folded like the text
(wording.normalise), so case, accents, contractions and Hangul or kana decomposition do
not matter.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set

from streams.domain.affirming import affirming
from streams.domain.subclauses import NEGATORS_OWN, factive_before, in_a_clause_before
from streams.domain.wording import (
    ends_with_phrase,
    folded_words,
    normalise,
    phrase_ending,
    phrase_index,
    word_set,
)

_NEGATORS = (
    # English ("don't", "dont", "cannot" fold to "do not", "can not": wording.tokens)
    "not never no nor neither none nobody nothing nowhere"
    # German, Dutch, Scandinavian
    " nicht nie niemals kein keine keinen keinem keiner keines nichts niemand weder"
    " niet nooit geen niets inte ikke ej aldrig aldri ingen inget"
    # French, Spanish, Portuguese, Italian, Romanian
    " pas jamais rien aucun aucune ni non nunca jamás tampoco ningún ninguno ninguna"
    " nada nadie não nenhum nenhuma ninguém nem nessuno nessuna niente nulla"
    " niciodată nici"
    # Slavic, Greek, Turkish, Hungarian, Finnish
    " не ни никогда нет нельзя ничего никто ніколи ні nie nigdy żaden ani nikdy žádný"
    " δεν μην ποτέ όχι ούτε değil asla hiç hiçbir nem soha sosem ei eivät emme"
    # Indonesian, Malay, Tagalog, Vietnamese
    " tidak tdk gak ga gk nggak enggak ngga ndak kagak bukan belum blm jangan tiada tak"
    " hindi không chưa đừng chẳng"
    # Arabic, Persian, Hebrew, Hindi, Urdu, Bengali
    " لا لم لن ليس ليست لست لسنا لستم غير مش مب نه هرگز לא אין אף מעולם אינני איני"
    " नहीं मत نہیں نہ না নয় নি নই nahi nahin mat"
    # Korean (before the verb), Chinese, Thai
    " 안 못 아니 절대 전혀 不 没 沒 未 无 無 莫 勿 甭 ไม่ อย่า"
)
# Where a clause ends, besides punctuation: what follows it is said on its own.
_CONJUNCTIONS = (
    "but and or so because since when while although though however then yet aber und maar"
    " cuando quand quando wenn wanneer когда"
    " oder denn weil sondern doch mais et ou car donc pero y porque sino pues e ma ed"
    " però perché mas porém но и а или потому ale oraz lecz fakat ama ve tapi dan atau"
    " nhưng và 但 而 和 并 且 不过 แต่ และ لكن אבל लेकिन और 하지만 그리고 でも しかし そして"
)
# Negators that are everyday words in a language close by: French "pas" and "plus"
# (Dutch "pas" is "just", English "plus" adds), Tagalog "hindi" (the language), Malay
# "tak" (Polish "yes"), Vietnamese "chẳng" (a name), romanised Hindi "nahi" and "mat"
# (English "mat"). They negate only in a clause that holds a word of their own language.
_FRENCH = word_set("je j tu il elle on nous vous ils elles ne n c ça ai suis est sont fait")
_HINGLISH = word_set(
    "hoon hun hu hai hain tha thi mujhe mujhko mera meri mere hum ham tum aap yeh woh"
    " kar karo karna karta karti raha rahi rahe rehta rehti pasand bilkul abhi kabhi nahi"
    " nahin"
)
_OWN_LANGUAGE = {
    "pas": _FRENCH,
    "plus": _FRENCH,
    "hindi": word_set("ako ka ko siya kami tayo sila ang ng sa mga na po ito iyan ba"),
    "tak": word_set(
        "saya aku gue gua kamu dia kami kita mereka suka mau bisa ada punya tinggal kerja"
        " sudah lagi pernah yang ini itu juga makan minum pakai"
    ),
    "chang": word_set(
        "tôi tao mình bạn anh chị em nó họ chúng thích có là ở làm sống biết muốn được"
        " ăn uống gì đâu lắm cả ai nào"
    ),
    "nahi": _HINGLISH | word_set("main mein me"),
    "nahin": _HINGLISH | word_set("main mein me"),
    "mat": _HINGLISH,
}
# After what they negate, in the same clause: German, Dutch, Scandinavian, spoken French
# and Portuguese, Hindi, Bengali, Turkish (değil, değilim; yok "there is none").
_AFTER_WORDS = (
    "nicht nie niet nooit inte ikke aldrig pas plus jamais não नहीं ना না নয় নই নি yok nahi nahin"
)
# After what they negate: Korean verb endings, and Japanese ones (their kana are tokens).
_AFTER_PREFIXES = ("않", "못하", "못해", "못했", "아니", "없", "değil")
_AFTER_JOINED = (
    "ない",
    "なかった",
    "ません",
    "じゃない",
    "じゃなかった",
    "ではない",
    "くない",
    "いない",
    "いません",
    "ありません",
    "ではありません",
    "じゃありません",
    "ではなく",
    "じゃなく",
)


_NEGATOR_PHRASES = phrase_index(_NEGATORS)
_STOP_PHRASES = phrase_index(_CONJUNCTIONS)
_AFTER = frozenset(t for p in folded_words(_AFTER_WORDS) for t in p)
_AFTER_STARTS = tuple(normalise(p) for p in _AFTER_PREFIXES)
_AFTER_KANA = tuple(normalise(p).replace(" ", "") for p in _AFTER_JOINED)
# Negative endings a quote may not leave out of its middle, written as kana tokens.
_LEFT_OUT_KANA = (*_AFTER_KANA, normalise("なく"), normalise("ず"))
_SCOPE = 6  # words looked back within the clause; after, three words or eight characters
# "No, I work at Google now" (or without the comma) answers a question: its "no" does not
# negate what follows a subject pronoun, as Spanish "no tengo coche" does.
_ANSWERS = frozenset(["no", "non", "нет", "nao"])
_AFTER_A_NO = frozenset(
    t
    for p in folded_words(
        "i we you he she they it my our this that there yes je nous tu il elle on yo nosotros"
        " ella eu nos ele ela я мы ты он она они"
    )
    for t in p
)
# After "no", Spanish "he" and "nos" are a verb and an object ("No he tenido hijos", "No
# nos gusta"): an answer only when the quote begins with them.
_NOT_ALWAYS_PRONOUNS = frozenset(["he", "nos"])
# Words that open a clause of their own, and the verbs whose negation reaches into it.
_OPENERS = phrase_index(
    "what how where which who why whether that que qué quoi dass was wie wo ob что как где"
    " że co gdzie कि أن 什么"
)
_REACHING = word_set(
    "think thought believe believed sure want wanted expect suppose feel seem say said"
    " claim claimed mean meant denke glaube sicher pense crois sûr creo pienso seguro acho"
    " думаю хочу уверен myślę chcę 觉得 认为 想 true correct right case wahr vrai verdad"
    " verdade vero правда"
)
# What an after-negator may stand before without negating ("plus a dog", "pas loin",
# "nicht weit", "não sei se").
_NOT_NEGATED_NEXT = word_set("a an un une one my loin weit far mal précisément exactement sei w")
# Negators only just before the word they negate, being other words elsewhere: Arabic
# "ما" ("what" in a question, "not" before a verb in speech), Gulf "مو" (Persian "hair").
_JUST_BEFORE = frozenset(t for p in folded_words("ما مو") for t in p)


def negated_before(
    words: Sequence[str],
    start: int,
    breaks: Set[int] = frozenset(),
    names: Set[int] = frozenset(),
) -> bool:
    """Whether a negator stands before ``words[start]`` in its clause (a few words back,
    not past punctuation (``breaks``: indexes of the words that follow some) or a
    conjunction). A word capitalised inside its sentence (``names``) is a name ("my wife
    Nada", "Mr Nie"), not a negator."""
    if start > 0 and start not in breaks and words[start - 1] in _JUST_BEFORE:
        return True
    if factive_before(words, start):
        return False  # "you didn't know I have a twin": what is not known is still so
    end = start
    while end > 0 and start - end < _SCOPE and end not in breaks:
        stop = phrase_ending(words, end, _STOP_PHRASES)
        if stop is not None and (
            stop[0] not in NEGATORS_OWN or not ends_with_phrase(words, end - 1, _NEGATOR_PHRASES)
        ):
            return False  # a conjunction ends the clause ("non è" is no "and"; "nggak tapi" is)
        if _opens_its_own_clause(words, end):
            return False
        if (
            ends_with_phrase(words, end, _NEGATOR_PHRASES)
            and end - 1 not in names
            and not _an_answering_no(words, end, start)
            and not affirming(words, end - 1, start)
            and _in_its_language(words, end - 1, start)
            and not in_a_clause_before(words, end, start, breaks)
        ):
            return True
        end -= 1
    return False


def _in_its_language(words: Sequence[str], at: int, near: int) -> bool:
    """Whether the negator ``words[at]`` is one here: always, unless it is an everyday
    word of another language (_OWN_LANGUAGE), then only beside a word of its own."""
    own = _OWN_LANGUAGE.get(words[at])
    if own is None:
        return True
    low, high = max(0, min(at, near) - _SCOPE), min(len(words), max(at, near) + _SCOPE)
    return not own.isdisjoint(words[low:high])


def _opens_its_own_clause(words: Sequence[str], end: int) -> bool:
    """Whether a word ending before ``words[end]`` opens a clause that a negation before
    it does not reach ("I don't know what to get my wife"), as it does after "think",
    "sure" or "say" ("I'm not sure that I want kids")."""
    opener = phrase_ending(words, end, _OPENERS)
    if opener is None:
        return False
    verb = end - len(opener) - 1
    return verb < 0 or words[verb] not in _REACHING


def _an_answering_no(words: Sequence[str], end: int, start: int) -> bool:
    if words[end - 1] not in _ANSWERS or end >= len(words) or words[end] not in _AFTER_A_NO:
        return False
    return words[end] not in _NOT_ALWAYS_PRONOUNS or end == start


def negated_after(words: Sequence[str], end: int, breaks: Set[int] = frozenset()) -> bool:
    """Whether a negator follows ``words[:end]`` in its clause: a word that negates what
    comes before it, or a Korean or Japanese negative ending."""
    if end >= len(words) or end in breaks:
        return False
    if words[end].startswith(_AFTER_STARTS) or "".join(words[end : end + 8]).startswith(
        _AFTER_KANA
    ):
        return True
    for at in range(end, min(len(words), end + 3)):
        if (at > end and at in breaks) or ends_with_phrase(words, at + 1, _STOP_PHRASES):
            return False
        negates = at + 1 >= len(words) or words[at + 1] not in _NOT_NEGATED_NEXT
        if words[at] in _AFTER and negates and _in_its_language(words, at, end):
            return True
        if words[at].startswith(_AFTER_STARTS):
            return True
    return False


def any_negator(words: Iterable[str]) -> bool:
    """Whether any of ``words`` (a stretch of tokens) negates: a negator, one written as
    several tokens (Thai ไม่), one that follows what it negates, or a Korean negative
    ending."""
    seen = list(words)
    joined = "".join(seen)
    if any(kana in joined for kana in _LEFT_OUT_KANA):
        return True  # 東京ではなく大阪に: "not Tokyo" left out of "東京...住んでいます"
    return any(
        word.startswith(_AFTER_STARTS)
        or word in _AFTER  # "plus" dropped from "je fume plus depuis mai"
        or word in _JUST_BEFORE
        or ends_with_phrase(seen, i + 1, _NEGATOR_PHRASES)
        for i, word in enumerate(seen)
    )
