"""Words the user asked, supposed or wished rather than said.

"Do I work at Google?", "Should I move to Berlin?" and "我住在北京吗？" hold the words of
a statement the user did not make, and so does the second half of "If I get the offer I
will move to Berlin". A quote that is the user's own yes/no question with its opening
("Do", "Should I") or its closing particle (吗, か) cut off, or that follows a condition
in its sentence, or just after a wish ("I wish I had a dog", "I'd like to live in
Lisbon", "I used to live in Berlin", "I almost moved"), is not the user's claim; nor is
a future after a time clause ("When I move, I'll buy a car": streams/domain/
time_clauses.py) or the action a question asks advice on (streams/domain/advice.py).

What a user tells an assistant in passing stands: a whole question quoted ("What should I
get my wife for our anniversary?" says the user has a wife), a request ("Can you help me
find a dentist near my office in Leeds?"), a statement inside a longer question ("Any
tips now that I live in Berlin?") or before a tag ("I live in Berlin, right?"), what the
user's own words take as given ("my dog Max" in "What if my dog Max eats chocolate?"),
and what follows a condition about the telling ("If you're curious, I'm 34", "If I
remember right, I moved here in 2019"), a concession ("Even if it rains, I cycle"), a
habit ("Wenn ich nach Hause komme, koche ich immer") or an "if" that means "whether"
("Can you check if my flight to Rome is delayed?").
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.advice import advice_closing, advice_opening, marked_opening, weighed
from streams.domain.fiction import fictional, supposing_at
from streams.domain.futures import italian_reflexive
from streams.domain.marks import (
    any_trailing,
    asked_whole,
    inverted_condition,
    opening_condition,
    trailing_condition,
)
from streams.domain.time_clauses import future_after_time
from streams.domain.views import FIRST_PERSON, reported, wished_after
from streams.domain.wording import (
    Wording,
    ends_with_phrase,
    phrase_ending,
    phrase_index,
    word_set,
)

# A yes/no question's opening the quote may have cut off: one or two words, among them
# the user's own pronoun ("Should I", "Soll ich") or a question particle ("Czy", "هل").
_ASKED_BEFORE = 2  # words
_QUESTION_PARTICLES = word_set("czy هل क्या apakah האם kya")
# Verbs that open a yes/no question put before their subject ("Should I", "Soll ich").
_AUXILIARIES = word_set(
    "do does did am is are was were have has had can could should would will shall may"
    " might must soll sollte kann könnte muss darf bin habe werde dois devrais puis peux"
    " suis ai devo posso sono ho moet kan zal ben heb"
)
# A clause of reasons or circumstances inside a question states them ("since I'm ...").
_GIVEN_REASONS = word_set("da weil nu omdat since because now puisque porque")
_CLOSING_PARTICLES = word_set("吗 嗎 か 呢")
_LI = "ли"  # Russian: a yes/no question's particle after its first word
# Words that open what the user's words take as given, whatever the sentence does.
_POSSESSIVES = word_set(
    "my our mein meine meinen meinem meiner unser unsere mon ma mes notre nos mi mis"
    " nuestro nuestra mio mia miei mie meu minha meus minhas mijn onze min mitt mina"
    " мой моя моё мои наш наша mój moja moje benim 내 제 나의"
)

_CONDITIONS = phrase_index(
    "if unless wenn falls sofern jeśli jeżeli если якщо eğer jika nếu 如果 假如 要是 倘若"
    " もし 만약 만일 إذا لو اگر אם अगर यदि εάν αν jos kalau kalo apabila seandainya andaikan"
    " ikiwa ถ้า 只要 万一 萬一 pokud jestli dacă",
    phrases=("in case", "let's say", "what if", "stell dir vor"),
)
# Conditions only as a sentence's first word with a clause of their own after them: "Si
# consigo el trabajo, me mudo" (not "Sí, vivo en Madrid", nor reflexive "Se mudó").
_OPENING_CONDITIONS = word_set("si se als")
_ALS, _GERMAN_ONLY_SUBJECTS = "als", word_set("ich du wir ihr")
# Where the condition's reach ends, looking back from the quote: a conjunction joining
# two statements in the quote's own clause (not "then", which introduces what a
# condition leads to; one inside the condition, "if I get the job and a flat,", does not).
_JOINS = phrase_index(
    "but and or so because although though however yet aber und oder denn weil sondern"
    " doch mais et ou car donc pero y porque sino pues e ma ed però perché mas porém но и"
    " а или потому ale oraz lecz fakat ama ve tapi dan atau nhưng và 但 而 和 并 且 แต่"
    " และ لكن אבל लेकिन और 하지만 그리고 でも しかし そして"
)
JOINS, POSSESSIVES = _JOINS, _POSSESSIVES  # for streams/domain/hedges.py
# Just before the condition: "even if", "whenever", "wonder if" (whether).
# Malay and Indonesian "kalau" before one word and a comma: "as for" ("Kalau saya, ...").
_TOPIC_MARKERS = frozenset([("kalau",), ("kalo",)])
# "Kalau lagi stres aku makan coklat": whenever (a habit), unless a future follows.
_LAGI, _ID_FUTURE, _HABIT_REACH = "lagi", word_set("akan bakal mau"), 12
_NOT_CONDITIONING = word_set(
    "even selbst auch immer mal даже nawet גם حتى bahkan wonder wondering check see ask"
    " asking know sure tell unsure idea decide clue whether lupa tahu tau ingat bilang"
    " か"  # かもしれない: no もし ("if")
)
# In the condition: about the telling, not the told ("if you're curious", "if I'm
# honest", "if possible", "if I remember right"), or the assistant's part ("if you can").
_MANNER = word_set(
    "you your du dich dir tu vous usted ustedes ты вы 你 您 remember recall memory honest"
    " honestly ask mistaken matters helps understand curious wondering relevant interested"
    " possible necessary needed anything erinnere ehrlich fragst помню честно что"
    " pamiętam chodzi 记错 記錯 可以 याद nhớ nhầm זוכר سمحت possível posible possibile ärlig"
    " boleh"
)
# In the quote: a habit, true whenever the condition is ("if it rains I always cycle").
_HABITS = phrase_index(
    "always usually never immer meistens toujours siempre sempre всегда zawsze 总是 いつも"
    " 항상 selalu luôn biasanya normally normalmente generally typically gewöhnlich"
    " meestal обычно zwykle thường 通常 平时 genellikle"
)
_WISHES = phrase_index(
    "wish wished almost nearly barely hardly würde wünschte wünsche бы почти presque casi"
    " quase quasi ojalá 几乎 差点 曾经 aimerais voudrais gustaría quisiera gostaria vorrei"
    " piacerebbe хочу хотел хотела keşke أتمنى काश 希望 ingin quero queria quiero möchte"
    " möchten chcę chciałbym chciałabym chcielibyśmy muốn อยาก ningependa nataka natamani"
    " encantaría adoraría adoraria adorerais adorerait רוצה רוצים רוצות أريد أود pengen"
    " pengin mau 想 solía solías solíamos solían costumava costumavam",
    phrases=(
        "used to",
        "would like",
        "would love",
        "would rather",
        "want to",
        "wanted to",
        "hope to",
        "hoping to",
        "dream of",
        "dreaming of",
        "zou graag",
    ),
)
# Chinese 想 "want to", but "think" before a subject: "我想我很懒" is the user's hedge.
_XIANG = ("想",)
_CHINESE_SUBJECTS = word_set("我 你 他 她 我们 他们")
_GIVEN_ANYWAY = word_set("sowieso ohnehin anyway anyways")
_WANTING = word_set("muốn mau ingin pengen pengin würde")  # würde: also "wurde", folded
_WISHED_REACH = 2
_CONDITION_REACH = 20  # tokens looked back for a condition (characters, in CJK)
_MANNER_REACH = 4


def asked(said: Wording, start: int, end: int) -> bool:
    """Whether ``said.words[start:end]`` is the user's yes/no question with its opening
    or its closing particle cut off: a statement made of a question."""
    sentence = said.sentence_of(start)
    if sentence != said.sentence_of(end - 1) or said.words[start] in _GIVEN_REASONS:
        return False  # "Ist es eine gute Idee, da ich Diabetiker bin, ...": given
    first, last = said.sentence_span(sentence)
    opening, closing = tuple(said.words[first:start]), said.words[end:last]
    if said.words[start] in _POSSESSIVES:  # given, unless it is the action weighed
        return weighed(opening, said.words[start:end]) and sentence in said.asked
    if _a_yes_no_opening(opening, said.words[start]):
        return True  # "should i quit my job" is asked with or without its mark
    if marked_opening(opening):
        return sentence in said.asked
    if sentence in said.asked and advice_closing(closing) and end not in said.breaks:
        return True  # "İşimi bırakmam mantıklı mı?"
    if len(closing) == 1 and closing[0] in _CLOSING_PARTICLES and end not in said.breaks:
        return not opening or (len(opening) <= _ASKED_BEFORE and sentence in said.asked)
    if last - first > 2 and said.words[first + 1] == _LI:
        return True  # Russian "Стоит ли", "Должен ли я": a yes/no question throughout
    return asked_whole(said.words, (first, start, end, last), sentence in said.asked)


def _a_yes_no_opening(opening: tuple[str, ...], first_quoted: str) -> bool:
    """ "Should I", "Soll ich", "Czy", "Do you think", or "Do" before "I ...": the opening
    of the user's yes/no question."""
    if advice_opening(opening, first_quoted):
        return True
    if not opening or len(opening) > _ASKED_BEFORE:
        return False
    if opening[0] in _QUESTION_PARTICLES:
        return True
    if opening[0] not in _AUXILIARIES:
        return False
    pronoun = opening[1] if len(opening) == 2 else first_quoted
    return pronoun in FIRST_PERSON


