"""Negations that affirm (for streams/domain/negation.py).

"I can't wait", "No doubt I'm a morning person", "Nothing beats coffee in the morning",
"Don't forget that I'm vegan", "Vergiss nicht, dass ich Vegetarier bin", "不要忘记我是素食者":
the negator belongs to a phrase that says yes, so it does not turn what follows into its
opposite. A phrase of a habit or a liking ("I never miss my morning run") affirms only a
quote after it ("my morning run"), not one it reaches into ("miss my ex").
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.subclauses import AFFIRMING_MORE
from streams.domain.wording import tokens

_BEFORE_ONLY = frozenset(tuple(tokens(p)) for p in AFFIRMING_MORE)
_AFFIRMING = [
    tuple(tokens(p))
    for p in (
        *AFFIRMING_MORE,
        "can not wait",
        "can not believe",
        "could not be happier",
        "could not be better",
        "not going to lie",
        "no doubt",
        "nothing beats",
        "nothing better than",
        "nothing compares to",
        "nada como",
        "rien de tel que",
        "nichts geht über",
        "rien de tel qu",
        "do not forget",
        "never forget",
        "no olvides",
        "oublie pas",
        "não esqueça",
        "não esqueças",
        "non dimenticare",
        "vergiss nicht",
        "vergeet niet",
        "glöm inte",
        "nie zapomnij",
        "не забудь",
        "не забывай",
        "jangan lupa",
        "不要忘记",
        "不要忘了",
        "मत भूलना",
        "मत भूलो",
        "لا تنسى",
        "لا تنس",
    )
]


def affirming(words: Sequence[str], at: int, start: int) -> bool:
    """Whether the negator ``words[at]`` belongs to a phrase that affirms ("can't wait",
    "don't forget that", "no doubt"); "never miss" only before the quote ("I never miss
    my morning run" affirms "my morning run", not "miss my ex")."""
    return any(
        token == words[at]
        and tuple(words[at - k : at - k + len(phrase)]) == phrase
        and (phrase not in _BEFORE_ONLY or at - k + len(phrase) <= start)
        for phrase in _AFFIRMING
        for k, token in enumerate(phrase)
        if at >= k
    )
