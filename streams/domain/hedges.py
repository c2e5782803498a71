"""A statement the user only holds possible (for streams/domain/quotes.py).

"Maybe I'll move to Denver", "I might move to Denver", "I'm thinking about moving to
Denver", "Quizás me mude a Barcelona", "Возможно, я перееду в Казань", "也许我会搬到上海",
"デンバーに引っ越すかもしれない", "There's a chance I'll move", "I'm toying with the idea of
moving", "I could move next year", "Igual me mudo", "Может, я перееду", "Bisa jadi saya
pindah", "Chắc tôi sẽ chuyển", "我在考虑搬到上海": a quote cut after the word that makes it
a possibility is not the user's statement, nor is one inside a "whether" ("I wonder if I
should move", "Do you know if I need a visa", "ob ich nach Berlin ziehe") or a doubt ("I
doubt I'll move"). The word counts in the quote's own clause before it (back to
a conjunction joining another statement: "Maybe I'll go hiking, and I live in Denver"),
or as a clause of its own just before ("Возможно, я ..."). A quote that keeps the word
("Maybe I'll move to Denver" quoted whole) is the claim's business, as a negation kept in
its quote is. A plan ("I'm planning to move"), a belief ("I think I have ADHD") and a
likelihood ("I'll probably move") stand, and so does what a hedge only frames the telling
of: "You might remember that I have a cat", "Maybe I should mention I'm vegan", "Maybe
that's why I love hiking", "I might as well tell you", "No doubt I'm a morning person",
what follows a reason ("as I'm off in July", "bc", "soalnya", "tại vì") or "that" told
to the person addressed ("Igual te sorprende que tengo 60 años"). Also hedges: "There's a
good chance", "Odds are", "Có thể tôi sẽ", "Kyknya aku mau", "قد أنتقل ... العام القادم".
"""

from __future__ import annotations

from itertools import pairwise

from streams.domain.conditions import JOINS
from streams.domain.mood import POSSESSIVES
from streams.domain.opening_hedges import OPENING_ONLY, opening_hedge
from streams.domain.seldom import seldom_after
from streams.domain.wording import (
    Wording,
    ends_with_phrase,
    phrase_ending,
    phrase_index,
    word_set,
)

