"""A future told before the time clause it hangs on (for streams/domain/time_clauses.py).

"I'm going to ask for a raise when my review comes up", "Gonna start therapy once my
insurance kicks in", "Voy a adoptar un gato cuando me mude", "Je changerai de voiture
quand j'aurai un CDI", "Vou adotar um gato quando eu for morar sozinha", "Comprerò un
cane quando avrò un giardino", "Ich werde mir einen Hund holen, sobald ich eine größere
Wohnung habe": the quote is the future, the clause after it the event it waits for. Each
language needs its own sign that the event has not happened: English a subject and a
verb not in the past, Spanish a subjunctive ("cuando me mude", not "cuando puedo"),
French and Italian a future in the clause too, Portuguese a future subjunctive, German
"werde" with its verb last (Dutch "ga", "zal": "Ik ga een hond nemen zodra we verhuisd
zijn"), Russian and Polish a perfective in both ("Я куплю дачу, когда
выйду на пенсию"). A habit stands: "Voy al gimnasio cuando puedo", "I'm going to the gym
when I have time", "Je vais au cinéma quand j'ai du temps", "Я покупаю хлеб, когда иду
домой".
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from streams.domain import futures
from streams.domain.wording import ends_with_phrase, folded_words, phrase_index, word_set

_OPENINGS: dict[tuple[str, ...], str] = {
    **dict.fromkeys([("when",), ("once",), ("as", "soon", "as"), ("the", "moment")], "en"),
    **dict.fromkeys([("the", "minute"), ("the", "second"), ("the", "day")], "en"),
    **dict.fromkeys([("cuando",), ("en", "cuanto"), ("tan", "pronto", "como")], "es"),
    **dict.fromkeys([("quand",), ("lorsque",), ("des", "que"), ("une", "fois", "que")], "fr"),
    **dict.fromkeys([("quando",), ("assim", "que"), ("logo", "que")], "pt-it"),
    **dict.fromkeys([("appena",), ("una", "volta", "che")], "it"),
    **dict.fromkeys(folded_words("sobald nachdem falls"), "de"),  # not "wenn": a habit too
    **dict.fromkeys(folded_words("zodra nadat"), "nl"),  # not "als", "wanneer": a habit too
    **dict.fromkeys([*folded_words("когда kiedy gdy"), ("как", "только"), ("jak", "tylko")], "sl"),
}
_FIRST_WORDS = frozenset(o[0] for o in _OPENINGS)
_LONGEST = max(map(len, _OPENINGS))
_SUBJECTS = word_set("i we he she they it you the my our your his her their")
_WILL = phrase_index("will shall")
_HABIT = word_set(
    "every each always usually often sometimes normally oft immer manchmal meistens"
    " regelmäßig selten"
)
# Portuguese: the clause's verb first, or after its subject ("quando eu for", not "quando
# a minha mulher chega": a noun in -er).
_PORTUGUESE_SUBJECTS = word_set("eu nós ele ela você a gente me se")
_ENGLISH_PAST = word_set(
    "was were did had said asked told went got came saw met left took made bought lost"
    " found knew thought felt began became ran ate gave wrote heard"
)
# "going to" before a verb of a one-off plan, not a place or a routine ("I'm going to
# the gym when I have time", "going to work", "going to physio").
_GOING_VERBS = word_set(
    "ask buy move start quit get take try make sell rent adopt apply switch retire marry"
    " propose travel learn study open build book visit call tell leave find look join"
    " change pay save spend invest register sign enroll upgrade renovate paint fix"
    " celebrate throw hire fire drop launch publish finish"
)
_WAS = word_set("was were")
_NOT_PLURAL = word_set(
    "this thus always sometimes times days weeks months years hours minutes plus less yes"
    " was has is his its unless perhaps"
)
_GERMANIC_FUTURE = {"de": word_set("werde werden werd"), "nl": word_set("ga gaan zal zullen")}


def future_before_time(words: Sequence[str], start: int, end: int, last: int) -> bool:
    """Whether the quote at ``words[start:end]``, a future, is followed by a time clause
    saying what it waits for."""
    if end >= last - 1 or words[end] not in _FIRST_WORDS:
        return False
    words = words[:last]  # the time clause in the quote's sentence
    opening = _opening(words, end)
    if opening is None:
        return False
    quote, clause = words[start:end], words[end + len(opening) : end + len(opening) + 6]
    if not _HABIT.isdisjoint(quote):
        return False
    lang = _OPENINGS[opening]
    if lang == "en":
        return _english(quote, clause)
    if lang == "es":
        return _spanish(quote, clause)
    if lang == "fr":
        return any(map(futures.french, quote)) and any(map(futures.french, clause))
    if lang in _GERMANIC_FUTURE:  # "Ich werde ... holen", "Ik ga een hond nemen"
        return not _GERMANIC_FUTURE[lang].isdisjoint(quote) and quote[-1].endswith("n")
    if lang == "sl":  # "Я куплю дачу, когда выйду на пенсию"
        return futures.slavic_both(clause, quote)
    verb = clause[1:2] if clause[:1] and clause[0] in _PORTUGUESE_SUBJECTS else clause[:1]
    portuguese = futures.portuguese_subjunctive(verb) and (
        any(map(futures.portuguese, quote)) or futures.going(quote)
    )
    return (lang != "it" and portuguese) or futures.italian_both(clause, quote)


def _opening(words: Sequence[str], at: int) -> tuple[str, ...] | None:
    return phrase_at(words, at, _OPENINGS, _LONGEST)


def phrase_at(
    words: Sequence[str], at: int, phrases: Collection[tuple[str, ...]], longest: int
) -> tuple[str, ...] | None:
    """The longest of ``phrases`` (none longer than ``longest`` words) starting at ``at``."""
    for size in range(longest, 0, -1):
        found = tuple(words[at : at + size])
        if found in phrases:
            return found
    return None


def _english(quote: Sequence[str], clause: Sequence[str]) -> bool:
    """ "I'll buy a car", "I'm going to ask", "Gonna start" before "when I move", "once my
    insurance kicks in" (a subject and a verb not in the past)."""
    if len(clause) < 2 or not _a_subject(clause[0]) or _past(clause[1]):
        return False
    if any(ends_with_phrase(quote, at, _WILL) for at in range(1, len(quote) + 1)):
        return True
    return any(
        quote[at] == "going" and quote[at + 1] == "to" and quote[at + 2] in _GOING_VERBS
        and (at == 0 or quote[at - 1] not in _WAS)
        for at in range(len(quote) - 2)
    )  # fmt: skip


def _a_subject(word: str) -> bool:
    """A pronoun or a determiner, or a plural noun ("once things calm down")."""
    return word in _SUBJECTS or (len(word) > 3 and word.endswith("s") and word not in _NOT_PLURAL)


def _past(word: str) -> bool:
    return word in _ENGLISH_PAST or (len(word) > 4 and word.endswith("ed"))


def _spanish(quote: Sequence[str], clause: Sequence[str]) -> bool:
    """ "Compraré un coche", "Voy a adoptar un gato" before "cuando me mude"."""
    if not futures.spanish_subjunctive(clause[:3]):
        return False
    return any(map(futures.spanish, quote)) or futures.going(quote, spanish_too=True)
