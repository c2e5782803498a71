"""Future verb forms, one word at a time, as folded (for streams/domain/time_clauses.py).

A time clause makes a statement depend on an event only when the statement is told in
the future: "Cuando me mude, compraré un coche", not "Cuando tengo tiempo voy al cine".
Each language's own future is told here from the folded word alone (accents gone, so
"comprare", "trasferiro"), with the everyday words of the same shape left out ("quiere",
"vrai", "numero"). Russian and Polish tell a future by a perfective verb in a present's
form ("когда перееду, куплю машину", "kiedy znajdę pracę, kupię samochód"): a prefix
(пере-, вы-, za-, prze-) or a perfective stem (куп-, kup-) without the suffix of an
imperfective ("прихожу", "устаю", "wracam", "stresuję"). English tells a plan after an
event also by "need to", "have to", "want to" or a present progressive ("When I move to
Denver, I need to buy a car", "After we close on the house I'm getting a puppy"), not
after a state or free time ("When I'm nervous I need to pee", "When I have time I want
to read").
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
_FRENCH = re.compile(r"^\w{2,}(?:rai|rons|ront)$")
_NOT_FRENCH = word_set("vrai environs marrons")
_PORTUGUESE = re.compile(r"^\w{2,}[aei]r(?:ei|emos)$")
_ITALIAN = re.compile(r"^\w{3,}(?:er|ir)o$|^(?:sa|av|fa|da|sta|and|pot|dov|vor|ver|ter)ro$")
_NOT_ITALIAN = re.compile(r"eiro$|^(?:numero|pensiero|straniero|mistero|sincero|davvero)$")
# Portuguese "vou comprar" is a future after a clause in the future subjunctive ("Quando
# eu me mudar", "quando tiver"), which looks like an infinitive; Spanish "voy a comprar"
# after one in the present subjunctive ("cuando me mude", "en cuanto termine").
_MI = "mi"
_MA, _DACA, _SE = "ma", "daca", "se"
_GOING = word_set("vou vamos")
_SPANISH_GOING = word_set("voy vamos")
_CLITICS = word_set("me te se nos lhe")
_PT_SUBJECTS = word_set("eu nós ele ela você a gente me se")
_INFINITIVE = re.compile(r"^\w{2,}(?:ar|er|ir)$")
_SUBJUNCTIVE = word_set("for tiver estiver puder fizer souber quiser vier houver")
_SPANISH_SUBJUNCTIVE = word_set(
    "tenga tengamos sea seamos vaya vayamos pueda podamos haga hagamos consiga consigamos"
    " termine terminemos acabe acabemos mude mudemos encuentre encontremos gane ganemos"
    " salga salgamos venga vengamos haya hayamos jubile jubilemos gradue graduemos"
    " cumpla cumplamos vuelva volvamos nazca ahorre ahorremos cobre cobremos llegue"
    " lleguemos pague paguemos empiece empecemos"
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


def romanian_reflexive(words: Sequence[str], first: int, start: int) -> bool:
    """ "Dacă primesc jobul, mă mut la Cluj": Romanian "mă" (folded "ma") after a "dacă"
    clause is "myself", not French "ma" ("my"); so is Italian "mi" before a verb after
    "se" ("se ottengo il lavoro mi trasferisco")."""
    if words[start] == _MA and words[first] == _DACA:
        return True
    two = words[start : start + 2]  # Italian "se ottengo il lavoro mi trasferisco"
    return words[first] == _SE and len(two) == 2 and two[0] == _MI and two[1].endswith("o")


def portuguese_subjunctive(time: Sequence[str]) -> bool:
    """A Portuguese future subjunctive in the time clause: "tiver", "me mudar"."""
    return any(w in _SUBJUNCTIVE or (len(w) > 3 and _INFINITIVE.match(w)) for w in time)


def spanish_subjunctive(time: Sequence[str]) -> bool:
    """A Spanish present subjunctive in the time clause: "me mude", "consiga"."""
    return not _SPANISH_SUBJUNCTIVE.isdisjoint(time)


def spanish_present(main: Sequence[str]) -> bool:
    """ "voy a comprar", or a first person present opening the clause ("vivo en Madrid",
    "me mudo"), not a past ("compré", folded "compre")."""
    verb = main[1] if len(main) > 1 and main[0] in _CLITICS else (main[0] if main else "")
    return going(main, spanish_too=True) or (len(verb) > 2 and verb.endswith("o"))


def portuguese_opening(time: Sequence[str]) -> bool:
    """A future subjunctive opening the time clause, maybe after its subject: "quando eu
    me aposentar", "quando tiver" (not "quando a minha mulher chega")."""
    at = 0
    while at < len(time) - 1 and at < 2 and time[at] in _PT_SUBJECTS:
        at += 1
    return bool(time) and portuguese_subjunctive(time[at : at + 1])


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


