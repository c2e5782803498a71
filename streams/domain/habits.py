"""German and Dutch "wenn", "als" clauses of a recurring situation (for streams/domain/mood.py).

"Wenn ich gestresst bin, esse ich Schokolade", "Als ik moe ben, drink ik koffie", "Wenn
ich von der Arbeit komme, gehe ich mit dem Hund raus", "Als ik thuiskom van werk, laat ik
de hond uit": German and Dutch tell a habit and a condition alike, a present after
"wenn", "als". The clause is a habit ("whenever") when it names a passing state ("müde
bin", "gestrest ben") or a daily round (home, work, waking up, free time), and what
follows it in the present is the user's statement. A one-off event stays a condition or
a plan: a move, a job got, retiring, growing older ("wenn ich nach München ziehe, kaufe
ich mir ein Fahrrad", "Wenn ich älter bin, ..."), a place ("wenn ich in Rente bin",
"als ik daar ben"), and so does any future after it ("werde ich", "zal ik", "ga ik ...
wonen").

The other way round, a clause of a one-off event makes what follows it a plan even in
the present, with or without a comma: "Sobald ich den Job habe, ziehe ich nach Berlin",
"Zodra ik de baan heb, verhuis ik naar Utrecht", "als ik met pensioen ben ga ik in
spanje wonen" (a move, a job, retiring, marrying, graduating, a birth to come; not a
place: "Als ik in Utrecht ben, bezoek ik mijn oma" may be a habit).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from streams.domain.wording import word_set

_OPENINGS = word_set("wenn als wanneer if when whenever")
_SUBJECTS = word_set("ich ik wir we wij i")
# The weather, a daily round of its own: "Wenn es regnet", "Als het regent", "If it rains".
_WEATHER_SUBJECTS = word_set("es het it")
_COPULAS = word_set("bin ben sind zijn")
# The main clause in the future: a plan after the event ("werde ich", "ga ik wonen").
_FUTURE = word_set("werde werden wird wirst zal zullen zult ga gaan gaat will ll going gonna")
# A daily round: home, work, school, waking, free time, the weather.
_DAILY = word_set(
    "hause heimkomme heimkomm arbeit büro schule uni feierabend aufwache aufstehe zeit"
    " morgens abends regnet thuis thuiskom huis werk kantoor school wakker opsta tijd"
    " regent avonds ochtends frei vrij schneit sneeuwt rains snows home work office school"
    " schlafen einschlafen slapen"
)
# A one-off event or a state reached once: a move, a job, retiring, growing up, a place.
_ONE_OFF = word_set(
    "ziehe umziehe verhuis verhuizen bekomme kriege krijg heirate trouw rente pensioen"
    " fertig klaar älter ouder groß groot erwachsen volwassen job stelle baan reich rijk"
    " alt oud da daar dort in met bei geboren verheiratet getrouwd"
    " schwanger zwanger nächste nächsten volgende volgend wieder weer zurück terug gesund"
    " tomorrow morgen next"
    " beter"
)
DAILY = _DAILY  # for streams/domain/time_clauses.py
_SHORTEST, _LONGEST = 2, 8  # words of the clause after its opening
_AND = word_set("und en and")
_EVENT_OPENINGS = word_set("wenn als wanneer sobald zodra nachdem nadat")  # German, Dutch
# Events that happen once: what follows them waits for them.
_EVENTS = word_set(
    "ziehe umziehe verhuis verhuizen verhuisd umgezogen bekomme kriege krijg heirate"
    " trouw getrouwd verheiratet rente pensioen job stelle baan abschluss diploma"
    " studium studie afgestudeerd geboren"
)
_PAST = word_set("hatte hatten war waren wurde wurden had hadden was werd")
_AGE = word_set("bin ben word werde wird jahre jaar")
_INVERTED = word_set("ich ik wir we")  # "ziehe ich", "verhuis ik", "ga ik"


def _an_age(clause: Sequence[str]) -> bool:
    """ "18 bin", "18 word", "60 Jahre": an age reached once (not "10 Minuten laufe")."""
    return any(w.isdigit() and nxt in _AGE for w, nxt in pairwise(clause))


def one_off_when(
    words: Sequence[str], first: int, start: int, end: int, breaks: frozenset[int]
) -> bool:
    """Whether the sentence from ``first`` opens with a "sobald", "wenn", "zodra" clause
    of a one-off event and the quote ``words[start:end]`` is the clause after it."""
    if words[first] not in _EVENT_OPENINGS or start - first < _SHORTEST + 1:
        return False
    if words[first + 1] not in _SUBJECTS:
        return False
    clause_end = min((b for b in breaks if first + 1 < b <= start), default=start)
    clause = words[first + 1 : start]
    once = not _EVENTS.isdisjoint(clause) or _an_age(clause)  # "als ik 18 word"
    if clause_end != start or not once or not _PAST.isdisjoint(clause):
        return False  # "Nadat ik verhuisd was, werkte ik in Gent": a past
    if start in breaks:
        return True  # "Sobald ich den Job habe, ziehe ich nach Berlin"
    return start + 1 < len(words) and words[start + 1] in _INVERTED  # no comma: "ben ga ik"


def habitual_when(
    words: Sequence[str], first: int, start: int, end: int, breaks: frozenset[int]
) -> bool:
    """Whether the sentence from ``first`` opens with a "wenn", "als" clause of a recurring
    situation that ends where the quote ``words[start:end]`` begins, the quote in the
    present (or such a clause after "und", "en": "..., und wenn ich frei hab mach ich")."""
    if _OPENINGS.isdisjoint(words[first:start]):
        return False  # the common case
    first = next(
        (at for at in range(start - 2, first - 1, -1) if words[at] in _OPENINGS
         and (at == first or at in breaks or words[at - 1] in _AND)),
        -1,
    )  # fmt: skip
    if first < 0 or first + 1 >= start or words[first + 1] not in _SUBJECTS | _WEATHER_SUBJECTS:
        return False
    if words[first + 1] in _WEATHER_SUBJECTS and _DAILY.isdisjoint(words[first + 2 : start]):
        return False  # "Wenn es klappt": not the weather
    clause_end = min((b for b in breaks if first + 1 < b <= start), default=start)
    clause = words[first + 1 : clause_end]
    if clause_end != start or not _SHORTEST <= len(clause) <= _LONGEST:
        return False  # the quote is not the clause right after the "wenn" clause
    main_end = min((b for b in breaks if b > start), default=len(words))
    if not _FUTURE.isdisjoint(words[start : max(end, main_end)]) or not _ONE_OFF.isdisjoint(clause):
        return False
    if _an_age(clause):  # "wenn ich 18 bin": an age, once
        return False
    return clause[-1] in _COPULAS or not _DAILY.isdisjoint(clause)
