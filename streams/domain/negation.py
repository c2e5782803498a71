"""Negation around a quote: words that turn what the user said into its opposite.

A quote the user negated just before ("I do not really like coffee" for "like coffee"),
just after (Korean "좋아하지 않아요", Japanese "好きじゃない"), or with a negating word left
out of its middle ("I like coffee" from "I don't like coffee"), is not the user's claim.
The lists cover the common negators of the languages people write to assistants in; every
entry is folded like the text (wording.normalise), so accents, case and Hangul or kana
decomposition do not matter. A few plain words ("really", "even", "longer", a clitic
pronoun) may stand between a negator and what it negates.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set

from streams.domain.wording import normalise, tokens

_NEGATORS = (
    # English, with the contractions written without their apostrophe
    "not never no nor neither none nobody nothing nowhere cannot dont doesnt didnt isnt"
    " arent wasnt werent wont cant couldnt shouldnt wouldnt havent hasnt hadnt aint mustnt"
    " neednt mightnt shant"
    # German, Dutch, Scandinavian
    " nicht nie niemals kein keine keinen keinem keiner keines nichts niemand weder"
    " niet nooit geen niets inte ikke ej aldrig aldri ingen inget"
    # French, Spanish, Portuguese, Italian, Romanian
    " ne n pas jamais rien aucun aucune ni non nunca jamás tampoco ningún ninguno ninguna"
    " nada nadie não nenhum nenhuma ninguém nem mai nessuno nessuna niente nulla né nu"
    " niciodată nici"
    # Slavic, Greek, Turkish, Hungarian, Finnish
    " не ни никогда нет нельзя ничего никто ніколи ні nie nigdy żaden nikdy žádný"
    " δεν μην ποτέ όχι ούτε değil asla hiç hiçbir nem soha sosem ei eivät emme"
    # Indonesian, Malay, Tagalog, Vietnamese
    " tidak bukan belum jangan tiada hindi không chẳng chưa đừng chả"
    # Arabic, Persian, Hebrew, Hindi, Urdu, Bengali
    " لا لم لن ليس ليست غير نه هرگز לא אין אף מעולם नहीं न मत نہیں نہ না নয় নি"
    # Korean (before the verb), Chinese, Thai
    " 안 못 아니 절대 전혀 不 没 沒 别 別 未 无 無 非 莫 勿 甭 ไม่ อย่า"
)
# May stand between a negator and the words it negates ("not really", "no longer",
# "don't even", "no me gusta", "nicht mehr", "不是很").
_BETWEEN = (
    "really even actually always ever quite very too much particularly especially exactly"
    " longer more so that just truly necessarily yet any anymore do does did have has had be"
    " been wirklich mehr gar sehr besonders ganz immer eigentlich wieder unbedingt vraiment"
    " plus trop très beaucoup toujours encore y en me te se le la les lui realmente más muy"
    " tan tanto siempre ya todavía aún lo nos os mais muito tão sempre já ainda lhe più"
    " molto davvero già ancora proprio mi ti ci vi si очень совсем особо особенно всегда"
    " больше уже вообще так 太 很 是 再 也 都 还 還 真 大 会 會 想 要 能"
    " 정말 진짜 별로 잘 그렇게 많이 아직 더"
)
# After what they negate: Korean verb endings, and Japanese ones (their kana are tokens).
_AFTER_PREFIXES = ("않", "못하", "못해", "못했", "아니", "없")
_AFTER_JOINED = ("ない", "なかった", "ません", "じゃない", "じゃなかった", "ではない", "くない")


def _folded(words: str) -> list[tuple[str, ...]]:
    return [tuple(tokens(normalise(word))) for word in words.split()]


_PHRASES = _folded(_NEGATORS)  # one word may fold to several tokens (Thai ไม่)
_BY_LAST: dict[str, list[tuple[str, ...]]] = {}
for _phrase in _PHRASES:
    _BY_LAST.setdefault(_phrase[-1], []).append(_phrase)
_SINGLE = frozenset(p[0] for p in _PHRASES if len(p) == 1)
_PAIRS = frozenset(p for p in _PHRASES if len(p) == 2)
_BETWEEN_WORDS = frozenset(t for p in _folded(_BETWEEN) for t in p)
_AFTER_STARTS = tuple(normalise(p) for p in _AFTER_PREFIXES)
_AFTER_KANA = tuple(normalise(p).replace(" ", "") for p in _AFTER_JOINED)
_MAX_BETWEEN = 3
# "No, I work at Google now" (or without the comma) answers a question: its "no" does not
# negate what follows a subject pronoun, as Spanish "no tengo coche" does.
_AFTER_A_NO = frozenset(
    ["i", "im", "we", "you", "he", "she", "they", "it", "my", "our", "this", "that", "there", "yes"]
)


def _negator_ends_at(words: Sequence[str], end: int) -> bool:
    """Whether a negator ends just before ``words[end]`` (the "t" of "don't" included)."""
    if end <= 0:
        return False
    last = words[end - 1]
    if last == "t":  # don't, isn't, can't: the apostrophe parted the word
        return end > 1 and words[end - 2].endswith("n")
    return any(
        len(p) <= end and tuple(words[end - len(p) : end]) == p for p in _BY_LAST.get(last, ())
    )


def negated_before(words: Sequence[str], start: int, breaks: Set[int] = frozenset()) -> bool:
    """Whether the words before ``words[start]`` negate it, a few plain words allowed
    between ("not really", "no longer", "don't even"); never across punctuation
    (``breaks``: indexes of the words that follow some)."""
    end = start
    for _ in range(_MAX_BETWEEN + 1):
        if end in breaks:
            return False
        if _negator_ends_at(words, end) and not _an_answering_no(words, end):
            return True
        if end == 0 or words[end - 1] not in _BETWEEN_WORDS:
            return False
        end -= 1
    return False


def _an_answering_no(words: Sequence[str], end: int) -> bool:
    return words[end - 1] == "no" and end < len(words) and words[end] in _AFTER_A_NO


def negated_after(words: Sequence[str], end: int, breaks: Set[int] = frozenset()) -> bool:
    """Whether the words from ``words[end]`` on negate what precedes them (a Korean or a
    Japanese negative ending)."""
    if end >= len(words) or end in breaks:
        return False
    if words[end].startswith(_AFTER_STARTS):
        return True
    following = "".join(words[end : end + 6])
    return following.startswith(_AFTER_KANA)


def any_negator(words: Iterable[str]) -> bool:
    """Whether any of ``words`` (a stretch of tokens) negates: a negator, the "t" of a
    "don't", two tokens of one (Thai ไม่), or a Korean negative ending."""
    seen = list(words)
    for i, word in enumerate(seen):
        if word in _SINGLE or word == "t" or word.startswith(_AFTER_STARTS):
            return True
        if i + 1 < len(seen) and (word, seen[i + 1]) in _PAIRS:
            return True
    return False