_POSSIBLY = phrase_index(
    "maybe perhaps possibly might quizás quizá vielleicht eventuell womöglich talvez forse"
    " magari возможно może misschien wellicht belki mungkin barangkali 也许 也許 或许 或許"
    " 可能 说不定 說不定 多分 たぶん 아마 शायद ربما אולי kanske måske kanskje ehkä",
    phrases=(
        "tal vez", "a lo mejor", "puede que", "peut-être", "peut être", "il se peut que",
        "kann sein dass", "se calhar", "pode ser que", "può darsi che", "может быть",
        "być może", "có lẽ", "हो सकता है", "i may", "we may", "wonder if", "wondering if",
        "wonder whether", "wondering whether", "know if", "know whether", "sure if",
        "sure whether", "decide if", "decide whether", "deciding if", "deciding whether",
        "whether", "ob", "je me demande si", "i doubt", "dudo que", "doute que", "bezweifle",
        "there's a chance", "there is a chance", "chances are", "odds are",
        "there's a possibility", "there is a possibility", "có thể sẽ", "there's every chance",
        "there is every chance",
        *(f"there{be} a {size} {odds}" for be in ("'s", " is") for odds in ("chance", "possibility")
          for size in ("good", "small", "slight", "real", "decent", "fair", "high", "strong")),
    ),
)  # fmt: skip
# Only just before the quote: "I'm thinking about moving to Denver" (not "I keep thinking
# about how I lost my job").
_JUST_BEFORE = phrase_index(
    "",
    phrases=(
        "thinking about", "thinking of", "pensando en", "pensando em", "pensando di",
        "toying with the idea of", "playing with the idea of", "flirting with the idea of",
        "mulling over the idea of", "mulling over", "toying with",
        "考虑", "考慮", "worried", "worried that", "afraid", "afraid that", "scared",
        "scared that", "terrified", "terrified that", "i fear", "concerned that",
        "j'ai peur que", "tengo miedo de que", "me temo que", "ich fürchte", "боюсь, что",
    ),
)  # fmt: skip
_JUST = "just"
_NOT_NAMING = word_set("will would could should might may can i we you he she they it and but so")
_TELLING = word_set("tell say mention admit add confess share note warn ask let")
# "I could move to Denver next year": "could" a possibility only with a time to come in
# its clause ("I could swim when I was five", "I couldn't find my keys" stand).
_COULD, _SPEAKERS = "could", word_set("i we")
# "I could not", "I could hardly believe that tomorrow ...": no plan.
_COULD_NOT = word_set("not hardly barely scarcely never believe")
_COULD_OPTIONS = word_set("try always maybe possibly consider")
_TO_COME = word_set("tomorrow someday")  # not "soon", "eventually": told of a past too
_QAD, _IMPERFECT, _PAST_ENDINGS = "قد", ("ا", "ن", "ي", "ت"), ("ت", "نا", "وا", "تم")
_ARABIC_TO_COME = word_set("القادم القادمة المقبل المقبلة قريبا غدا لاحقا")
_PERIODS = word_set("year month week summer spring autumn fall winter semester weekend")
# Just before the quote (or before "ever"): "I rarely eat meat", "Saya jarang minum kopi";
# only there, since they say how often, not "not" ("I rarely go out as I have a newborn").
_RARELY = phrase_index(
    "rarely seldom selten rarement raramente редко jarang zelden rzadko nadiren 很少",
    phrases=("rara vez", "pocas veces", "di rado", "hiếm khi", "hardly ever", "कभी कभार ही",
             "कभी कभार"),
)  # fmt: skip
# Before a verb's -ing form only: "I'm considering moving to Denver" (not "Considering I
# live in Denver, ...").
_CONSIDERING = word_set("considering contemplating")
_PROGRESSIVE = word_set("am are is was were been")
# Between a hedge and the quote, words that make the hedge one of the telling ("You might
# remember that I ...", "Maybe I should mention I'm ...", "Maybe that's why I ...") or end
# its clause ("I might be biased since I'm a teacher"; Dutch "maar", Indonesian "karena"),
# and comment adverbs ("Perhaps surprisingly I ...").
_STOPS = frozenset(JOINS) | word_set(
    "remember recall know knew mention mentioned tell told forget forgot why because since"
    " ricordi ricorda souviens souvenez erinnerst erinnern lembra lembre lembras weet"
    " помнишь помните ingat nhớ 记 記 忘 भूल تتذكر maar want omdat bo karena padahal が"
    " obwohl хотя saber sabes dije dicho hatırlarsın hatırlıyorsun biliyorsun surprisingly"
    " ironically honestly frankly interestingly funnily luckily sadly soalnya sebab"
    " unsurprisingly predictably obviously admittedly oddly strangely weirdly fortunately"
    " unfortunately matters relevant important wichtig importante belangrijk"
    " considering çünkü como parce puisque weil denn olvidó olvidaste olvidé lupa oublié"
)
_REASONS = word_set("as bc cuz cos coz bcs bcuz where while whereas")  # before "I", "we"
_GIVEN_SUBJECTS = word_set("我 我们 我們")
_THAT_VI = {"that": word_set("now given seeing"), "vi": word_set("tại bởi")}
_COMPLEMENTIZERS = word_set("that que bahwa kalau dass rằng")
_DUTCH_SUBJECTS = word_set("ik je jij we wij hij zij ze")  # Dutch "en ik": "and I"
# A hedge of what the person addressed knows or heard ("You might have noticed I'm new",
# "Maybe you heard I got engaged", "你可能已经知道", "Belki duymuşsundur"), not the user's.
_ADDRESSED = word_set(
    "you vous tu te você voce du dich dir kamu anda bạn 你 您 sen siz ты вы ti hai"
)
_ADDRESSED_ENDINGS = ("sin", "sun", "sundur", "sindir", "siniz", "sunuz")  # Turkish
# "whether" and "I doubt": a quote opening with "my ..." names what is given ("Can you
# check if my flight to Rome is delayed?"); "maybe", "might" hedge it all ("Maybe my
# husband and I will move").
_WHETHER = frozenset(
    p for ps in _POSSIBLY.values() for p in ps
    if p[-1] in {"if", "whether", "ob", "si", "doubt", "que", "bezweifle"}
)  # fmt: skip
_GERMAN_SUBJECTS = word_set("ich du er sie es wir ihr man")
_AMOUNTS = word_set("one two three four five six seven eight nine ten twenty half a few couple")
_ARTICLES = word_set("a an the")
# Not hedges: 可能 inside 尽可能 ("as far as possible"), 不可能 ("impossible"), 可能性;
# 多分钟 ("more than ... minutes"); Indonesian "sebisa mungkin" ("as much as possible");
# "might" as a noun ("with all my might"); "might as well".
_NOT_HEDGING_BEFORE = word_set(
    "尽 盡 不 sebisa secepat sebanyak semaksimal sebaik sedapat my all his her our their with"
)
_NOT_HEDGING_AFTER = word_set("性 钟 鐘 な")  # 可能な限り: "as far as possible"
# French "peut être" is also "can be" ("Mon boulot peut être stressant"): a hedge only
# opening its clause or after a subject or an auxiliary ("Je vais peut-être déménager").
_PEUT_ETRE = ("peut", "etre")
_FRENCH_BEFORE = word_set("je j tu il elle on nous vous ils elles est ai vais suis va sont que")
# After the quote: Japanese かもしれない, かも (not かもめ, "seagull").
_AFTER, _NOT_AFTER = "かも", "かもめ"


