"""Time clauses that make a future statement depend on an event (for streams/domain/mood.py).

"When I move to Denver, I'll buy a car", "Once I get the job I'm gonna move", "I'll buy a
car when I move", "Cuando me mude a Madrid, compraré un coche", "Quand je serai à Paris,
j'achèterai un vélo", "Emekli olunca İzmir'e taşınacağım": the future part is not done
yet and hangs on something that has not happened either, so a quote of it is not the
user's statement. The clause is a condition only with a future in the sentence, told in
each language's own future: a past or habitual one stands ("When I was a kid, I lived in
Ohio", "When I'm stressed I eat chocolate", "Cuando era niño vivía en Lima", "Quand
j'étais petit, j'habitais à Lyon"). Futures told in the present ("Sobald ich den Job
habe, ziehe ich nach Berlin") are left alone: the same words are a habit ("Sobald ich
aufwache, trinke ich Kaffee"). "Before" and "until" clauses state plans, and an "after"
clause before "going to" a schedule ("After I graduate, I'm going to start at Google").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from streams.domain.wording import ends_with_phrase, folded_words, phrase_index, word_set

# Openings of a time clause, by the future each language tells after it.
_OPENINGS: dict[tuple[str, ...], str] = {
    **dict.fromkeys(folded_words("when once"), "en"),
    ("as", "soon", "as"): "en",
    ("after",): "en-after",
    **dict.fromkeys([("cuando",), ("en", "cuanto"), ("tan", "pronto", "como")], "es"),
    **dict.fromkeys([("quand",), ("lorsque",), ("des", "que"), ("une", "fois", "que")], "fr"),
    ("quando",): "pt-it",
    **dict.fromkeys([("assim", "que"), ("logo", "que")], "pt"),
    **dict.fromkeys([("appena",), ("non", "appena"), ("una", "volta", "che")], "it"),
    **dict.fromkeys(folded_words("когда"), "ru"),
    ("как", "только"): "ru",
    **dict.fromkeys(folded_words("sobald nachdem"), "de"),
    **dict.fromkeys(folded_words("zodra nadat wanneer"), "nl"),
}
_FIRST_WORDS = frozenset(o[0] for o in _OPENINGS)
_LONGEST = max(map(len, _OPENINGS))
_NOT_TEMPORAL = frozenset([("when", "it", "comes", "to"), ("when", "in")])  # idioms
# A word that may come before the opening ("So when I move, ...", "Y cuando me mude").
_LEADING = word_set("so and but then well also y e et mais pero ma und aber en и а но")
_SUBJECTS = word_set("i we he she they it you the my our your his her their")
_SPEAKERS = word_set("i we")
_ENGLISH_FUTURE = phrase_index("will shall", phrases=("am going to", "are going to"))
_WILL = phrase_index("will shall")
_FUTURE_WORDS = {
    "ru": word_set("буду будем"),
    "de": word_set("werde werden"),
    "nl": word_set("zal zullen"),
}
# Synthetic futures of the first person, as folded (accents gone).
_SPANISH = re.compile(
    r"^\w{2,}[aei]re(?:mos)?$|^(?:ten|pon|sal|ven|val|po)dre(?:mos)?$"
    r"|^(?:sab|cab|hab|ha|di|quer)re(?:mos)?$"
)
_NOT_SPANISH = re.compile(r"(?:iere|uere|aire)$")  # quiere, prefiere, muere, aire
_FRENCH = re.compile(r"^\w{2,}(?:rai|rons)$")
_NOT_FRENCH = word_set("vrai environs marrons")
_PORTUGUESE = re.compile(r"^\w{2,}[aei]r(?:ei|emos)$")
_ITALIAN = re.compile(r"^\w{3,}(?:er|ir)o$|^(?:sa|av|fa|da|sta|and|pot|dov|vor|ver|ter)ro$")
_NOT_ITALIAN = re.compile(r"eiro$|^(?:numero|pensiero|straniero|mistero|sincero|davvero)$")
# Portuguese "vou comprar" is a future after a clause in the future subjunctive ("Quando
# eu me mudar", "quando tiver"), which looks like an infinitive.
_GOING = word_set("vou vamos")
_INFINITIVE = re.compile(r"^\w{2,}(?:ar|er|ir)$")
_SUBJUNCTIVE = word_set("for tiver estiver puder fizer souber quiser vier houver")
_ENGLISH_PAST = word_set(
    "was were did had said asked told went got came saw met left took made bought lost"
    " found knew thought felt began became ran ate gave wrote heard"
)
_HABIT = word_set("every each")
# Turkish: a converb of time ("olunca", "gelince", "geldiğimde") before a first-person
# future ("taşınacağım", "alacağız").
_TURKISH_WHEN = re.compile(r"^\w{2,}[iu]nc[ae]$|^\w{2,}[dt][iu]g[iu](?:m|miz|n)?d[ae]$")
_TURKISH_FUTURE = re.compile(r"^\w{2,}[ae]c[ae]g[iu][mz]$")


def future_after_time(words: Sequence[str], span: tuple[int, int, int], breaks: frozenset[int]
                      ) -> bool:  # fmt: skip
    """Whether the quote at ``span[1]:span[2]`` of the sentence from ``span[0]`` is a
    future that hangs on a time clause opening the sentence or following the quote."""
    first, start, end = span
    if _turkish(words, span):
        return True
    if start <= first or _FIRST_WORDS.isdisjoint(words[first:start]):
        return _clause_after(words, start, end)
    if first + 1 < start and words[first] in _LEADING and first + 1 not in breaks:
        first += 1
    opening = _opening(words, first)
    if opening is None or tuple(words[first : first + 4]) in _NOT_TEMPORAL:
        return _clause_after(words, start, end)
    lang = _OPENINGS[opening]
    clause = _clause_end(words, first + len(opening), start, breaks, lang)
    if clause is None:
        return False
    time, main = words[first + len(opening) : clause], words[clause:end]
    if not _HABIT.isdisjoint(main):
        return False  # "Once the kids are in bed, I'm going to watch TV like every night"
    return _a_future(lang, time, main)


def _opening(words: Sequence[str], at: int) -> tuple[str, ...] | None:
    for size in range(_LONGEST, 0, -1):
        found = tuple(words[at : at + size])
        if found in _OPENINGS:
            return found
    return None


def _clause_end(words: Sequence[str], lo: int, start: int, breaks: frozenset[int], lang: str
                ) -> int | None:  # fmt: skip
    """Where the time clause ends: at punctuation before the quote, or, without it, where
    "I will", "I'm going to" begins ("When I move to Denver I'll buy a car")."""
    clause = max((b for b in breaks if lo < b <= start), default=None)
    if clause is not None or not lang.startswith("en"):
        return clause
    return next(
        (at for at in range(lo + 2, start + 1) if words[at] in _SPEAKERS
         and _future_opens(words, at + 1)),
        None,
    )  # fmt: skip


def _future_opens(words: Sequence[str], at: int) -> bool:
    return any(
        ends_with_phrase(words, at + size, _ENGLISH_FUTURE)
        for size in (1, 3)
        if at + size <= len(words)
    )


def _a_future(lang: str, time: Sequence[str], main: Sequence[str]) -> bool:
    """Whether the time clause ``time`` and the clause after it ``main`` tell a future
    in ``lang``, the time clause not told in the past."""
    if lang.startswith("en"):
        if _SUBJECTS.isdisjoint(time) or any(_english_past(w) for w in time):
            return False  # "After work, I will call", "Once again, I'll be": no clause
        phrases = _WILL if lang == "en-after" else _ENGLISH_FUTURE
        return any(ends_with_phrase(main, at, phrases) for at in range(1, len(main) + 1))
    if lang in _FUTURE_WORDS:
        return not _FUTURE_WORDS[lang].isdisjoint(main)
    if lang == "es":
        return any(_SPANISH.match(w) and not _NOT_SPANISH.search(w) for w in main)
    if lang == "fr":  # "Quand je serai", "j'achèterai": a future in either clause
        return any(_FRENCH.match(w) and w not in _NOT_FRENCH for w in (*time, *main))
    portuguese = any(map(_PORTUGUESE.match, main)) or _going(time, main)
    return (lang != "it" and portuguese) or (lang != "pt" and _italian(time, main))


def _going(time: Sequence[str], main: Sequence[str]) -> bool:
    """Portuguese "vou comprar" after a clause in the future subjunctive."""
    if not any(w in _SUBJUNCTIVE or (len(w) > 3 and _INFINITIVE.match(w)) for w in time):
        return False
    return any(w in _GOING and _INFINITIVE.match(nxt) for w, nxt in pairwise(main))


def _italian(time: Sequence[str], main: Sequence[str]) -> bool:
    """Italian futures in both clauses ("Quando mi trasferirò, comprerò"): one alone may
    be a present ("desidero", "considero")."""
    return all(
        any(_ITALIAN.match(w) and not _NOT_ITALIAN.search(w) for w in clause)
        for clause in (time, main)
    )


def _english_past(word: str) -> bool:
    return word in _ENGLISH_PAST or (len(word) > 4 and word.endswith("ed"))


def _turkish(words: Sequence[str], span: tuple[int, int, int]) -> bool:
    """A Turkish time converb in the sentence before a quote with a first-person future."""
    first, start, end = span
    if end <= start or not _TURKISH_FUTURE.match(words[end - 1]):
        return False  # the verb closes the clause
    return any(_TURKISH_WHEN.match(w) for w in words[first:start])


def _clause_after(words: Sequence[str], start: int, end: int) -> bool:
    """ "I'll buy a car when I move to Denver": an English future quoted just before a
    time clause whose subject and verb follow, not in the past."""
    if end >= len(words) or words[end] not in _FIRST_WORDS:
        return False
    opening = _opening(words, end)
    if opening is None or _OPENINGS[opening] != "en":
        return False
    after = words[end + len(opening) : end + len(opening) + 2]
    if len(after) < 2 or after[0] not in _SUBJECTS or _english_past(after[1]):
        return False
    quote = words[start:end]
    return any(ends_with_phrase(quote, at, _WILL) for at in range(1, len(quote) + 1))
