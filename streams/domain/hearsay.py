"""What the user was told of themself, with no one named (for streams/domain/views.py).

"Growing up I was told I was bad at art", "I've been told I'm intimidating", "Me
dijeron que soy muy terco", "On m'a dit que je suis têtu", "Mir wurde gesagt, dass ich zu
leise bin", "Мне сказали, что я слишком медленный", "Dicen que soy muy alto", "On dit que
je ronfle": the quote after it is others' view, reported, not the user's statement. A
finding stands, as "My doctor says" does: "I was told by my doctor that I'm
prediabetic". So does what the user told ("I told my boss I'm quitting", "As I told you,
I'm a nurse"), and being told to do something ("I was told to wait, so I live in a
hotel now" leaves the hotel the user's).
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from streams.domain.wording import phrase_ending, phrase_index, word_set

# Told, passive or impersonal, just before what was told (with "that" between or not).
_TOLD = phrase_index(
    "",
    phrases=(
        "was told", "were told", "been told", "am told", "m told", "are told", "get told",
        "got told", "getting told", "being told", "me dijeron", "me han dicho", "me dicen",
        "on m a dit", "on me dit", "on m a toujours dit", "mi hanno detto", "mi dicono",
        "mir wurde gesagt", "man hat mir gesagt", "man sagt mir", "мне сказали",
        "мне говорят", "powiedziano mi", "mówiono mi", "me disseram", "me dizem",
        "dicen", "dizem", "on dit", "man sagt", "dicono", "говорят", "mówią",
        "apparently", "apparemment", "blijkbaar", "pelo visto", "podobno", "якобы",
        "katanya", "anscheinend", "al parecer", "a quanto pare", "görünüşe göre",
        "rumor has it", "rumour has it", "word has it", "word is", "il paraît que",
        "paraît que", "supposedly", "allegedly", "angeblich", "se dice que",
    ),
)  # fmt: skip
_THAT = word_set("that que qu che dass что że")
# Impersonal "they say", words elsewhere too ("me dicen" is "they call me"): only opening
# their clause ("Dicen que soy muy alto").
_OPENING_ONLY = frozenset(
    [("dicen",), ("dizem",), ("dicono",), ("говорят",), ("mówią",), ("on", "dit"), ("man", "sagt")]
)
_BY = word_set("by von par por da przez")
_REACH = 5  # words between "told" and the quote: "told by my doctor that"


def told_of_the_user(
    words: Sequence[str], span: tuple[int, int], breaks: frozenset[int], authorities: Set[str]
) -> bool:
    """Whether others told what the quote at ``words[span[1]]`` says, in its sentence from
    ``span[0]``, with no one named ("I was told", "Dicen que"), unless it was a finding
    (one of ``authorities`` after "by")."""
    first, start = span
    if _TOLD.keys().isdisjoint(words[max(first, start - _REACH) : start]):
        return False  # the common case
    for end in range(start, max(first, start - _REACH), -1):
        told = phrase_ending(words, end, _TOLD)
        if told is None or end - len(told) < first:
            continue
        between = words[end:start]
        if between and between[0] in _BY:
            return authorities.isdisjoint(between)  # "told by my doctor": a finding
        if any(w not in _THAT for w in between):
            return False  # "I was told to wait", not what was told
        opening = end - len(told)
        return told not in _OPENING_ONLY or opening == first or opening in breaks
    return False