# Russian and Polish perfective futures (folded: й is и, ę is e, ł is l).
_SLAVIC_PREFIXES = (
    "пере", "вы", "на", "по", "за", "при", "до", "от", "раз", "рас", "под", "про", "со",
    "об", "куп", "брос", "сяд", "ляг", "prze", "prz", "za", "na", "po", "wy", "do", "od",
    "roz", "przy", "ze", "kup", "wezm", "znajd", "zna", "rzuc", "s", "z",
)  # fmt: skip
_SLAVIC_ENDINGS = ("у", "ю", "ем", "им", "e", "emy", "imy")
_IMPERFECTIVE = (
    "аю", "яю", "ую", "ваю", "аем", "яем", "уем", "жу", "шу", "щу", "uje", "ujemy",
    "am", "amy", "em", "ywam", "iwam", "owac",
)  # fmt: skip
_REFLEXIVE = ("сь", "ся")
_SHORTEST_SLAVIC = 5


def slavic_perfective(word: str) -> bool:
    """ "перееду", "куплю", "заведем", "znajdę", "kupię" (folded), not "прихожу", "устаю",
    "wracam", "stresuję"."""
    if word.endswith(_REFLEXIVE):
        word = word[:-2]
    if len(word) < _SHORTEST_SLAVIC or not word.startswith(_SLAVIC_PREFIXES):
        return False
    return word.endswith(_SLAVIC_ENDINGS) and not word.endswith(_IMPERFECTIVE)


def slavic_both(time: Sequence[str], main: Sequence[str]) -> bool:
    """Perfective futures in both clauses ("Когда найду работу, куплю машину")."""
    return all(any(map(slavic_perfective, clause)) for clause in (time, main))


# English plans after an event: "I need to buy", "I'm getting a puppy".
_NEEDS = word_set("need have want")
_TO_EN = "to"
_BEING = word_set("am are")
_GOING_EN = "going"
_PLAN_SUBJECTS = word_set("i we")
# A time clause of a state or of free time: what follows it is a habit.
# Events that happen once: a present after them is a plan ("when I retire I move").
_ONE_OFF = word_set(
    "retire retired retirement visa graduate graduated married marry wedding baby born"
    " promoted promotion pension degree divorce diploma mortgage"
)
_STATES = word_set(
    "am is are be feel feeling time chance minute free bored stressed tired nervous eat wake"
    " sleep run exercise shower train"
)


def english_plan_opens(words: Sequence[str], at: int) -> bool:
    """Whether ``words[at:]`` open "need to", "have to", "want to", or a present
    progressive other than "going" ("am getting")."""
    two = words[at : at + 2]
    if len(two) < 2:
        return False
    if two[0] in _NEEDS:  # "need to", "want them to"
        return two[1] == _TO_EN or words[at + 2 : at + 3] == [_TO_EN]
    return two[0] in _BEING and two[1].endswith("ing") and two[1] != _GOING_EN


def english_plan(time: Sequence[str], main: Sequence[str], *, after: bool = False) -> bool:
    """Whether ``main`` opens with "I" or "we" and a plan after the event ``time``, or
    with a present after a one-off event ("as soon as I get the visa I move to Canada";
    not after "after": "After I graduate, I'm starting at Google" is a schedule)."""
    if not _STATES.isdisjoint(time) or len(main) < 2 or main[0] not in _PLAN_SUBJECTS:
        return False
    return english_plan_opens(main, 1) or (not after and not _ONE_OFF.isdisjoint(time))
