"""A statement the user corrects or shows as a past belief (for streams/domain/takeback.py).

Corrections after the quote, in the clause or the sentence after it: "I live in Chicago.
Well, actually I just moved to Milwaukee", "I work at Acme, scratch that, at Initech",
"Vivo en Lyon, mejor dicho, en Villeurbanne", "Ich wohne in Köln, genauer gesagt in
Bonn", "Я живу в Москве, вернее, в Подмосковье", "I have three kids, no, not three,
four": the quote is not what the user now says. A plain "actually" counts only before a
change ("just moved", "no longer", "not anymore"): "I live in Chicago. Actually, I love
it here" stands.

A past belief just before the quote, the user's own: "I thought I loved my job, turns
out I don't", "Creía que era alérgica", "Je croyais que j'étais végane", "Ich dachte,
ich wäre krank", "Я думал, что я интроверт", "我以为我怀孕了": what the user thought is
not what they say is so ("I think I have ADHD" and "I thought I'd mention I'm vegan"
stand). A line the user only tells others: "'I'm fine' is what I tell everyone".
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.corrected_past import corrected_to_the_past
from streams.domain.negation import any_negator
from streams.domain.views import FIRST_PERSON, REPORTING, SAYING
from streams.domain.wording import Wording, phrase_ending, phrase_index, word_set

# Openers of a correction, whatever follows them.
_CORRECTING = phrase_index(
    "",
    phrases=(
        "scratch that", "correction", "wait no", "no wait", "actually no", "i meant",
        "sorry i mean", "or rather", "mejor dicho", "o sea no", "genauer gesagt",
        "vielmehr", "вернее", "точнее", "enfin non", "ou plutôt", "quer dizer",
        "a właściwie", "właściwie nie", "wacht nee", "of eigenlijk", "quatsch",
        "nein quatsch", "不对", "说错了", "أقصد", "لا أقصد", "à không", "maksudnya",
        "maksud saya", "eh salah", "salah", "not anymore", "no longer", "not any more",
        "nicht mehr", "ya no", "plus maintenant", "não mais", "non più", "już nie",
        "уже нет", "artık değil", "forget that", "never mind", "nevermind", "ignore that",
        "disregard that", "olvídalo", "oublie ça", "vergiss es", "laat maar",
        "lascia stare", "esqueça", "забудь", "spaß beiseite", "joking aside",
        "jokes aside", "kidding aside", "blague à part", "bromas aparte", "scherzi a parte",
        "nee wacht", "anzi no", "a nie", "sorry i meant", "typo", "ok fine", "not since",
        "non attends", "nein warte", "no aspetta", "no espera", "não espera", "à nhầm",
        "ugh i mean", "um i mean", "uh i mean", "er i mean", "erm i mean", "well i used to",
        "strike that", "ah no", "more like", "ok more like", "or more like",
    ),
)  # fmt: skip
# A bare "no" or "sorry" that corrects what follows it: before "not" and a word of the
# quote, another number, or "actually" ("nee, eigentlich in Lübeck", "いや、実は").
_WEAK = phrase_index(
    "no nope sorry oops digo pardon perdón nee nein non nie нет yok لا hayır không ой ops",
    phrases=("i mean", "ich meine", "je veux dire", "いや", "いいえ"),
)
# Openers of a correction only before a change: "Well, actually I just moved".
_ACTUALLY = phrase_index(
    "actually en fait eigentlich właściwie aslında 実は",
    phrases=(
        "en realidad",
        "na verdade",
        "in realtà",
        "на самом деле",
        "in werkelijkheid",
        "في الحقيقة",
    ),
)
_CHANGED = word_set(
    "moved switched changed quit left longer anymore mudé cambié dejé déménagé quitté déménager"
    " changé umgezogen gewechselt gekündigt переехал переехала уволился уволилась"
    " przeprowadziłem przeprowadziłam mudei mehr meer artık"
)
_OTHERS = word_set(
    "my his her their he she they our mon ma mes son sa ses mi mis su sus mein meine sein"
    " seine ihr ihre мой моя его её"
)
_NO_LONGER = word_set("anymore longer more mehr no maintenant mais più nie нет değil")
_AT_LEAST = word_set("at least or well")
_WE = word_set("i we")
_TELL_NOW = word_set("tell say")  # a line the user tells: "that's what I tell people"
_THATS_WHAT = ("that", "s", "what")
_WHO_REACH = 3  # "my gf", "my roommate", "my mom and dad"
_HERE = word_set("here there in")  # "Actually I moved here in 2019" confirms
_MEANT = word_set("it that this every")  # "I mean it", "I mean every word"
_LEADING = word_set(
    "well oh um uh ok okay so and but bueno bon also na ja ну eh sorry oops pardon enfin lol haha"
)
_OPENER_REACH = 3  # leading words before the opener: "oh well, actually"
_CHANGE_REACH = 4  # words after "actually" to the change: "actually I just moved"
_NOT = word_set("not")
_NUMBER_CLAUSE = 3  # "sorry, 35", "oops, three kids"
_NUMBERS = word_set(
    "one two three four five six seven eight nine ten eleven twelve uno dos tres cuatro"
    " cinco un une deux trois quatre cinq ein eine zwei drei vier fünf"
)
# The user's own past belief just before the quote: "I thought (that)".
_THOUGHT = phrase_index(
    "",
    phrases=(
        "i thought", "i believed", "i assumed", "i used to think", "i always thought",
        "i was going to say", "i was about to say", "i almost said",
        "creía que", "creí que", "pensaba que", "je croyais que", "je pensais que",
        "je croyais", "je pensais", "ich dachte", "ich dachte dass", "achava que",
        "eu achava que", "pensavo che", "credevo che", "я думал что", "я думала что",
        "я думал", "я думала", "myślałem że", "myślałam że", "ik dacht dat", "ik dacht",
        "我以为", "我以為",
    ),
)  # fmt: skip
_THAT = word_set("that que qu che dass что że dat")
# What a belief is of: a clause with its subject ("I thought I", "ich dachte, ich").
_BELIEVED_SUBJECTS = FIRST_PERSON | word_set(
    "he she it they you this that my our his her their there mein meine mon ma mes mi mis мой моя"
)
_CONFIRMING = word_set("as like como comme wie как jak zoals")  # "As I thought, I'm ..."
_TOLD_LINES = phrase_index(
    "",
    phrases=(
        "is what i tell", "is what i say", "is what i always say",
        "es lo que digo", "c est ce que je dis", "ist was ich sage", "é o que eu digo",
    ),
)  # fmt: skip
_LINE_REACH = 6
_LINE_FIRST = frozenset(p[0] for ps in _TOLD_LINES.values() for p in ps)


def corrected_after(said: Wording, start: int, end: int) -> bool:
    """Whether the clause after the quote at ``said.words[start:end]`` (in its sentence or
    opening the next) corrects it."""
    words = said.words
    lo = end if end in said.breaks else _next_break(said, end)
    if lo >= len(words) or said.sentence_of(lo) > said.sentence_of(end - 1) + 1:
        return False
    if corrected_to_the_past(said, lo):
        return True  # "I have a boyfriend. had.", "tengo novia, bueno tenía"
    weak = _weak_at(words, lo)
    if weak and _weakly_corrected(said, weak, words[start:end]):
        return True  # "three kids, no, not three", "I'm 34, sorry, 35", "nee, eigentlich"
    if _told_by_another(said, lo):
        return True  # "I talk in my sleep, at least that's what my gf says"
    at = lo
    while at < len(words) - 1 and words[at] in _LEADING and at - lo < _OPENER_REACH:
        at += 1
    for opening in {lo, at}:  # "enfin non", or "well, scratch that"
        for stop in range(opening + 1, min(len(words), opening + _OPENER_REACH + 1) + 1):
            if _opens_at(words, opening, stop, _CORRECTING):
                if words[stop - 1] in _NO_LONGER and any_negator(words[start:end]):
                    return False  # "I don't smoke, not anymore" confirms
                return stop >= len(words) or words[stop] not in _MEANT  # not "I mean it"
    stops = range(at + 1, min(len(words), at + _OPENER_REACH) + 1)
    for stop in stops:
        actually = phrase_ending(words, stop, _ACTUALLY)
        if actually and stop - len(actually) == at:
            return _a_change(words[stop : stop + _CHANGE_REACH + 1])
    return False


def _weak_at(words: Sequence[str], lo: int) -> int:
    """Where what follows a bare "no", "sorry", "digo" opening at ``words[lo]`` begins
    (0 if none opens there)."""
    for stop in range(lo + 1, min(len(words), lo + _OPENER_REACH) + 1):
        if _opens_at(words, lo, stop, _WEAK):
            return stop
    return 0


def _weakly_corrected(said: Wording, at: int, quoted: list[str]) -> bool:
    """Whether what follows a bare "no" at ``said.words[at]`` corrects the quote: "not"
    and a word of it, another number, or "actually"."""
    words = said.words
    if at >= len(words):
        return False
    two = words[at : at + 2]
    if len(two) == 2 and two[0] in _NOT and two[1] in quoted:
        return True
    if _another_number(said, at, quoted):
        return True
    stops = range(at + 1, min(len(words), at + 2) + 1)
    return any(_opens_at(words, at, stop, _ACTUALLY) for stop in stops)


def _told_by_another(said: Wording, lo: int) -> bool:
    """Whether the clause at ``said.words[lo]`` is "(at least) that's what my gf says"."""
    words = said.words
    at = lo
    while at < len(words) and words[at] in _AT_LEAST and at - lo < _OPENER_REACH:
        at += 1
    if tuple(words[at : at + len(_THATS_WHAT)]) != _THATS_WHAT:
        return False
    who = words[at + len(_THATS_WHAT) : at + len(_THATS_WHAT) + _WHO_REACH + 1]
    verb = next((i for i, w in enumerate(who) if w in SAYING or w in REPORTING), None)
    if not verb:
        return False  # "that's what I told the waiter", not "that's what I tell people"
    return _WE.isdisjoint(who[:verb]) or who[verb] in _TELL_NOW


def _a_change(after: Sequence[str]) -> bool:
    """Whether ``after``, what follows "actually", tells a change ("I just moved to
    Milwaukee", "I no longer work there"), not one confirming ("I moved here in 2019")."""
    if after and after[0] in _OTHERS:
        return False  # "Actually, my wife left last year": another's change
    at = next((i for i, word in enumerate(after) if word in _CHANGED), None)
    return at is not None and (at + 1 >= len(after) or after[at + 1] not in _HERE)


def _opens_at(words: Sequence[str], at: int, stop: int, phrases: dict[str, list[tuple[str, ...]]]
              ) -> bool:  # fmt: skip
    """Whether one of ``phrases`` is ``words[at:stop]`` ("nein quatsch", not "quatsch")."""
    return tuple(words[at:stop]) in phrases.get(words[stop - 1], ())


def _another_number(said: Wording, at: int, quoted: list[str]) -> bool:
    """Whether the short clause at ``said.words[at]`` is only a number, and the quote has
    one: "I have two kids, sorry, three"."""
    clause = said.words[at : _next_break(said, at)]
    return (
        0 < len(clause) <= _NUMBER_CLAUSE and _a_number(clause[0]) and any(map(_a_number, quoted))
    )


def _a_number(word: str) -> bool:
    return word.isdigit() or word in _NUMBERS


def _next_break(said: Wording, end: int) -> int:
    return min((b for b in said.breaks if b > end), default=len(said.words))


def believed_before(said: Wording, start: int) -> bool:
    """Whether the user's own past belief ("I thought", "je croyais que") stands just
    before the quote at ``said.words[start]``, not a confirmed one ("As I thought")."""
    words = said.words
    first = said.sentence_span(said.sentence_of(start))[0]
    for at in (start, start - 1):
        if at <= first or (at < start and words[at] not in _THAT):
            continue
        thought = phrase_ending(words, at, _THOUGHT)
        unsaid = at == start and words[start] not in _BELIEVED_SUBJECTS
        if thought and unsaid and thought[-1] not in _THAT:
            continue  # "I assumed the role of manager": no belief
        if thought and at - len(thought) >= first:
            opening = at - len(thought)
            return opening == first or words[opening - 1] not in _CONFIRMING
    return False


def a_line_told(said: Wording, end: int) -> bool:
    """Whether "is what I tell everyone" follows the quote ending at ``said.words[end]``."""
    words = said.words
    if end >= len(words) or words[end] not in _LINE_FIRST:
        return False  # the common case
    return any(
        (line := phrase_ending(words, at, _TOLD_LINES)) is not None and at - len(line) == end
        for at in range(end + 3, min(len(words), end + _LINE_REACH) + 1)
    )