def wished(said: Wording, start: int, end: int) -> bool:
    """Whether a wish or a "used to", "almost" stands just before ``said.words[start]``
    ("I wish I had a dog", "I used to live in Berlin", "I'd like to live in Lisbon"), or
    a wish just after ``said.words[end - 1]`` ("बर्लिन में रहना चाहता हूँ")."""
    for at in range(start, max(0, start - _WISHED_REACH), -1):
        wish = phrase_ending(said.words, at, _WISHES)
        if wish is not None and at in said.breaks and wish[-1] in _WANTING:
            break  # Vietnamese "về muộn," ("late", as "muốn" folded): "want" takes a verb
        if wish is not None:  # "Ich wünschte, ich hätte mehr Zeit"
            return wish != _XIANG or said.words[start] not in _CHINESE_SUBJECTS
        if at in said.breaks:
            break
    return wished_after(said.words, end, said.breaks)


def supposed(said: Wording, start: int, end: int) -> bool:
    """Whether a condition comes before ``said.words[start:end]`` in its sentence and
    reaches it (see the module doc for the conditions that do not)."""
    words = said.words
    if _a_habit(words, start, end) or (
        words[start] in _POSSESSIVES and not italian_reflexive(words[start : start + 2])
    ):
        return False
    first, last = said.sentence_span(said.sentence_of(start))
    if _an_opening_condition(said, first, (start, end, last)):
        return not _about_the_telling(words, first + 1, start)
    if supposing_at(words, (first, start), said.breaks) or reported(said, first, start):
        return True
    if fictional(said, first, start):
        return True
    if future_after_time(words, (first, start, end, last), said.breaks, said.names):
        return True
    if opening_condition(words, first, start, said.breaks):
        return _MANNER.isdisjoint(words[first:start])  # not "As long as I can remember,"
    if inverted_condition(words, first, start, said.breaks):
        return not _MANNER.intersection(words[first + 1 : first + 1 + _MANNER_REACH])
    return _a_condition_reaches(said, first, start)


