"""Whether a condition before a quote reaches it (for streams/domain/mood.py).

"If I get the offer I will move to Berlin", "Si consigo el trabajo, me mudo", "Wenn ich
die Stelle bekomme, ziehe ich nach Berlin": what follows a condition in its sentence is
supposed, not said. A condition a few words back reaches the quote, but not past a
conjunction joining another statement in the quote's own clause ("If it rains I'll stay
in, but I live in Leeds"), nor when it follows the clause it is the condition of ("Буду
рада, если поможешь — я мама"). Nor does one about the telling ("If you're curious, I'm 34", "If I
remember right, I moved here in 2019", "if possible"), a concession ("Even if it rains, I
cycle"), an "if" that means "whether" ("Can you check if my flight to Rome is
delayed?"), a given ("wenn ich im März sowieso nach Wien ziehe"), or Malay and
Indonesian "kalau" as "as for" ("Kalau saya, saya suka kopi").
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.marks import any_trailing, foreign_if, trailing_condition
from streams.domain.wording import Wording, ends_with_phrase, phrase_ending, phrase_index, word_set

_CONDITIONS = phrase_index(
    "if unless wenn falls sofern jeśli jeżeli если якщо eğer jika nếu 如果 假如 要是 倘若"
    " もし 만약 만일 إذا لو اگر אם अगर यदि εάν αν jos kalau kalo apabila seandainya andaikan"
    " ikiwa ถ้า 只要 万一 萬一 pokud jestli dacă",
    phrases=(
        "in case",
        "let's say",
        "what if",
        "stell dir vor",
        "qué tal si",
        "et si",
        "e se",
        "what about if",
        "und was wenn",
    ),
)
# Conditions only as a sentence's first word with a clause of their own after them: "Si
# consigo el trabajo, me mudo" (not "Sí, vivo en Madrid", nor reflexive "Se mudó").
_OPENING_CONDITIONS = word_set("si se als")
_MAIN_SUBJECTS = word_set("je j tu il elle on nous vous ils elles io mi ti ci me te yo eu ik")
_ALS, _GERMAN_ONLY_SUBJECTS = "als", word_set("ich du wir ihr")
# Where the condition's reach ends, looking back from the quote: a conjunction joining
# two statements in the quote's own clause (not "then", which introduces what a
# condition leads to; one inside the condition, "if I get the job and a flat,", does not).
JOINS = phrase_index(
    "but and or so because although though however yet aber und oder denn weil sondern"
    " doch mais et ou car donc pero y porque sino pues e ma ed però perché mas porém но и"
    " а или потому ale oraz lecz fakat ama ve tapi dan atau nhưng và 但 而 和 并 且 แต่"
    " และ لكن אבל लेकिन और 하지만 그리고 でも しかし そして"
)
# Just before the condition: "even if", "whenever", "wonder if" (whether).
# Malay and Indonesian "kalau" before one word and a comma: "as for" ("Kalau saya, ...").
_TOPIC_MARKERS = frozenset([("kalau",), ("kalo",)])
# "Kalau lagi stres aku makan coklat": whenever (a habit), unless a future follows.
_LAGI, _ID_FUTURE, _HABIT_REACH = "lagi", word_set("akan bakal mau"), 12
_NOT_CONDITIONING = word_set(
    "even selbst auch immer mal даже nawet גם حتى bahkan wonder wondering wondered check see"
    " ask asked"
    " asking know sure tell unsure idea decide clue whether lupa tahu tau ingat bilang"
    " か"  # かもしれない: no もし ("if")
)
# In the condition: about the telling, not the told ("if you're curious", "if I'm
# honest", "if possible", "if I remember right"), or the assistant's part ("if you can").
MANNER = word_set(
    "you your du dich dir tu vous usted ustedes ты вы 你 您 remember recall memory honest"
    " honestly ask mistaken matters helps understand curious wondering relevant interested"
    " possible necessary needed anything erinnere ehrlich fragst помню честно что"
    " pamiętam chodzi 记错 記錯 可以 याद nhớ nhầm זוכר سمحت possível posible possibile ärlig"
    " boleh"
)
# After the condition: a given, not supposed ("wenn ich sowieso nach Wien ziehe").
_GIVEN_ANYWAY = word_set("sowieso ohnehin anyway anyways")
# A sentence's first word "si", "se" not opening a condition: Portuguese "Se calhar"
# (maybe), "Se bem que", Spanish "Si bien" (although).
_NOT_OPENING_CONDITIONS = frozenset([("se", "calhar"), ("se", "bem"), ("si", "bien")])
_CONDITION_REACH = 20  # tokens looked back for a condition (characters, in CJK)
MANNER_REACH = 4


def condition_reaches(said: Wording, first: int, start: int) -> bool:
    """Whether a condition a few words before ``said.words[start]`` in its sentence
    reaches it: not past a conjunction of the quote's own clause, nor from after another
    clause, nor one about the telling."""
    words = said.words
    reach = max(first, start - _CONDITION_REACH)
    if _CONDITIONS.keys().isdisjoint(words[reach:start]) and not any_trailing(
        words, reach, start, said.breaks
    ):
        return False  # no condition in reach: the common case
    in_own_clause = True
    for at in range(start, reach, -1):
        in_own_clause = in_own_clause and at not in said.breaks
        if in_own_clause and ends_with_phrase(words, at, JOINS):
            return False
        if ends_with_phrase(words, at, _CONDITIONS):
            if not in_own_clause and _trailing(said, first, at):
                return False  # "Буду рада, если поможешь — я мама": the clause before's
            return not about_the_telling(words, at, start, said.breaks)
        closing = trailing_condition(words, at, said.breaks)
        if closing:  # the condition is the clause before its closing mark
            return MANNER.isdisjoint(words[max(first, at - closing - MANNER_REACH) : at])
    return False


def _trailing(said: Wording, first: int, at: int) -> bool:
    """Whether the condition ending before ``said.words[at]`` follows a clause of two
    words or more in its sentence: it says on what that clause depends."""
    opening = at - len(phrase_ending(said.words, at, _CONDITIONS) or ())
    return any(first + 1 < b <= opening for b in said.breaks)


def an_opening_condition(said: Wording, first: int, quote: tuple[int, int, int]) -> bool:
    """Whether the quote is the clause after a sentence's first word "si" ("Si j'avais un
    chien, ..." quoted without its "si"), or the one after its comma ("Si consigo el
    trabajo, me mudo")."""
    start, end, last = quote
    if start < first + 1:
        return False
    if said.words[first] not in _OPENING_CONDITIONS and not foreign_if(said.words, first):
        return False
    if first + 1 in said.breaks or tuple(said.words[first : first + 2]) in _NOT_OPENING_CONDITIONS:
        return False  # "Sí, vivo en Madrid", "Se calhar já sabes, mas sou professora"
    if said.words[first] == _ALS and said.words[first + 1] in _GERMAN_ONLY_SUBJECTS:
        return False  # German "Als ich in Berlin wohnte": a past time, not Dutch "if"
    if start == first + 1:  # the condition itself, if a clause follows it
        return any(b in said.breaks for b in range(end, last))
    if start - first > 2 and said.words[start] in _MAIN_SUBJECTS:
        return True  # no comma: "si j'ai le poste je déménage", "se ottengo il lavoro mi"
    return any(b in said.breaks for b in range(first + 2, start + 1))


def about_the_telling(
    words: Sequence[str], end: int, start: int, breaks: frozenset[int] = frozenset()
) -> bool:
    """Whether the condition ending before ``words[end]`` is "even if", "whenever", "if"
    for "whether", or about the telling ("if you ask me")."""
    marker = phrase_ending(words, end, _CONDITIONS) or ()
    if marker in _TOPIC_MARKERS and end + 1 in breaks:
        return True  # "Kalau saya, saya suka kopi": "as for me", no condition
    if marker in _TOPIC_MARKERS and words[end : end + 1] == [_LAGI]:
        return _ID_FUTURE.isdisjoint(words[end : end + _HABIT_REACH])  # "Kalau lagi stres"
    before = end - len(marker) - 1
    if before >= 0 and words[before] in _NOT_CONDITIONING:
        return True
    if not _GIVEN_ANYWAY.isdisjoint(words[end : end + MANNER_REACH + 2]):
        return True  # "wenn ich im März sowieso nach Wien ziehe": a given, not supposed
    return bool(MANNER.intersection(words[end : min(start, end + MANNER_REACH)]))
