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
The time clause reaches only the clause right after it ("When I get home I'll call - I'm
a nurse": "I'm a nurse" stands), and with no comma it ends where the quote opens. A
future before its clause is streams/domain/time_after.py; Chinese and Arabic,
streams/domain/time_scripts.py; the futures of each language, streams/domain/futures.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from streams.domain import futures
from streams.domain.habits import DAILY
from streams.domain.time_after import future_before_time, phrase_at
from streams.domain.time_scripts import arabic_or_chinese
from streams.domain.wording import ends_with_phrase, folded_words, phrase_index, word_set

# Openings of a time clause, by the future each language tells after it.
_OPENINGS: dict[tuple[str, ...], str] = {
    **dict.fromkeys(folded_words("when once"), "en"),
    **dict.fromkeys(
        [
            ("as", "soon", "as"),
            ("soon", "as"),
            ("the", "moment"),
            ("the", "minute"),
            ("by", "the", "time"),
            ("if", "and", "when"),
            ("the", "day"),
        ],
        "en",
    ),
    ("after",): "en-after",
    **dict.fromkeys([("cuando",), ("en", "cuanto"), ("tan", "pronto", "como")], "es"),
    **dict.fromkeys([("quand",), ("lorsque",), ("des", "que"), ("une", "fois", "que")], "fr"),
    ("quando",): "pt-it",
    **dict.fromkeys([("assim", "que"), ("logo", "que")], "pt"),
    **dict.fromkeys([("appena",), ("non", "appena"), ("una", "volta", "che")], "it"),
    **dict.fromkeys(folded_words("когда"), "ru"),
    ("как", "только"): "ru",
    **dict.fromkeys([("kiedy",), ("gdy",), ("jak", "tylko"), ("kiedy", "tylko"), ("jak",)], "pl"),
    **dict.fromkeys(folded_words("sobald nachdem"), "de"),
    **dict.fromkeys(folded_words("zodra nadat wanneer"), "nl"),
    ("khi",): "vi",
    **dict.fromkeys(folded_words("setelah sesudah begitu"), "id"),
}
_FIRST_WORDS = frozenset(o[0] for o in _OPENINGS)
FIRST_WORDS = _FIRST_WORDS  # for streams/domain/time_inside.py
_LONGEST = max(map(len, _OPENINGS))
# Idioms: "when it comes to", "when in Rome", "quand même" (still), "en cuanto a" (as
# for), "когда-то" (once).
_NOT_TEMPORAL = (
    ("when", "it", "comes", "to"), ("when", "in"), ("quand", "meme"), ("когда", "то"),
    ("когда", "либо"), ("en", "cuanto", "a"), ("en", "cuanto", "al"),
)  # fmt: skip
# A word that may come before the opening ("So when I move, ...", "Y cuando me mude").
_LEADING = word_set(
    "so and but then well also y e et mais pero ma und aber en и а но anyway anyways"
)
_SUBJECTS = word_set(
    "i we he she they it you the my our your his her their summer winter spring autumn fall"
    " christmas"
)
_SPEAKERS = word_set("i we")
_ENGLISH_FUTURE = phrase_index("will shall", phrases=("am going to", "are going to"))
_WILL = phrase_index("will shall")
_ZAL = word_set("zal zullen")
_FUTURE_WORDS = {
    "ru": word_set("буду будем"),
    "pl": word_set("będę będziemy"),
    "de": word_set("werde werden werd"),
    "nl": word_set("zal zullen ga gaan gaat"),  # "ga": not after the daily round
    "vi": word_set("sẽ"),
    "id": word_set("akan bakal"),
}
_ENGLISH_PAST = word_set(
    "was were did had said asked told went got came saw met left took made bought lost"
    " found knew thought felt began became ran ate gave wrote heard"
)
_HABIT = word_set(
    "every each often sometimes usually always normally generally typically occasionally"
    " oft manchmal regelmäßig immer meistens vaak soms altijd meestal biasanya thường"
)
# German and Dutch past tenses in the time clause: what follows it is no future ("Nachdem
# ich operiert wurde, werde ich regelmäßig untersucht": a passive).
_GERMANIC_PAST = word_set("hatte hatten war waren wurde wurden had hadden was waren werd")
# Events sure to come: what waits for them is no condition.
_SURE = word_set(
    "birthday cumpleanos anniversaire geburtstag verjaardag aniversario compleanno dogum"
)
# Without punctuation, a time clause of at least two words ends where the quote opens
# ("cuando consiga el trabajo me compraré un coche").
_UNMARKED_CLAUSE = 2
_QUE = "que"
_WILL_NAMED = "will"
_HAVE = word_set("have has get gets")  # a perfect, or "get promoted" (not "am stressed")
_PLACES = word_set(
    "the a an my your his her our their this that bed work school church class town"
    " college uni university lunch dinner breakfast physio therapy rehab practice"
)
_THAT = word_set("that que qu что dass che dat")
_ILL = "ill"
_SICK_BEFORE = word_set(
    "am is are was were be been being feel felt feeling get got getting fell very so too"
    " really quite seriously terminally mentally critically i"
)
# Turkish: a converb of time ("olunca", "gelince", "geldiğimde") before a first-person
# future ("taşınacağım", "alacağız").
_TURKISH_WHEN = re.compile(r"^\w{2,}[iu]nc[ae]$|^\w{2,}[dt][iu]g[iu](?:m|miz|n)?d[ae]$")
_CASE_ENDINGS = word_set("de da te ta den dan ten tan ye ya e a nin nın in ın")
_TURKISH_AND = word_set("ve ama fakat")
# Adverbs of the same ending ("yeterince" enough, "sakince" calmly), no converbs.
_NOT_TURKISH_WHEN = word_set(
    "boyunca yeterince sakince derince uzunca düzgünce güzelce iyice hızlıca kısaca"
    " rahatça sessizce dikkatlice"
)
_TURKISH_PAST = re.compile(r"[dt][iu](?:m|k|n|niz)$")  # "yaşadım", "bekledik": a past
_TURKISH_FUTURE = re.compile(r"^\w{2,}[ae]c[ae]g[iu][mz]$")


def future_after_time(words: Sequence[str], span: tuple[int, int, int, int],
                      breaks: frozenset[int], names: frozenset[int] = frozenset()
                      ) -> bool:  # fmt: skip
    """Whether the quote at ``span[1]:span[2]`` of the sentence ``span[0]:span[3]`` is a
    future that hangs on a time clause opening the sentence or following the quote."""
    first, start, end, last = span
    if not _SURE.isdisjoint(words[first:start]):
        return False  # "When my birthday comes around next week, I'll be 40"
    if _turkish(words, span[:3]) or arabic_or_chinese(words, span[:3], breaks):
        return True
    if start <= first or _FIRST_WORDS.isdisjoint(words[first:start]):
        return future_before_time(words, start, end, last)
    opening = _opening(words, first)  # "en cuanto", not Dutch "en" ("and") before one
    if opening is None and first + 1 < start and words[first] in _LEADING:
        first += first + 1 not in breaks
        opening = _opening(words, first)
    if opening is None or any(tuple(words[first : first + len(i)]) == i for i in _NOT_TEMPORAL):
        return future_before_time(words, start, end, last)
    lang = _OPENINGS[opening]
    clause = _clause_end(words, first + len(opening), start, breaks, lang)
    if clause is None:
        return False
    time, main = words[first + len(opening) : clause], words[clause:end]
    if not _HABIT.isdisjoint(main) or not _SPEAKERS.isdisjoint(words[clause + 1 : start + 1]):
        return False  # "... like every night"; "when i get home ill call u im a nurse"
    if _WILL_NAMED in main and not names.isdisjoint(range(clause, end)):
        main = [w for at, w in enumerate(main, clause) if w != _WILL_NAMED or at not in names]
    return _a_future(lang, time, main)  # "When I get home, Will and I cook": a name


def _opening(words: Sequence[str], at: int) -> tuple[str, ...] | None:
    return phrase_at(words, at, _OPENINGS, _LONGEST)


def time_opening(words: Sequence[str], at: int) -> tuple[tuple[str, ...], str] | None:
    """The time clause's opening at ``words[at]`` and the language of its futures, for
    streams/domain/time_inside.py."""
    opening = _opening(words, at)
    if opening is None or any(tuple(words[at : at + len(i)]) == i for i in _NOT_TEMPORAL):
        return None
    return opening, _OPENINGS[opening]


def main_opens(words: Sequence[str], at: int) -> bool:
    """Whether an English main clause in the future opens at ``words[at]`` ("ill", "I'll",
    "I'm going to"), for a time clause without a comma."""
    return _informal_will(words, at) or (words[at] in _SPEAKERS and _future_opens(words, at + 1))


def a_future(lang: str, time: Sequence[str], main: Sequence[str]) -> bool:
    """Whether a time clause and the clause after it tell a future in ``lang``."""
    return _HABIT.isdisjoint(main) and _a_future(lang, time, main)


def _clause_end(words: Sequence[str], lo: int, start: int, breaks: frozenset[int], lang: str
                ) -> int | None:  # fmt: skip
    """Where the time clause ends: at its punctuation, the quote in the clause after
    ("When I get home, I'll call you - I'm a nurse" stands), or, without it, where
    "I will", "I'm going to" begins ("When I move to Denver I'll buy a car")."""
    clause = min((b for b in breaks if lo < b <= start), default=None)
    if clause is not None:  # the quote in a later clause is said on its own
        return None if any(b in breaks for b in range(clause + 1, start + 1)) else clause
    if not lang.startswith("en"):  # the quote opens the clause after it
        return start if start - lo >= _UNMARKED_CLAUSE else None
    return next(
        (at for at in range(lo + 2, start + 1) if _informal_will(words, at)
         or (words[at] in _SPEAKERS and (_future_opens(words, at + 1) or at == start
                                          or futures.english_plan_opens(words, at + 1)))),
        None,
    )  # fmt: skip


def _informal_will(words: Sequence[str], at: int) -> bool:
    """ "ill" for "I'll" ("when the lease ends ill probably move"), not "ill" as sick
    ("when I'm ill I stay home")."""
    return words[at] == _ILL and words[at - 1] not in _SICK_BEFORE


def _future_opens(words: Sequence[str], at: int) -> bool:
    return any(
        ends_with_phrase(words, at + size, _ENGLISH_FUTURE)
        for size in (1, 3)
        if at + size <= len(words)
    )


def _a_future(lang: str, time: Sequence[str], main: Sequence[str]) -> bool:
    """Whether the time clause ``time`` and the clause after it ``main`` tell a future
    in ``lang``, the time clause not told in the past."""
    if not _THAT.isdisjoint((*time[-1:], *main[:1])):
        return False  # "Когда я сказал маме, что буду жить в Питере": what was said
    if lang.startswith("en"):
        if _SUBJECTS.isdisjoint(time) or any(
            _english_past(w) and before not in _HAVE
            for before, w in zip(("", *time), time, strict=False)
        ):  # "Once I've saved enough": a perfect, not a past
            return False  # "After work, I will call", "Once again, I'll be": no clause
        if _WILL_NAMED not in main and _going_somewhere(main):
            return False  # "I'm going to the gym, like I do every day"
        phrases = _WILL if lang == "en-after" else _ENGLISH_FUTURE
        return (
            main[:1] == [_ILL]
            or any(ends_with_phrase(main, at, phrases) for at in range(1, len(main) + 1))
            or futures.english_plan(time, main, after=lang == "en-after")  # "I need to buy"
        )
    if lang in ("de", "nl") and not _GERMANIC_PAST.isdisjoint(time):
        return False
    if lang in ("ru", "pl"):  # "Когда перееду в Москву, куплю велосипед"
        return futures.slavic_both(time, main) or not _FUTURE_WORDS[lang].isdisjoint(main)
    if lang in ("vi", "id") and not _FUTURE_WORDS[lang].isdisjoint(time[-2:]):
        return True  # "khi nghỉ hưu mình sẽ chuyển ra biển": "sẽ" before the quote
    if lang == "nl" and not DAILY.isdisjoint(time):
        return not _ZAL.isdisjoint(main)  # "zodra ik thuis kom ga ik hardlopen": a habit
    if lang in _FUTURE_WORDS:  # German, Dutch: with the verb last ("werde ich krank" is
        # "I get ill", a habit), "werde ich nach Berlin ziehen", "zal ik bellen"
        verb_last = lang not in ("de", "nl") or main[-1].endswith("n")
        return verb_last and not _FUTURE_WORDS[lang].isdisjoint(main)
    if lang == "es":  # "compraré", or "voy a comprar", "vivo" after "cuando me mude"
        return any(map(futures.spanish, main)) or (
            futures.spanish_subjunctive(time) and futures.spanish_present(main)
        )
    if lang == "fr":  # "Quand je serai", "j'achèterai": a future in either clause, the
        # quote not after "que" ("ça fera 10 ans que je vis à Paris": "je vis" stands)
        return _QUE not in main[1:] and any(map(futures.french, (*time, *main)))
    portuguese = any(map(futures.portuguese, main)) or futures.portuguese_opening(time)
    italian = any(map(futures.italian, time))  # "quando andrò in pensione, vado a vivere"
    return (lang != "it" and portuguese) or (lang != "pt" and italian)


def _going_somewhere(main: Sequence[str]) -> bool:
    return any(
        a == "going" and b == "to" and c in _PLACES
        for a, b, c in zip(main, main[1:], main[2:], strict=False)
    )


def _english_past(word: str) -> bool:
    return word in _ENGLISH_PAST or (len(word) > 4 and word.endswith("ed"))


def _turkish(words: Sequence[str], span: tuple[int, int, int]) -> bool:
    """A Turkish time converb in the sentence before a quote with a first-person future."""
    first, start, end = span
    if end <= start or not _TURKISH_FUTURE.match(words[end - 1]):
        return False  # the verb closes the clause
    before = words[first:start]
    return any(
        _TURKISH_WHEN.match(w)
        and w not in _NOT_TURKISH_WHEN
        and nxt not in _CASE_ENDINGS
        and _TURKISH_AND.isdisjoint(before[at:])
        and not any(map(_TURKISH_PAST.search, before[at + 1 :]))
        for at, (w, nxt) in enumerate(zip(before, [*before[1:], ""], strict=False))
    )  # not a place, "Derince'de", nor one of another clause ("... ve gelecek ay")
