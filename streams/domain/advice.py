"""Openings of a question asking advice about what the user would do (for mood.py).

"Is it a good idea to quit my job?", "Would you recommend I move to Denver?", "¿Me
recomiendas que me mude a Madrid?", "Ist es eine gute Idee, meinen Job zu kündigen?": the
action after the opening is weighed, not done, so a quote of it is not the user's
statement. What the question takes as given stands ("my job" says the user has one), and
so does a request ("Would you recommend a dentist near my office?"). Openings that are a
statement as well ("It was a good idea to quit", "Vale la pena, yo me mudé") count only
in a sentence with a question mark; inverted ones ("would it be smart to get a second
dog or nah") without it. Some languages ask after the action: "İşimi bırakmam mantıklı
mı?", "辞职去旅行是个好主意吗？".
"""

from __future__ import annotations

from streams.domain.views import FIRST_PERSON
from streams.domain.wording import tokens, word_set


def _openings(*texts: str) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(tokens(text)) for text in texts)


_QUESTION_OPENINGS = _openings(
    "do you think", "do you think that", "is it possible", "is it possible that",
    "est-ce que", "crois-tu que", "tu crois que", "glaubst du", "glaubst du dass",
    "denkst du", "denkst du dass", "crees que", "tú crees que", "será que",
    "é possível que", "es posible que", "ты думаешь", "как думаешь", "стоит ли мне",
    "czy myślisz że", "你觉得", "你说", "is it a good idea to", "is it a good idea",
    "is it worth", "does it make sense to", "tu me conseilles de", "is it a bad idea to",
    "is it smart to", "is it worth it to", "would you advise me to",
    # Asked by their order alone ("would it be smart to get a second dog or nah").
    "would it be smart to", "would it be wise to", "would it be a good idea to",
    "would it be smart for me to", "would it be wise for me to", "is it smart for me to",
    "is it wise for me to", "is it a good idea for me to", "would it be smarter to",
    "would it be sensible to", "is it sensible to", "is it a mistake to",
    "would it be a mistake to", "do you think i should", "do you think we should",
    "crees que es buena idea", "crees que es una buena idea", "secondo te è una buona idea",
    "será que vale a pena", "czy to dobry pomysł", "czy to dobry pomysł żeby", "czy warto",
    "có nên", "tôi có nên", "mình có nên", "em có nên",
    "هل من الأفضل أن", "هل من الافضل ان",
)  # fmt: skip
# A question only with its mark ("¿Vale la pena mudarme a Madrid?"; "Vale la pena, yo me
# mudé a Valencia" says it was worth it). The word that joins the action ("to", "de",
# "om", "que") may end the opening or open the quote.
_MARKED_OPENINGS = _openings(
    "vale la pena", "lohnt es sich", "vale a pena", "ha senso", "est-ce une bonne idée",
    "would it be smart", "would it be wise", "would it be a good idea", "is it wise",
    "would it make sense", "does it make sense for me", "would it make sense for me",
    "es buena idea", "es una buena idea", "sería buena idea", "es mala idea",
    "me recomiendas que", "me aconsejas que", "est-ce que c'est une bonne idée",
    "est-ce que ça vaut le coup", "ça vaut le coup", "ist es eine gute idee",
    "ist es sinnvoll", "wäre es sinnvoll", "ist es klug", "is het verstandig",
    "is het een goed idee", "is het slim", "é uma boa ideia", "é boa ideia",
    "è una buona idea", "apa sebaiknya", "apakah sebaiknya", "zou het verstandig zijn",
)  # fmt: skip
_JOINING = word_set("to de d om te zu que di")
# Asking advice about what the user would do ("Would you recommend I move to Denver?"),
# not a request ("Would you recommend a dentist near my office?").
_ADVICE_OPENINGS = _openings(
    "would you recommend", "do you recommend", "would you suggest", "do you suggest",
    "would you advise", "do you advise",
)  # fmt: skip
# German and Dutch put the verb last, after "zu", "te": "meinen Job zu kündigen" is the
# action weighed, not only what the question takes as given.
_VERB_LAST = word_set("zu te")


# Closing a question, after the action it weighs: Turkish "İşimi bırakmam mantıklı mı?",
# Chinese "辞职去旅行是个好主意吗？".
_CLOSINGS = _openings(
    "mantıklı mı", "iyi bir fikir mi", "doğru mu", "是个好主意吗", "是一个好主意吗", "是好主意吗",
    "好不好", "值得吗",
)  # fmt: skip


def advice_closing(closing: list[str]) -> bool:
    """Whether ``closing``, all that follows the quote in its question, asks advice on it."""
    return tuple(closing) in _CLOSINGS


def marked_opening(opening: tuple[str, ...]) -> bool:
    """Whether ``opening`` asks advice only in a question ("Es buena idea", "Would it be
    smart to")."""
    if opening in _MARKED_OPENINGS:
        return True
    return bool(opening) and opening[-1] in _JOINING and opening[:-1] in _MARKED_OPENINGS


def weighed(opening: tuple[str, ...], quote: list[str]) -> bool:
    """Whether a quote opening with "my", "meinen" is the action an advice question weighs
    ("Ist es eine gute Idee, meinen Job zu kündigen?")."""
    return marked_opening(opening) and not _VERB_LAST.isdisjoint(quote)


def advice_opening(opening: tuple[str, ...], first_quoted: str) -> bool:
    """ "Do you think", "Is it a good idea to", "Would you recommend I": the opening of a
    question asking about what the user would do."""
    if opening in _QUESTION_OPENINGS:
        return True
    if opening in _ADVICE_OPENINGS:  # "Would you recommend I move", "... moving"
        return first_quoted in FIRST_PERSON or first_quoted.endswith("ing")
    return bool(opening[:-1] in _ADVICE_OPENINGS and opening[-1:] and opening[-1] in FIRST_PERSON)