def hedged(said: Wording, start: int, end: int) -> bool:
    """Whether a possibility word stands before ``said.words[start:end]`` in its clause or
    as the clause just before it, or one follows it (かもしれない)."""
    words, breaks = said.words, said.breaks
    given = words[start] in POSSESSIVES
    if not given and start not in breaks and _just_before(words, start):
        return True
    first, _ = said.sentence_span(said.sentence_of(start))
    at = start
    while at > first:
        if at in breaks:
            return not given and _a_hedge_alone(said, first, at)
        hedge = _hedge_ending(words, at)
        if hedge is not None and not _a_name(said, at - 1):  # "My cat Maybe is three"
            return not (given and hedge in _WHETHER)
        if opening_hedge(said, at) or (words[at - 1] == _COULD and _could_plan(said, at)):
            return not given
        if words[at - 1] == _QAD and _arabic_may(said, at):
            return not given
        if _stops(words, at) or _told_to_the_addressed(words, first, at):
            return False  # "..., and I live in Denver", "You might remember that I ..."
        at -= 1
    after = "".join(words[end : end + 4])
    if end not in breaks and after.startswith(_AFTER) and not after.startswith(_NOT_AFTER):
        return True
    return seldom_after(words, end, breaks)  # "I eat meat rarely"


def _a_name(said: Wording, at: int) -> bool:
    """Whether the hedge word at ``said.words[at]`` is capitalised inside its sentence
    after a noun ("My cat Maybe"), not after a verb or a subject ("We will Maybe move")."""
    return at in said.names and at > 0 and said.words[at - 1] not in _NOT_NAMING


def _just_before(words: list[str], start: int) -> bool:
    """ "thinking about" (not before "the trip I took"), "considering" before an -ing, or
    "rarely" (or "rarely ever", "hardly ever", 很少) just before the quote."""
    if ends_with_phrase(words, start, _JUST_BEFORE):  # not "请考虑我是素食者" (consider that)
        return words[start] not in _ARTICLES and words[start] not in _GIVEN_SUBJECTS
    if start > 0 and words[start - 1] in _CONSIDERING:  # "... moving", "I'm ... a move"
        return words[start].endswith("ing") or (
            words[start] in _ARTICLES and start > 1 and words[start - 2] in _PROGRESSIVE
        )
    at = start - (start > 1 and words[start - 1] == "ever")  # "rarely ever"
    return ends_with_phrase(words, at, _RARELY)


def _stops(words: list[str], at: int) -> bool:
    word = words[at - 1]
    if word in _REASONS:  # "I could visit you next summer as I'm off in July": a reason
        return words[at] in _SPEAKERS
    if word in _THAT_VI and at > 1:  # "now that I've ...", Vietnamese "tại vì" (because)
        return words[at - 2] in _THAT_VI[word]
    if word == "en":
        return words[at] in _DUTCH_SUBJECTS  # Dutch "en ik", not "en verano"
    return word in _STOPS


