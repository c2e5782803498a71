"""Words the user asked, supposed or wished rather than said.

"Do I work at Google?", "Should I move to Berlin?" and "我住在北京吗？" hold the words of
a statement the user did not make, and so does the second half of "If I get the offer I
will move to Berlin". A quote that is the user's own yes/no question with its opening
("Do", "Should I") or its closing particle (吗, か) cut off, or that follows a condition
in its sentence (streams/domain/conditions.py), or just after a wish ("I wish I had a
dog", "I'd like to live in Lisbon", "I used to live in Berlin", "I almost moved"), is not
the user's claim; nor is a future after a time clause ("When I move, I'll buy a car":
streams/domain/time_clauses.py) or the action a question asks advice on
(streams/domain/advice.py).

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

from streams.domain.advice import (
    advice_closing,
    advice_opening,
    marked_opening,
    should_asked,
    weighed,
)
from streams.domain.conditions import (
    MANNER,
    MANNER_REACH,
    about_the_telling,
    an_opening_condition,
    condition_reaches,
)
from streams.domain.fiction import fictional, supposing_at
from streams.domain.futures import italian_reflexive, romanian_reflexive
from streams.domain.habits import habitual_when, one_off_when
from streams.domain.marks import asked_whole, inverted_condition, opening_condition
from streams.domain.time_clauses import future_after_time
from streams.domain.time_inside import after_a_time_clause_mid_sentence, inside_a_future_time
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
_PARTICLES = [[p] for p in _CLOSING_PARTICLES]
_LI = "ли"  # Russian: a yes/no question's particle after its first word
# Words that open what the user's words take as given, whatever the sentence does.
_POSSESSIVES = word_set(
    "my our mein meine meinen meinem meiner unser unsere mon ma mes notre nos mi mis"
    " nuestro nuestra mio mia miei mie meu minha meus minhas mijn onze min mitt mina"
    " мой моя моё мои наш наша mój moja moje benim 내 제 나의"
)
POSSESSIVES = _POSSESSIVES  # for streams/domain/hedges.py

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
        "should have",
        "could have",
        "would have",
        "debería haber",
        "j'aurais dû",
        "avrei dovuto",
        "deveria ter",
    ),
)
# Chinese 想 "want to", but "think" before a subject: "我想我很懒" is the user's hedge.
_XIANG = ("想",)
_CHINESE_SUBJECTS = word_set("我 你 他 她 我们 他们")
_WANTING = word_set("muốn mau ingin pengen pengin würde")  # würde: also "wurde", folded
_WISHED_REACH = 2
# What a wish may be of besides the quote: telling it ("want to know", "like to add").
_TOLD_WISHED = word_set(
    "know mention say tell add note share admit confess inform wissen sagen erwähnen"
    " saber decir mencionar savoir dire mentionner dizer sapere weten zeggen"
)
_PASTS = word_set("used solía solías solíamos solían costumava costumavam")  # "used to say"


def asked(said: Wording, start: int, end: int) -> bool:
    """Whether ``said.words[start:end]`` is the user's yes/no question with its opening
    or its closing particle cut off: a statement made of a question."""
    sentence = said.sentence_of(start)
    if sentence != said.sentence_of(end - 1) or said.words[start] in _GIVEN_REASONS:
        return False  # "Ist es eine gute Idee, da ich Diabetiker bin, ...": given
    first, last = said.sentence_span(sentence)
    opening, closing = tuple(said.words[first:start]), said.words[end:last]
    marked = sentence in said.asked
    if said.words[start] in _POSSESSIVES:  # given, unless it is the action weighed
        return _weighed(opening, said.words[start:end], marked)
    if _a_yes_no_opening(opening, said.words[start]) or should_asked(opening, marked):
        return True  # "should i quit my job" is asked with or without its mark
    if marked_opening(opening):
        return marked
    if (
        (marked or closing[-1:] in _PARTICLES)
        and advice_closing(closing)
        and end not in said.breaks
    ):
        return True  # "İşimi bırakmam mantıklı mı?", "辞职是明智的吗"
    if len(closing) == 1 and closing[0] in _CLOSING_PARTICLES and end not in said.breaks:
        return not opening or (len(opening) <= _ASKED_BEFORE and sentence in said.asked)
    if last - first > 2 and said.words[first + 1] == _LI:
        return True  # Russian "Стоит ли", "Должен ли я": a yes/no question throughout
    return asked_whole(said.words, (first, start, end, last), sentence in said.asked)


def _weighed(opening: tuple[str, ...], quote: list[str], marked: bool) -> bool:
    """Whether a quote opening with "my", "mein" is the action an advice question weighs:
    "Ist es eine gute Idee, meinen Job zu kündigen?", "meinst du ich sollte mein Auto
    verkaufen" (its verb last), not "my car" in "Should I sell my car?"."""
    if weighed(opening, quote) and marked:
        return True
    return should_asked(opening, marked) and len(quote) > 1 and quote[-1].endswith("en")


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
        if wish and at < start and said.words[at] in _TOLD_WISHED and wish[0] not in _PASTS:
            break  # "You might want to know I'm allergic", "I'd like to add I'm vegan"
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
    first, last = said.sentence_span(said.sentence_of(start))
    if words[start] in _POSSESSIVES and not (
        italian_reflexive(words[start : start + 2]) or romanian_reflexive(words, first, start)
    ):
        return False
    if _a_habit(words, start, end):  # "if it rains I never cycle", not "my ex claimed i never"
        return reported(said, first, start)
    if habitual_when(words, first, start, end, said.breaks):
        return False  # "Wenn ich gestresst bin, esse ich Schokolade"
    if one_off_when(words, first, start, end, said.breaks):
        return True  # "Sobald ich den Job habe, ziehe ich nach Berlin"
    if an_opening_condition(said, first, (start, end, last)):
        return not about_the_telling(words, first + 1, start)
    if supposing_at(words, (first, start), said.breaks) or reported(said, first, start):
        return True
    if fictional(said, first, start):
        return True
    if future_after_time(words, (first, start, end, last), said.breaks, said.names):
        return True
    if _in_time(words, (first, start, end, last), said.breaks):
        return True  # "When I have kids I'll ...", "..., anyway when the project ends ill"
    if opening_condition(words, first, start, said.breaks):
        return MANNER.isdisjoint(words[first:start])  # not "As long as I can remember,"
    if inverted_condition(words, first, start, said.breaks):
        return not MANNER.intersection(words[first + 1 : first + 1 + MANNER_REACH])
    return condition_reaches(said, first, start)


def _in_time(words: Sequence[str], span: tuple[int, int, int, int], breaks: frozenset[int]) -> bool:
    return inside_a_future_time(words, span, breaks) or after_a_time_clause_mid_sentence(
        words, span, breaks
    )


def _a_habit(words: Sequence[str], start: int, end: int) -> bool:
    """Whether ``words[start:end]`` say "always", "usually" (いつも as a whole, not its い)."""
    if _HABITS.keys().isdisjoint(words[start:end]):
        return False
    return any(ends_with_phrase(words, at, _HABITS) for at in range(start + 1, end + 1))
