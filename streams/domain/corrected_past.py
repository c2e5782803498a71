"""A statement corrected to the past right after it (for streams/domain/corrections.py).

"I have a boyfriend. had.", "ich habe eine Freundin, hatte", "tengo novia, bueno tenía",
"je suis prof, enfin j'étais prof", "lavoro in banca, cioè lavoravo", "ik werk bij de
bank, nou ja, werkte", "pracuję w banku, to znaczy pracowałem", "trabalho num banco, ops,
trabalhava", "bankada çalışıyorum, pardon çalışıyordum", "أعمل في بنك، عفوا، كنت أعمل",
"我在银行工作，哦不，是以前", "銀行で働いています、というか働いていました": the clause after the
quote puts it in the past, so the quote is no longer so. The clause counts when it is
only a word or two, or opens with a word that corrects ("bueno", "enfin", "cioè", "nou
ja", "to znaczy", "ops", "pardon", というか, 哦不); "I live in Leeds, well, I was born in
York" and "I'm a nurse, was a teacher before" go on to say something else.
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.wording import Wording, phrase_index, tokens, word_set

_CORRECTING = phrase_index(
    "bueno enfin cioè ops oops pardon عفوا er ugh",
    phrases=("nou ja", "to znaczy", "というか", "哦不", "à nhầm", "i mean", "ich meine"),
)
_PAST = word_set(
    "had was were used hatte hatten war waren tenía tenia era eras étais était etais etait"
    " werkte woonde hadden lavoravo ero avevo trabalhava morava tinha era كنت كان 以前 trước"
)
_PAST_ENDINGS = ("iyordum", "uyordum", "owalem", "owalam", "alem", "alam")  # folded
_KANA_PASTS = tuple("".join(tokens(k)) for k in ("ました", "でした"))
_LONGEST_OPENING = 4  # というか
_SHORT = 2  # words of a clause that is only the past form: "had.", "hatte,"
_LONG = 12  # words (or kana) of a clause opening with a correcting word


def corrected_to_the_past(said: Wording, lo: int) -> bool:
    """Whether the clause at ``said.words[lo]``, the one after the quote, puts it in the
    past: a word or two of a past, or a correcting word and a past."""
    words = said.words
    hi = min((b for b in said.breaks if b > lo), default=len(words))
    clause = words[lo:hi]
    if not clause:
        return False
    opened = _opening(clause)
    if opened:
        rest = words[lo + opened : min(hi, lo + opened + _LONG)]
        if not rest and hi < len(words):  # "bueno, tenía": the past after the comma
            nxt = min((b for b in said.breaks if b > hi), default=len(words))
            rest = words[hi : min(nxt, hi + _LONG)]
        return _a_past(rest)
    return len(clause) <= _SHORT and _a_past(clause)


def _opening(clause: Sequence[str]) -> int:
    for size in range(min(len(clause), _LONGEST_OPENING), 0, -1):  # kana are words too
        if tuple(clause[:size]) in _CORRECTING.get(clause[size - 1], ()):
            return size
    return 0


def _a_past(words: Sequence[str]) -> bool:
    joined = "".join(words)
    return (
        not _PAST.isdisjoint(words)
        or any(w.endswith(_PAST_ENDINGS) for w in words)
        or any(kana in joined for kana in _KANA_PASTS)
    )
