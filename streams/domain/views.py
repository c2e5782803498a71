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
    " biz saya aku kami tôi 我 私 僕 俺 나 저 אני אנחנו أنا نحن मैं हम मुझे मुझको हमें"
)
# Someone else's view of the user: "My boss thinks I'm lazy", "According to my friends".
_REPORTING = phrase_index(
    "thinks think thought believes believe believed claims claim claimed assumes assume"
    " assumed insists insist insisted reckons reckon reckoned suspects suspect suspected"
    " meint meinen glaubt glauben denkt denken findet finden behauptet behaupten pense"
    " pensent croit croient prétend cree creen piensa piensan acha acham pensa pensano"
    " crede credono vindt vinden думает думают считает считают уверен уверена uważa"
    " uważają myśli myślą sądzi sądzą يعتقد تعتقد يعتقدون يظن تظن يظنون חושב חושבת"
    " חושבים חושבות anadhani wanadhani anafikiri wanafikiri 觉得 覺得 认为 認為 以为 以為"
    " pikir berpikir mengira menganggap fikir nghĩ",
    phrases=("लगता है", "cho rằng", "cho là"),
)
# Saying, and telling others: "My mom says I'm lactose intolerant", "My friend told
# everyone I moved to Paris".
_SAYING = word_set(
    "says say said saying tells tell told telling sagt sagen erzählt erzählen dit disent"
    " raconte dice dicen diz dizem zegt zeggen говорит говорят mówi mówią 说 說 bilang"
    " berkata mengatakan kata"
)
_NOT_SAYING = frozenset(["再说", "再說"])
_TELLING = word_set("tells tell told telling erzählt erzählen raconte")
# Everyday words elsewhere (English "dice", Dutch "dit" "this"): saying only before "que".
_WITH_QUE = word_set("dit dice")
_TOLD = word_set("told")
_TOLD_REACH = 4  # words between "told" and the quote: "told my whole family"
_SPEAKER_REACH = 4
_THAT = word_set("that dass que что że dat bahwa rằng")
_TO_WHOM = word_set("跟 对 對 和 向 给 給")  # "我跟老板说", told to whom
_UNSAID = _THAT | FIRST_PERSON  # "says (that) I ...": the quote may leave them out
_THE_USER = word_set("me us mir uns moi nous mnie мне нам")
# "According to me", "Menurut saya" (in my opinion), "Theo tôi": the user's own view.
_UNSAID_SPEAKERS = word_set("me mir moi mí yo mim mnie мне saya aku tôi")
_TO = word_set("to")
_BEFORE_REPORTING = word_set("could can do did hardly barely really still also just truly")
_COMPARING = word_set("than as")  # "than you think": no view of another's
# Between who says and the verb: "People keep saying", "My mom is always telling".
_BEFORE_SAYING = word_set(
    "keep keeps kept always still also just even often constantly never ever is are was"
    " were has have had will would immer toujours siempre sempre всегда 总 總 老 是 一 直 也"
    " 都 常 经 經 还 還 又 te t lui leur ai avons eerlijk ehrlich honestly frankly already"
    " probably maybe once"
)
# Whose saying is a finding the user reports as theirs: "My doctor says I'm diabetic".
_AUTHORITIES = word_set(
    "doctor doctors doc dentist physician therapist psychiatrist psychologist gp nurse"
    " specialist test tests results scan arzt ärztin médecin médico врач lekarz dokter"
)
# Two-word authorities as one string: 医生, and Vietnamese "bác sĩ".
_AUTHORITY_PAIRS = frozenset("".join(w) for w in folded_words("医生 醫生 大夫 医师 醫師 bác_sĩ"))
# Languages that put the possessor after the noun: "bos saya" (Indonesian, Malay) and
# "sếp tôi" (Vietnamese) are "my boss", so "bos saya pikir" is the boss's "thinks", not
# the user's own "saya pikir". Only these nouns of people, so an opening word before the
# user's own "I think" ("tapi saya pikir", "còn tôi nghĩ") is never read as a speaker.
_POSTPOSED_POSSESSORS = word_set("saya aku kami tôi")
_PEOPLE_POSSESSED = word_set(
    "bos atasan manajer ibu ayah bapak mama papa mami papi emak istri isteri suami teman"
    " kawan sahabat pacar kakak adik abang kakek nenek tetangga rekan guru dosen keluarga"
    " mertua anak pasangan tunangan dokter sếp mẹ má bố cha vợ chồng thầy yêu xóm nghiệp"
    " đình"
)
_PEOPLE = word_set("orang semua mọi người")
_CLAUSE_OPENERS = word_set("tapi tetapi dan jadi terus karena nhưng và còn thì mà")
# For streams/domain/scope.py: a view told after the quote.
AUTHORITIES, REPORTING, SAYING = _AUTHORITIES, _REPORTING, _SAYING
_ACCORDING_TO = frozenset(
    tuple(tokens(p)) for p in ("according to", "laut", "selon", "según", "по словам")
)
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
    if _according_to_another(said, first):
        return any(b in said.breaks for b in range(first + 1, start + 1))
    for end in (start, start - 1):
        if end < start and start in said.breaks:
            break  # "nghỉ sớm - tôi bị ốm": the word after the verb ends its clause
        phrase = phrase_ending(words, end, _REPORTING)
        who = end - len(phrase) - 1 if phrase else -1
        if phrase and who > first and words[who - 1] in _COMPARING:
            return False  # "I'm older than you think, I'm 67"
        while phrase and who > first and words[who] in _BEFORE_REPORTING:
            who -= 1  # "I could hardly believe that ..."
        if phrase and who >= first:
            return words[who] not in FIRST_PERSON or _possessed(said, first, who)
    return False


