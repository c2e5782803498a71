"""Whether a claim's quote mentions what the claim says: its object, in the user's words.

The quote check (streams/domain/quotes.py) proves the quote is the user's statement; this
proves the claim comes from it. A model that borrows a real sentence for an invented
claim ("user has role administrator of all tenants" from "I work at Acme as a nurse"),
or one steered by text in the conversation, leaves the claim untrusted.

The model is asked for facts in the user's language and names as the user writes them,
so at least one word of the object is in the quote: the same word folded alike
(streams/domain/wording.py), another form of it (a shared stem: "Москва" in "в Москве",
"Warszawa" in "Warszawie", "nuts" in "peanuts"), the same number (also written as a word:
"2" for "two"), or the initials of the object ("NYC" for "new york city"). In scripts
written without spaces at least half of the object's characters must be in the quote.
An object in another script than the quote (a transliteration), or with no word to look
for ("yes", "true"), is not judged. Paraphrases that share no word ("vegetarian" from "I
don't eat meat") are left untrusted: the user's words, not an inference, are the proof.
"""

from __future__ import annotations

import re
import unicodedata

from streams.domain.wording import is_unspaced, tokens

# Words that say nothing of what a fact is about, so they prove nothing when shared.
_NO_CONTENT = frozenset(
    tokens(
        "yes no true false none null unknown user a an the of and or to in at on for with by"
        " from as is am are was were be been has have had do does did i me my you your he"
        " him his she her it its we our they them their this that there not very"
        " de la le les el los las un una der die das den dem des ein eine und y e et"
    )
)
_NUMBER_WORDS = {
    word: str(n)
    for words in (
        "zero one two three four five six seven eight nine ten eleven twelve",
        "null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf",
        "zéro un deux trois quatre cinq six sept huit neuf dix onze douze",
        "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce",
    )
    for n, word in enumerate(tokens(words))
} | {"a": "1", "an": "1", "dozen": "12", "twins": "2", "ein": "1", "eine": "1", "une": "1"}
_SCALES = {"k": 1_000, "thousand": 1_000, "tausend": 1_000, "mille": 1_000, "mil": 1_000,
           "m": 1_000_000, "mio": 1_000_000, "million": 1_000_000, "millionen": 1_000_000,
           "bn": 1_000_000_000, "billion": 1_000_000_000}  # fmt: skip
_SCALED = re.compile(
    r"(\d+(?:[.,]\d+)?)\s*(k|m|mio|bn|thousand|tausend|mille|mil|million|millionen|billion)"
    r"(?!\w)",
    re.IGNORECASE,
)
_STEM = 4  # letters a word and another form of it share at least
_SHORT_STEM = 3  # a shorter word matches only as the start of a longer one


def unmentioned(obj: str, quote: str) -> bool:
    """Whether ``quote`` mentions none of the words of the claim's object ``obj``."""
    wanted = [w for w in tokens(obj) if _is_content(w)]
    said = tokens(quote)
    if not wanted or not said:
        return False
    theirs, ours = _scripts(wanted), _scripts(said)
    if theirs and ours and theirs.isdisjoint(ours):
        return False  # a transliteration or a translation: not judged
    unspaced = [w for w in wanted if is_unspaced(w)]
    if unspaced:
        return 2 * sum(w in said for w in unspaced) < len(unspaced)
    numbers = _numbers(said, quote)
    if any(w in numbers for w in wanted if w.isdigit()):
        return False
    if any(_same_word(w, s) for w in wanted if not w.isdigit() for s in said):
        return False
    initials = "".join(w[0] for w in wanted)
    return not (len(initials) >= 2 and initials in said)


def _numbers(said: list[str], quote: str) -> set[str]:
    """The numbers of a quote as digits: written as words ("two"), with a multiplier
    ("25k", "1.5m", "25 thousand", "1,5 Mio")."""
    found = {_NUMBER_WORDS.get(word, word) for word in said}
    for value, scale in _SCALED.findall(quote):
        number = float(value.replace(",", ".")) * _SCALES[scale.casefold()]
        found.add(str(round(number)))
    return found


def _is_content(word: str) -> bool:
    return word not in _NO_CONTENT and (len(word) >= 2 or word.isdigit() or is_unspaced(word))


def _same_word(wanted: str, said: str) -> bool:
    """The same word, or another form of it (a shared stem, an ending, a clitic)."""
    if wanted == said:
        return True
    shorter, longer = sorted((wanted, said), key=len)
    if len(shorter) < _STEM:  # "tea" in "teas", not "car" in "cat"
        return len(shorter) >= _SHORT_STEM and longer.startswith(shorter)
    shared = 0
    for a, b in zip(wanted, said, strict=False):
        if a != b:
            break
        shared += 1
    # a stem ("москва", "москве"), or a clitic or compound around the word ("peanuts"
    # holds "nuts", "بالقاهرة" holds "القاهرة")
    return shared >= _STEM or wanted in said


def _scripts(words: list[str]) -> set[str]:
    """The scripts the words are written in (LATIN, CYRILLIC, CJK, ...), each word's by
    its first letter: a word is written in one."""
    firsts = (next((ch for ch in w if ch.isalpha()), "") for w in words)
    return {unicodedata.name(ch, "?").split(" ")[0] for ch in firsts if ch}
