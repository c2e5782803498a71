"""Future verb forms, one word at a time, as folded (for streams/domain/time_clauses.py).

A time clause makes a statement depend on an event only when the statement is told in
the future: "Cuando me mude, compraré un coche", not "Cuando tengo tiempo voy al cine".
Each language's own future is told here from the folded word alone (accents gone, so
"comprare", "trasferiro"), with the everyday words of the same shape left out ("quiere",
"vrai", "numero").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from streams.domain.wording import word_set

# Synthetic futures of the first person.
_SPANISH = re.compile(
    r"^\w{2,}[aei]re(?:mos)?$|^(?:ten|pon|sal|ven|val|po)dre(?:mos)?$"
    r"|^(?:sab|cab|hab|ha|di|quer)re(?:mos)?$|^ire(?:mos)?$"
)
_NOT_SPANISH = re.compile(r"(?:iere|uere|aire)$")  # quiere, prefiere, muere, aire
_FRENCH = re.compile(r"^\w{2,}(?:rai|rons)$")
_NOT_FRENCH = word_set("vrai environs marrons")
_PORTUGUESE = re.compile(r"^\w{2,}[aei]r(?:ei|emos)$")
_ITALIAN = re.compile(r"^\w{3,}(?:er|ir)o$|^(?:sa|av|fa|da|sta|and|pot|dov|vor|ver|ter)ro$")
_NOT_ITALIAN = re.compile(r"eiro$|^(?:numero|pensiero|straniero|mistero|sincero|davvero)$")
# Portuguese "vou comprar" is a future after a clause in the future subjunctive ("Quando
# eu me mudar", "quando tiver"), which looks like an infinitive; Spanish "voy a comprar"
# after one in the present subjunctive ("cuando me mude", "en cuanto termine").
_MI = "mi"
_GOING = word_set("vou vamos")
_SPANISH_GOING = word_set("voy vamos")
_CLITICS = word_set("me te se nos lhe")
_INFINITIVE = re.compile(r"^\w{2,}(?:ar|er|ir)$")
_SUBJUNCTIVE = word_set("for tiver estiver puder fizer souber quiser vier houver")
_SPANISH_SUBJUNCTIVE = word_set(
    "tenga tengamos sea seamos vaya vayamos pueda podamos haga hagamos consiga consigamos"
    " termine terminemos acabe acabemos mude mudemos encuentre encontremos gane ganemos"
    " salga salgamos venga vengamos haya hayamos jubile jubilemos gradue graduemos"
    " cumpla cumplamos vuelva volvamos nazca ahorre ahorremos"
)


def spanish(word: str) -> bool:
    """ "compraré", "tendremos" (folded), not "quiere", "aire"."""
    return bool(_SPANISH.match(word)) and not _NOT_SPANISH.search(word)


def french(word: str) -> bool:
    """ "j'achèterai", "serai", "aurons", not "vrai"."""
    return bool(_FRENCH.match(word)) and word not in _NOT_FRENCH


def portuguese(word: str) -> bool:
    """ "comprarei", "faremos"."""
    return bool(_PORTUGUESE.match(word))


def italian(word: str) -> bool:
    """ "comprerò", "avrò", "andrò" (folded), not "numero", "primeiro"."""
    return bool(_ITALIAN.match(word)) and not _NOT_ITALIAN.search(word)


def italian_reflexive(two: Sequence[str]) -> bool:
    """ "mi trasferirò": Italian "mi" before a future is "myself", not Spanish "my"."""
    return len(two) == 2 and two[0] == _MI and italian(two[1])


def portuguese_subjunctive(time: Sequence[str]) -> bool:
    """A Portuguese future subjunctive in the time clause: "tiver", "me mudar"."""
    return any(w in _SUBJUNCTIVE or (len(w) > 3 and _INFINITIVE.match(w)) for w in time)


def spanish_subjunctive(time: Sequence[str]) -> bool:
    """A Spanish present subjunctive in the time clause: "me mude", "consiga"."""
    return not _SPANISH_SUBJUNCTIVE.isdisjoint(time)


def going(main: Sequence[str], spanish_too: bool = False) -> bool:
    """ "vou comprar" (or, ``spanish_too``, "voy a comprar"): going to, and a verb."""
    for w, nxt, after in zip(main, main[1:], [*main[2:], ""], strict=False):
        if w in _GOING and (
            _INFINITIVE.match(nxt) or (nxt in _CLITICS and _INFINITIVE.match(after))
        ):
            return True  # "vou comprar", "vou me mudar"
        if spanish_too and w in _SPANISH_GOING and nxt == "a" and _INFINITIVE.match(after):
            return True
    return False


def italian_both(time: Sequence[str], main: Sequence[str]) -> bool:
    """Italian futures in both clauses ("Quando mi trasferirò, comprerò"): one alone may
    be a present ("desidero", "considero")."""
    return all(any(map(italian, clause)) for clause in (time, main))
