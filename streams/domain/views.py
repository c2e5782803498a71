"""Whose view a quote is, and a wish after it (for streams/domain/mood.py).

"My boss thinks I'm lazy", "Mój szef uważa, że jestem leniwy", "我老板觉得我很懒",
"我妈妈说我乳糖不耐受", "مديري يعتقد أنني كسول", "मेरे बॉस को लगता है कि मैं आलसी हूँ": what
follows another's "thinks" is their view, not the user's statement; after the user's own
("I think I have ADHD", "我觉得", "मुझे लगता है") it is the user's hedge, and stands.
A wish may also follow what it wishes, in languages that put the verb last: "बर्लिन में रहना चाहता हूँ",
"베를린에 살고 싶어요", "東京に住みたい", "Berlin'e taşınmak istiyorum".
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.according import holder_of_opinion
from streams.domain.hearsay import told_of_the_user
from streams.domain.holders import AUTHORITIES, a_person_at, a_source, an_authority, possessed
from streams.domain.wording import (
    Wording,
    folded_words,
    phrase_ending,
    phrase_index,
    tokens,
    word_set,
)

FIRST_PERSON = word_set(
    "i we ich wir je nous io noi eu nós nos ik wij jag vi jeg yo nosotros я мы ja my ben"
    " biz saya aku kami tôi mình 我 私 僕 俺 나 저 אני אנחנו أنا نحن मैं हम मुझे मुझको हमें"
)
# Someone else's view of the user: "My boss thinks I'm lazy", "According to my friends".
_REPORTING = phrase_index(
    "thinks think thought believes believe believed claims claim claimed assumes assume"
    " assumed insists insist insisted reckons reckon reckoned suspects suspect suspected"
    " meint meinen glaubt glauben denkt denken findet finden behauptet behaupten pense"
    " pensent croit croient prétend cree creen piensa piensan acha acham pensa pensano"
    " crede credono vindt vinden думает думают считает считают уверен уверена uważa"
    " uważają myśli myślą sądzi sądzą twierdzi twierdzą twierdził twierdziła opina opinan"
    " يعتقد تعتقد يعتقدون يظن تظن يظنون חושב חושבת"
    " חושבים חושבות anadhani wanadhani anafikiri wanafikiri 觉得 覺得 认为 認為 以为 以為"
    " pikir berpikir mengira menganggap fikir nghĩ convinced swears swore complains"
    " complained convencidos convencido convencida persuadés persuadé persuadée überzeugt"
    " sospecha soupçonne vermutet beweert sostiene jura утверждает bersikeras تصر sure"
    " jokes joked",
    phrases=(
        "लगता है",
        "cho rằng",
        "cho là",
        "convencidos de",
        "convencido de",
        "convencida de",
        "convencidas de",
        "khăng khăng là",
        "تصر على",
    ),
)
# Saying, and telling others: "My mom says I'm lactose intolerant", "My friend told
# everyone I moved to Paris".
_SAYING = word_set(
    "says say said saying tells tell told telling sagt sagen erzählt erzählen dit disent"
    " raconte dice dicen diz dizem zegt zeggen говорит говорят mówi mówią 说 說 bilang"
    " berkata mengatakan kata bảo يقول تقول يقولون dijo dijeron disse disseram कहता कहती"
    " decía decían disait disaient diceva dicevano dizia diziam zei zeiden mówił mówiła"
    " говорил говорила meinte sagte nói"
    " कहते"
)
_NOT_SAYING = frozenset(["再说", "再說"])
_TELLING = word_set("tells tell told telling erzählt erzählen raconte")
# Everyday words elsewhere (English "dice", Dutch "dit" "this"): saying only before "que".
_WITH_QUE = word_set("dit dice dijo disse")
_TOLD = word_set("told")
_TOLD_REACH = 4
_LA = word_set("là about of")  # Vietnamese "nghĩ là"; "think about me moving"
_ALWAYS = word_set("always immer toujours siempre sempre altijd zawsze всегда")
_BUT = word_set("but aber mais pero ma но ale tapi maar")
# Being, told to the user: "told me I'm selfish", "me dijo que soy egoísta" (a view).
_BEING = word_set("am are soy eres somos estoy sou estou somos sono sei siamo jestem")
_CLITICS = word_set("me nos")  # Spanish, Portuguese: "me dijo", "me disse"
_COPULA_REACH = 5  # words between "told" and the quote: "told my whole family"
_SPEAKER_REACH = 4
_THAT = word_set("that dass que что że dat bahwa rằng che إنني أنني إن أن कि")
_ACCORDING_REACH = 6  # words from "according to" to a quote with no comma: "my coach I'm"
_ACCORDING_NEAR = 5  # with no subject: "Secondo mia madre sono", "Według mojej mamy jestem"
_TO_WHOM = word_set("跟 对 對 和 向 给 給")  # "我跟老板说", told to whom
# "says (that) I ...": the quote may leave them out; Hindi "कहती हैं कि".
_UNSAID = _THAT | FIRST_PERSON | word_set("है हैं")
_THE_USER = word_set("me us mir uns moi nous mnie мне нам")
# "According to me", "Menurut saya" (in my opinion), "Theo tôi": the user's own view.
_MI = "mi"
_UNSAID_SPEAKERS = word_set("me mir moi mí yo mim mnie мне saya aku tôi mij")
_TO = word_set("to")
# "I'd like to think", "I tend to believe", "My mom used to think": whose view it is
# comes before them.
_BEFORE_REPORTING = word_set(
    "could can do did hardly barely really still also just truly to like tend love prefer"
    " would used not never am is are was were"
)
_COMPARING = word_set("than as")  # "than you think": no view of another's
# Between who says and the verb: "People keep saying", "My mom is always telling".
_BEFORE_SAYING = word_set(
    "keep keeps kept always still also just even often constantly never ever is are was"
    " were has have had will would immer toujours siempre sempre всегда 总 總 老 是 一 直 也"
    " 都 常 经 經 还 還 又 te t lui leur ai avons eerlijk ehrlich honestly frankly already"
    " probably maybe once might may must should can could shall as well schon bereits dir"
    " dich ihm ihnen euch s déjà ya já già уже już hab habe hast"
)
# For streams/domain/scope.py: a view told after the quote.
REPORTING, SAYING = _REPORTING, _SAYING
_ACCORDING_TO = frozenset(
    tuple(tokens(p))
    for p in ("according to", "laut", "selon", "según", "по словам", "d'après", "secondo",
              "segundo", "volgens", "według", "zdaniem", "по мнению", "حسب", "بحسب")
)  # fmt: skip
_ACCORDING_FIRST = frozenset(p[0] for p in _ACCORDING_TO) | word_set("menurut kata theo")
# Also "according to" (Indonesian, Malay, Vietnamese), only before a person: "Kata ibu
# saya, ...", "Menurut suami saya", "Theo sếp tôi" (not "Theo thời gian", "over time",
# "Menurut jadwal", nor the names Theo and Kata).
_ACCORDING_TO_SOMEONE = word_set("menurut kata theo")
# After what it wishes: Hindi "चाहता", Turkish "istiyorum"; Korean 싶 and Japanese たい
# begin the word or kana after it.
_WISHED_AFTER = word_set(
    "चाहता चाहती चाहते चाहूंगा चाहूंगी istiyorum isterim istiyordum istedim istiyoruz"
)
_WISHED_AFTER_STARTS = tuple("".join(w) for w in folded_words("싶 たい たかった"))


def reported(said: Wording, first: int, start: int) -> bool:
    """Whether the quote is someone else's view: just after "thinks", "claims" and the
    like (or after them and "that") said by another than the user, after another's
    "says" or "told everyone", or in a sentence opening "According to"."""
    words = said.words
    if said_by_another(said, first, start):
        return True
    if told_of_the_user(words, (first, start), said.breaks, AUTHORITIES):
        return True  # "I was told I was bad at art", "Dicen que soy terco"
    if _according_to_another(said, first):  # "According to my coach(,) I'm ready"
        after = any(b in said.breaks for b in range(first + 1, start + 1))
        near = start - first <= _ACCORDING_REACH  # "my coach I'm", "meinem Chef bin ich"
        subject = not FIRST_PERSON.isdisjoint(words[start : start + 2])
        return after or (near and subject) or start - first <= _ACCORDING_NEAR
    for end in (start, start - 1):
        if end < start and (start in said.breaks or words[end] not in _UNSAID | _LA):
            break  # "nghỉ sớm - tôi bị ốm"; "nach meinen Berechnungen": no verb of views
        phrase = phrase_ending(words, end, _REPORTING)
        who = end - len(phrase) - 1 if phrase else -1
        if phrase and who > first and words[who - 1] in _COMPARING:
            return False  # "I'm older than you think, I'm 67"
        while phrase and who > first and words[who] in _BEFORE_REPORTING:
            who -= 1  # "I could hardly believe that ..."
        if phrase and who >= first:
            return words[who] not in FIRST_PERSON or possessed(said, first, who)
    return False


def _according_to_another(said: Wording, first: int) -> bool:
    """Whether the sentence from ``first`` opens "According to <another>", whose view
    follows: not "according to me" (the user's own), nor to a doctor (a finding)."""
    words = said.words
    if words[first] not in _ACCORDING_FIRST:
        who = holder_of_opinion(words, first)  # "In my mom's opinion", "Anneme göre"
        near = range(who or 0, min((who or 0) + 4, len(words)))
        return who is not None and not any(a_source(words, at) for at in near)
    opening = next((p for p in _ACCORDING_TO if tuple(words[first : first + len(p)]) == p), ())
    if not opening and words[first] in _ACCORDING_TO_SOMEONE and a_person_at(words, first + 1):
        opening = (words[first],)
    if not opening or first + len(opening) >= len(words):
        return False
    who = first + len(opening)
    if words[who] in _UNSAID_SPEAKERS and (words[who] != _MI or who + 1 in said.breaks):
        return False  # "según mí", not "según mi jefe" (folded alike)
    near = range(who, min(who + 4, len(words)))  # "my coach's plan"
    return not any(a_source(words, at) for at in near)


def said_by_another(said: Wording, first: int, start: int) -> bool:
    """Whether another than the user says the quote just before it ("My mom says", "People
    keep saying", "My friend told everyone"), not the user ("I told my boss", "I have to
    tell you") nor once to the user ("My doctor told me": a finding the user reports), nor
    a doctor or a test ("My doctor says I'm diabetic")."""
    words = said.words
    for at in range(start - 1, max(first, start - _TOLD_REACH - 1) - 1, -1):
        if at + 1 < start and at + 1 in said.breaks and words[at + 1] not in _THAT:
            return False  # the verb is in another clause: "My mom says hi. I ..."
        if at > first and words[at - 1] + words[at] in _NOT_SAYING:
            return False  # 以后再说 "later", not "says"
        if words[at] in _SAYING and (words[at] not in _WITH_QUE or words[at + 1] in _THAT):
            between = [w for w in words[at + 1 : start] if w not in _UNSAID | _ALWAYS]
            if not _BUT.isdisjoint(between):
                return False  # "Don't tell anyone but I'm pregnant"
            if between and start in said.breaks:
                return False  # "I got told off by my boss, I work at Tesco"
            if between and (words[at] not in _TELLING or _told_the_user(words, at, between)):
                return False  # "says hi I ...", "told me I was born in Paris"
            return _another_speaker(said, first, at)
    return False


def _told_the_user(words: Sequence[str], verb: int, between: Sequence[str]) -> bool:
    """ "told me": what the user learned and reports ("My mom told me I was born in
    Paris"); "tells me", "keeps telling me" is a view ("My wife keeps telling me I snore"),
    and so is what the user is told they are ("My sister told me I'm selfish"; a doctor's
    is a finding all the same)."""
    if words[verb] not in _TOLD or between[0] not in _THE_USER:
        return False
    after = verb + 1 + len(between) + 3  # "told me (that) I am"
    being = next(
        (at for at in range(verb + 2, min(len(words) - 1, after)) if words[at] in _BEING), None
    )
    return being is None or words[being + 1].endswith("ing")  # "I'm getting promoted"


def _another_speaker(said: Wording, first: int, verb: int) -> bool:
    """Whether who says the verb at ``words[verb]`` is another than the user (nor "to
    say", the user's own: "I'm happy to say")."""
    words = said.words
    to_whom = next(
        (
            at
            for at in range(verb - 1, max(first, verb - _SPEAKER_REACH) - 1, -1)
            if words[at] in _TO_WHOM
        ),
        None,
    )
    if to_whom is not None:
        if words[to_whom + 1] in FIRST_PERSON:
            return False  # "老板跟我说": told the user, as "told me"
        verb = to_whom  # "我跟老板说": who says is before 跟
    if verb - 1 > first and words[verb - 1] in _CLITICS:  # "Mi hermana me dijo que"
        if _BEING.isdisjoint(words[verb + 1 : verb + _COPULA_REACH]):
            return False  # told the user, as "told me": "Mi madre me dijo que nací en Lima"
        verb -= 1
    for at in range(verb - 1, max(first, verb - _SPEAKER_REACH) - 1, -1):
        word = words[at]
        if possessed(said, first, at):
            return not an_authority(words, at - 1)  # "ibu saya bilang", "dokter saya bilang"
        if word in _TO or word in FIRST_PERSON or word in _THE_USER:
            return False
        if word not in _BEFORE_SAYING:
            return not an_authority(words, at)  # 医生说
    return False


def wished_after(words: Sequence[str], end: int, breaks: frozenset[int]) -> bool:
    """Whether a wish follows ``words[:end]`` in its clause ("रहना चाहता हूँ")."""
    if end >= len(words) or end in breaks:
        return False
    if words[end] in _WISHED_AFTER or words[end].startswith(_WISHED_AFTER_STARTS[0]):
        return True
    return "".join(words[end : end + 4]).startswith(_WISHED_AFTER_STARTS[1:])
