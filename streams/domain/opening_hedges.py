"""Possibility words that hedge only opening their clause (for streams/domain/hedges.py).

Elsewhere they are other words: Spanish "Igual me mudo" (not "es igual que", "Igual que
mi padre"), Russian "Может, я перееду", "Может я" (not "Он может работать": "can"),
Indonesian "Bisa jadi saya pindah" (not "Saya bisa jadi guru"), Vietnamese "Có thể tôi
sẽ" ("maybe I will"; "có thể" alone is "can": "Tôi có thể bơi"). Vietnamese "Chắc tôi
sẽ", Indonesian "Kayaknya saya akan" ("I guess I'll") hedge only before a subject and a
future (not "Chắc chắn", "surely", nor a belief, "Kayaknya saya alergi"), and Polish
"chyba" ("I guess") only before a future ("Chyba rzucę studia", not "Chyba mam grypę").
"""

from __future__ import annotations

from streams.domain.futures import slavic_perfective
from streams.domain.wording import Wording, phrase_ending, phrase_index, tokens, word_set

OPENING_ONLY = phrase_index(
    "igual может chắc kayaknya kayanya kyknya chyba",
    phrases=("bisa jadi", "bisa-bisa", "có thể", "chắc là", "good chance", "high chance"),
)
_GUESSES = frozenset(
    tuple(tokens(w)) for w in ("chắc", "kayaknya", "kayanya", "kyknya", "có thể", "chắc là")
)
_GUESSING = word_set("tôi mình em anh chúng saya aku kami kita")
_GUESSED_FUTURE = word_set("sẽ akan bakal mau")
_IGUAL, _MOZHET = ("igual",), tuple(tokens("может"))
_CHYBA, _BEDE = ("chyba",), word_set("będę będziemy")
# "Igual me mudo", "Igual vuelvo", not "Igual que", nor "igual" as "anyway" before a
# past ("Llovía, igual salí a correr").
_AFTER_IGUAL = word_set("me te se nos lo la le les los las no ya voy estoy soy doy")
_RUSSIAN_SPEAKERS = word_set("я мы")


def opening_hedge(said: Wording, at: int) -> bool:
    """Whether a possibility word that counts only opening its clause ends just before
    ``said.words[at]`` and opens the clause."""
    words = said.words
    hedge = phrase_ending(words, at, OPENING_ONLY)
    if hedge is None:
        return False
    opening = at - len(hedge)
    if not (opening in said.breaks or opening == said.sentence_span(said.sentence_of(at))[0]):
        return False
    if hedge == _IGUAL:
        return at < len(words) and (words[at] in _AFTER_IGUAL or words[at].endswith("o"))
    if hedge in _GUESSES:
        nxt = words[at : at + 2]
        return len(nxt) == 2 and nxt[0] in _GUESSING and nxt[1] in _GUESSED_FUTURE
    if hedge == _CHYBA:  # "Chyba przeprowadzę się", not "Chyba mam grypę" (I think)
        return at < len(words) and (slavic_perfective(words[at]) or words[at] in _BEDE)
    return hedge != _MOZHET or words[at] in _RUSSIAN_SPEAKERS
