"""Whose view a quote is, and a wish after it (for streams/domain/mood.py).

"My boss thinks I'm lazy", "Mój szef uważa, że jestem leniwy", "我老板觉得我很懒",
"مديري يعتقد أنني كسول", "मेरे बॉस को लगता है कि मैं आलसी हूँ": what follows another's
"thinks" is their view, not the user's statement; after the user's own ("I think I have
ADHD", "我觉得", "मुझे लगता है") it is the user's hedge, and stands. A wish may also follow
what it wishes, in languages that put the verb last: "बर्लिन में रहना चाहता हूँ",
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
    " חושבים חושבות anadhani wanadhani anafikiri wanafikiri 觉得 覺得 认为 認為 以为 以為",
    phrases=("लगता है",),
)
_ACCORDING_TO = frozenset(
    tuple(tokens(p)) for p in ("according to", "laut", "selon", "según", "по словам")
)
# After what it wishes: Hindi "चाहता", Turkish "istiyorum"; Korean 싶 and Japanese たい
# begin the word or kana after it.
_WISHED_AFTER = word_set(
    "चाहता चाहती चाहते चाहूंगा चाहूंगी istiyorum isterim istiyordum istedim istiyoruz"
)
_WISHED_AFTER_STARTS = tuple("".join(w) for w in folded_words("싶 たい たかった"))


def reported(said: Wording, first: int, start: int) -> bool:
    """Whether the quote is someone else's view: just after "thinks", "claims" and the
    like (or after them and "that") said by another than the user, or in a sentence
    opening "According to"."""
    words = said.words
    if any(tuple(words[first : first + len(p)]) == p for p in _ACCORDING_TO):
        return any(b in said.breaks for b in range(first + 1, start + 1))
    for end in (start, start - 1):
        phrase = phrase_ending(words, end, _REPORTING)
        who = end - len(phrase) - 1 if phrase else -1
        if phrase and who >= first:
            return words[who] not in FIRST_PERSON
    return False


def wished_after(words: Sequence[str], end: int, breaks: frozenset[int]) -> bool:
    """Whether a wish follows ``words[:end]`` in its clause ("रहना चाहता हूँ")."""
    if end >= len(words) or end in breaks:
        return False
    if words[end] in _WISHED_AFTER or words[end].startswith(_WISHED_AFTER_STARTS[0]):
        return True
    return "".join(words[end : end + 4]).startswith(_WISHED_AFTER_STARTS[1:])
