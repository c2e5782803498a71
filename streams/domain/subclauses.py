"""Clauses a negation before them does not reach (for streams/domain/negation.py).

"when I'm not coding I play guitar": the "not" is the "when" clause's, and "I play
guitar" opens a clause with its own subject, without a comma between. "You didn't know I
have a twin", "kamu belum tahu bahwa saya sudah menikah": what someone does not know is
still so (the verb is factive), so the quote after it stands. "gak tau ngaruh atau
nggak tapi aku kidal": "tapi" ("but") ends the negated clause. "I'm not sure if I
mentioned I have two kids", "I don't know if this matters I'm diabetic", "no sé si
importa, soy diabético": the negation is of a "whether" about the telling, which ends
before the quote's own subject ("I'm not sure if it's true I have a twin" stays unsure).
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from streams.domain.wording import word_set

# Conjunctions that after a negator are its own ("non è", folded as "e"; "not so", "not
# yet"); any other ends its clause ("nggak tapi aku kidal", "không nhưng mình").
NEGATORS_OWN = frozenset(["e", "a", "so", "yet", "then", "though", "however", "и", "а"])
_SUBORDINATORS = word_set(
    "when whenever while once if after before because since although quand cuando quando"
    " wenn als wanneer"
)
_SUBJECTS = word_set("i we he she they you je j yo eu io ich ik")
_SCOPE = 6  # words looked back from the negator for the clause's opening
_FACTIVE = word_set(
    "know knew realize realise realized realised notice noticed tahu tau sabes sabías"
    " weißt wusstest sais savais"
)
_THAT = word_set("that bahwa kalau que dass")
# Negations that affirm a habit or a liking, for negation.py: "I never miss my morning
# run", "There's nothing like coffee in the morning".
AFFIRMING_MORE = (
    "never miss", "never misses", "never missed", "never skip", "never skips",
    "never fail to", "never fails to", "there is nothing like", "there s nothing like",
    "nunca me pierdo", "nunca falto a", "ne rate jamais", "ne manque jamais",
    "verpasse nie", "nie opuszczam", "nunca perco", "non perdo mai",
    "can not imagine my life without", "can not imagine life without",
    "could not imagine my life without", "can not live without", "could not live without",
    "no puedo vivir sin", "je ne peux pas vivre sans", "kann nicht ohne",
)  # fmt: skip
_WHETHER = word_set("if whether ob si se of czy")
_WHETHER_REACH = 3  # words from the negator to "if": "not sure if", "don't really know if"
_TELLING_REACH = 5  # words of the "whether" clause: "if this is even relevant"
# What makes a "whether" one about the telling: "if it matters", "if I mentioned".
_TELLING = word_set(
    "matters matter relevant important helps help useful mentioned mention told tell said"
    " say care counts interesting worth wichtig relevant erwähnt gesagt erzählt importa"
    " importe importante relevante dit dicho mencionado contado mencionei disse conta"
    " uitmaakt belangrijk verteld gezegd важно говорил упоминал ma znaczenie istotne"
    " mówiłem mówiłam wspominałem wspominałam"
)


def factive_before(words: Sequence[str], start: int) -> bool:
    """Whether "know", "realize" (maybe with "that") stands just before ``words[start]``."""
    if start > 0 and words[start - 1] in _FACTIVE:
        return True
    return start > 1 and words[start - 1] in _THAT and words[start - 2] in _FACTIVE


def in_a_clause_before(words: Sequence[str], end: int, start: int, breaks: Set[int]) -> bool:
    """Whether the negator ending before ``words[end]`` closes a "when", "if" clause of
    its own before a quote opening with a new subject, without a comma between: "when
    I'm not coding I play guitar" does not negate "I play guitar"."""
    inverted = start + 1 < len(words) and words[start + 1] in _SUBJECTS  # "brei ik"
    if start - end < 1 or not (words[start] in _SUBJECTS or inverted):
        return False
    if _a_whether_about_the_telling(words[end:start]):
        return True  # "I'm not sure if I mentioned I have two kids"
    at = end - 1
    while at > 0 and end - at <= _SCOPE and at not in breaks:
        at -= 1
        if words[at] in _SUBORDINATORS:
            return True
    return False


def _a_whether_about_the_telling(between: Sequence[str]) -> bool:
    """Whether ``between``, the words from a negator to the quote, are "sure if" and a
    short clause about the telling ("if this matters", "if I mentioned")."""
    for at, word in enumerate(between[:_WHETHER_REACH]):
        if word in _WHETHER:
            clause = between[at + 1 :]
            return 0 < len(clause) <= _TELLING_REACH and not _TELLING.isdisjoint(clause)
    return False