def _a_condition_reaches(said: Wording, first: int, start: int) -> bool:
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
        if in_own_clause and ends_with_phrase(words, at, _JOINS):
            return False
        if ends_with_phrase(words, at, _CONDITIONS):
            if not in_own_clause and _trailing(said, first, at):
                return False  # "Буду рада, если поможешь — я мама": the clause before's
            return not _about_the_telling(words, at, start, said.breaks)
        closing = trailing_condition(words, at, said.breaks)
        if closing:  # the condition is the clause before its closing mark
            return _MANNER.isdisjoint(words[max(first, at - closing - _MANNER_REACH) : at])
    return False


def _trailing(said: Wording, first: int, at: int) -> bool:
    """Whether the condition ending before ``said.words[at]`` follows a clause of two
    words or more in its sentence: it says on what that clause depends."""
    opening = at - len(phrase_ending(said.words, at, _CONDITIONS) or ())
    return any(first + 1 < b <= opening for b in said.breaks)


def _a_habit(words: Sequence[str], start: int, end: int) -> bool:
    """Whether ``words[start:end]`` say "always", "usually" (いつも as a whole, not its い)."""
    if _HABITS.keys().isdisjoint(words[start:end]):
        return False
    return any(ends_with_phrase(words, at, _HABITS) for at in range(start + 1, end + 1))


def _an_opening_condition(said: Wording, first: int, quote: tuple[int, int, int]) -> bool:
    """Whether the quote is the clause after a sentence's first word "si" ("Si j'avais un
    chien, ..." quoted without its "si"), or the one after its comma ("Si consigo el
    trabajo, me mudo")."""
    start, end, last = quote
    if start < first + 1 or said.words[first] not in _OPENING_CONDITIONS:
        return False
    if first + 1 in said.breaks:
        return False  # "Sí, vivo en Madrid"
    if said.words[first] == _ALS and said.words[first + 1] in _GERMAN_ONLY_SUBJECTS:
        return False  # German "Als ich in Berlin wohnte": a past time, not Dutch "if"
    if start == first + 1:  # the condition itself, if a clause follows it
        return any(b in said.breaks for b in range(end, last))
    return any(b in said.breaks for b in range(first + 2, start + 1))


def _about_the_telling(
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
    if not _GIVEN_ANYWAY.isdisjoint(words[end : end + _MANNER_REACH + 2]):
        return True  # "wenn ich im März sowieso nach Wien ziehe": a given, not supposed
    return bool(_MANNER.intersection(words[end : min(start, end + _MANNER_REACH)]))