def _possessed(said: Wording, first: int, at: int) -> bool:
    """Whether ``words[at]``, a first person, is the possessor after a noun of a person
    in its clause ("bos saya", "sếp tôi": "my boss"), not the user as the subject."""
    words = said.words
    return (
        words[at] in _POSTPOSED_POSSESSORS
        and at - 1 >= first
        and at not in said.breaks
        and words[at - 1] in _PEOPLE_POSSESSED
        and _opens_its_clause(said, first, at - 1)
    )


def _opens_its_clause(said: Wording, first: int, at: int) -> bool:
    """Whether ``words[at]`` opens its clause, maybe after "but", "and" ("Tapi bos saya
    pikir"), not an object ("cerai dengan suami saya pikir") nor after thanks ("Makasih
    teman saya pikir")."""
    if at == first or at in said.breaks:
        return True
    before = said.words[at - 1]
    return before in _CLAUSE_OPENERS and (at - 1 == first or at - 1 in said.breaks)


def _an_authority(words: Sequence[str], at: int) -> bool:
    """A doctor or a test ("doctor", 医生, "bác sĩ"), whose saying is a finding."""
    pair = "".join(words[max(0, at - 1) : at + 1])
    return words[at] in _AUTHORITIES or pair in _AUTHORITY_PAIRS


def _a_person_at(words: Sequence[str], at: int) -> bool:
    return at < len(words) and words[at] in _PEOPLE_POSSESSED | _PEOPLE


def _according_to_another(said: Wording, first: int) -> bool:
    """Whether the sentence from ``first`` opens "According to <another>", whose view
    follows: not "according to me" (the user's own), nor to a doctor (a finding)."""
    words = said.words
    opening = next((p for p in _ACCORDING_TO if tuple(words[first : first + len(p)]) == p), ())
    if not opening and words[first] in _ACCORDING_TO_SOMEONE and _a_person_at(words, first + 1):
        opening = (words[first],)
    if not opening or first + len(opening) >= len(words):
        return False
    who = first + len(opening)
    if words[who] in _UNSAID_SPEAKERS:
        return False
    return not any(_an_authority(words, at) for at in range(who, min(who + 3, len(words))))


def said_by_another(said: Wording, first: int, start: int) -> bool:
    """Whether another than the user says the quote just before it ("My mom says", "People
    keep saying", "My friend told everyone"), not the user ("I told my boss", "I have to
    tell you") nor once to the user ("My doctor told me": a finding the user reports), nor
    a doctor or a test ("My doctor says I'm diabetic")."""
    words = said.words
    for at in range(start - 1, max(first, start - _TOLD_REACH - 1) - 1, -1):
        if at + 1 < start and at + 1 in said.breaks:
            return False  # the verb is in another clause: "My mom says hi. I ..."
        if at > first and words[at - 1] + words[at] in _NOT_SAYING:
            return False  # 以后再说 "later", not "says"
        if words[at] in _SAYING and (words[at] not in _WITH_QUE or words[at + 1] in _THAT):
            between = [w for w in words[at + 1 : start] if w not in _UNSAID]
            if between and (words[at] not in _TELLING or _told_the_user(words[at], between)):
                return False  # "says hi I ...", "told me I'm diabetic"
            return _another_speaker(said, first, at)
    return False


def _told_the_user(verb: str, between: Sequence[str]) -> bool:
    """ "told me": what the user learned and reports ("My mom told me I was born in
    Paris"); "tells me", "keeps telling me" is a view ("My wife keeps telling me I snore")."""
    return verb in _TOLD and between[0] in _THE_USER


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
    for at in range(verb - 1, max(first, verb - _SPEAKER_REACH) - 1, -1):
        word = words[at]
        if _possessed(said, first, at):
            return not _an_authority(words, at - 1)  # "ibu saya bilang", "dokter saya bilang"
        if word in _TO or word in FIRST_PERSON or word in _THE_USER:
            return False
        if word not in _BEFORE_SAYING:
            return not _an_authority(words, at)  # 医生说
    return False


def wished_after(words: Sequence[str], end: int, breaks: frozenset[int]) -> bool:
    """Whether a wish follows ``words[:end]`` in its clause ("रहना चाहता हूँ")."""
    if end >= len(words) or end in breaks:
        return False
    if words[end] in _WISHED_AFTER or words[end].startswith(_WISHED_AFTER_STARTS[0]):
        return True
    return "".join(words[end : end + 4]).startswith(_WISHED_AFTER_STARTS[1:])