def _told_to_the_addressed(words: list[str], first: int, at: int) -> bool:
    """ "Igual te sorprende que tengo 60 años", "Bisa jadi kamu belum tahu bahwa saya":
    what follows "that" after the person addressed is told them, not hedged."""
    return words[at - 1] in _COMPLEMENTIZERS and not _ADDRESSED.isdisjoint(words[first : at - 1])


def _hedge_ending(words: list[str], at: int) -> tuple[str, ...] | None:
    """The possibility phrase that ends just before ``words[at]`` and hedges what follows."""
    hedge = phrase_ending(words, at, _POSSIBLY)
    if hedge is None:
        return None
    nxt = words[at] if at < len(words) else ""
    before = words[at - len(hedge) - 1] if at - len(hedge) > 0 else ""
    return hedge if _hedges(hedge, before, nxt, words[at : at + 3]) else None


def _hedges(hedge: tuple[str, ...], before: str, nxt: str, after: list[str]) -> bool:
    """Whether ``hedge``, between ``before`` and ``nxt``, is a possibility of the user's."""
    if hedge == ("ob",):
        return nxt in _GERMAN_SUBJECTS  # German "ob ich", not an English "OB"
    if hedge == _PEUT_ETRE and before and before not in _FRENCH_BEFORE:
        return False
    if after[:2] == ["as", "well"]:  # "might as well quit", not "might as well tell you"
        return len(after) > 2 and after[2] not in _STOPS and after[2] not in _TELLING
    if nxt.isdigit() or nxt in _AMOUNTS:
        return False  # "might as well"; "I ran maybe 10 km": about, not perhaps
    if before in _STOPS:
        return False  # "Tu te souviens peut-être que ...": the hedge is the telling's
    if hedge not in _WHETHER and _to_the_addressed(before, nxt):
        return False  # "You might have noticed I ..." (but "Do you know if I need")
    return before not in _NOT_HEDGING_BEFORE and nxt not in _NOT_HEDGING_AFTER


def _to_the_addressed(before: str, nxt: str) -> bool:
    return (
        before in _ADDRESSED
        or nxt in _ADDRESSED
        or (len(nxt) > 5 and nxt.endswith(_ADDRESSED_ENDINGS))  # "Belki duymuşsundur"
    )


def _a_hedge_alone(said: Wording, first: int, clause_start: int) -> bool:
    """Whether the clause ending at ``clause_start`` is only a possibility word
    ("Возможно,", "Maybe,")."""
    hedge = phrase_ending(said.words, clause_start, _POSSIBLY) or phrase_ending(
        said.words, clause_start, OPENING_ONLY
    )
    if hedge is None:
        return False
    opening = clause_start - len(hedge)
    if opening > first and said.words[opening - 1] == _JUST:
        opening -= 1  # "Maybe, just maybe, I'll ..."
    return opening <= first or opening in said.breaks


def _arabic_may(said: Wording, at: int) -> bool:
    """Whether قد before ``said.words[at]`` is "may": before a verb not in the past (قد
    انتقلت is "I have moved") in a clause with a time to come ("قد أنتقل العام القادم")."""
    verb = said.words[at] if at < len(said.words) else ""
    if not verb.startswith(_IMPERFECT) or verb.endswith(_PAST_ENDINGS):
        return False
    hi = min((b for b in said.breaks if b > at), default=len(said.words))
    return not _ARABIC_TO_COME.isdisjoint(said.words[at:hi])


def _could_plan(said: Wording, at: int) -> bool:
    """Whether "could" before ``said.words[at]`` follows "I" or "we" and its clause says a
    time to come ("next year", "soon")."""
    words = said.words
    if at < 2 or words[at - 2] not in _SPEAKERS or words[at] in _COULD_NOT:
        return False
    if words[at] in _COULD_OPTIONS:
        return True  # "I could try being a vegetarian", "we could always move"
    lo = max((b for b in said.breaks if b <= at), default=0)
    hi = min((b for b in said.breaks if b > at), default=len(words))
    clause = words[lo:hi]
    if not _TO_COME.isdisjoint(clause):
        return True
    return any(w == "next" and nxt in _PERIODS for w, nxt in pairwise(clause))
