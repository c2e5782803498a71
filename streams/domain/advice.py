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
    "có nên", "tôi có nên", "mình có nên", "em có nên", "do u think", "do u think i should",
    "do u think we should", "u think i should", "you think i should", "do ya think i should",
    "هل من الأفضل أن", "هل من الافضل ان", "هل يجب أن", "هل يجب ان", "هل علي أن",
    "هل ينبغي أن", "ought i to", "ought we to", "هل يستحق أن", "am i crazy to",
    "am i stupid to", "am i wrong to", "would i be crazy to", "would i be stupid to",
    "what do you think about me", "what do you think of me", "我应该", "我该", "我要不要", "要不要",
    "我是不是应该",
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
    "würdest du mir raten", "mi consigli di", "is het de moeite waard om",
    "est-ce que ça vaut la peine de", "ça vaut la peine de", "macht es sinn",
    "heeft het zin om", "czy opłaca się", "opłaca się", "thoughts on me",
    "is het de moeite waard",
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
_ZU_INSIDE = "zu"  # "umzuschulden", "anzufangen"


# Closing a question, after the action it weighs: Turkish "İşimi bırakmam mantıklı mı?",
# Chinese "辞职去旅行是个好主意吗？".
_CLOSINGS = _openings(
    "mantıklı mı", "iyi bir fikir mi", "doğru mu", "是个好主意吗", "是一个好主意吗", "是好主意吗",
    "好不好", "值得吗", "değer mi", "yapmaya değer mi", "価値はありますか", "価値がありますか",
    "好吗", "方がいいですか", "ほうがいいですか", "方がいいかな",
    "べきかな", "べきですか", "べきでしょうか", "べきだと思う",
    "mantıklı olur mu", "iyi olur mu", "doğru olur mu", "akıllıca olur mu",
    "mantıklı mıdır", "是明智的选择吗", "是明智的吗", "明智吗", "是对的选择吗", "のは賢いと思う",
    "のは賢いかな", "のは賢明だと思う", "のはいい考えだと思う", "のは正しいと思う",
)  # fmt: skip


# Judging words of an action weighed in a question, in any language: "would it be smart
# to", "ce serait malin de", "sarebbe intelligente", "wäre es klug", "zou het slim zijn
# om", "czy rozsądnie byłoby", "هل من الحكمة أن". Counted in an opening of a few words that
# ends with them or with the word that joins the action, none of them past ("Was it smart
# that I quit?" tells what was done) nor the user's own ("I think it's smart to").
_JUDGING = word_set(
    "smart wise sensible clever malin malin sage judicieux raisonnable intelligent"
    " intelligente inteligente sensato sensata prudente saggio furbo klug sinnvoll schlau"
    " vernünftig slim verstandig wijs rozsądnie rozsądne mądrze mądre разумно умно"
    " الحكمة المنطقي الجيد الافضل الذكاء good better bom bueno buono gut goed dobrze"
    " хорошо mejor melhor meglio besser beter lepiej лучше bijak dumb stupid crazy silly"
    " foolish okay ok reasonable idea idée idee ideia pomysł идея"
)
_JUDGED_JOINING = word_set(
    "to de d om zu te di que per um żeby by чтобы أن ان zijn byłoby было serait sería"
    " seria sarebbe wäre kalau untuk would"  # French "d'" folds as English "'d"
)
_NOT_ASKING = word_set(
    "was were war waren était fue era foi było было i ich je yo eu io ik ja я أنا think"
    " denke pense creo acho penso denk myślę думаю"
)
_JUDGED_REACH = 8


def _judged(opening: tuple[str, ...]) -> bool:
    """Whether ``opening`` is a short question's opening that judges the action after it
    ("ce serait malin de", "wäre es klug", "czy rozsądnie byłoby")."""
    if len(opening) < 2 or len(opening) > _JUDGED_REACH or _JUDGING.isdisjoint(opening):
        return False
    if not _NOT_ASKING.isdisjoint(opening):
        return False
    last = max(at for at, word in enumerate(opening) if word in _JUDGING)
    return all(word in _JUDGED_JOINING for word in opening[last + 1 :])


def advice_closing(closing: list[str]) -> bool:
    """Whether ``closing``, all that follows the quote in its question, asks advice on it."""
    return tuple(closing) in _CLOSINGS


def marked_opening(opening: tuple[str, ...]) -> bool:
    """Whether ``opening`` asks advice only in a question ("Es buena idea", "Would it be
    smart to", "Serait-il malin de", "Czy rozsądnie byłoby")."""
    if opening in _MARKED_OPENINGS or _judged(opening):
        return True
    return bool(opening) and opening[-1] in _JOINING and opening[:-1] in _MARKED_OPENINGS


def weighed(opening: tuple[str, ...], quote: list[str]) -> bool:
    """Whether a quote opening with "my", "meinen" is the action an advice question weighs
    ("Ist es eine gute Idee, meinen Job zu kündigen?")."""
    verb_last = not _VERB_LAST.isdisjoint(quote) or _ZU_INSIDE in quote[-1][2:-2]
    return marked_opening(opening) and verb_last  # "meine Hypothek umzuschulden"


# "Am I too old to", "Is it too late to", "Am I too old for" an action weighed.
_BEING = word_set("am is are would")
_WHO = word_set("i it we")
_TOO, _TO = word_set("too"), word_set("to for")
_TOO_REACH = 7
# A short preface to "should I": "tell me honestly should i", "so should i", "lol should
# we" (not "what should I", a question of another kind, nor "I know I should").
_SHOULD = word_set("should shall must")
_PREFACE_REACH = 3
_NOT_PREFACING = word_set(
    "what where when who whom why how which i we he she they it you know if whether"
)


def _too_much_to(opening: tuple[str, ...]) -> bool:
    return (
        2 < len(opening) <= _TOO_REACH
        and opening[0] in _BEING
        and opening[1] in _WHO
        and opening[2] in _TOO
        and opening[-1] in _TO
    )


def _prefaced(opening: tuple[str, ...]) -> bool:
    if not 2 < len(opening) <= _PREFACE_REACH + 2 or opening[-1] not in _WHO:
        return False
    preface = opening[:-2]
    return opening[-2] in _SHOULD and opening[-1] != "it" and _NOT_PREFACING.isdisjoint(preface)


_RECOMMENDING = _openings(
    "me recomiendas",
    "me aconsejas",
    "me recomendas",
    "mi consigli",
    "tu me conseilles",
    "me aconselhas",
)
_INFINITIVES = ("ar", "er", "ir", "re")  # cambiar, vendre, cambiare
_IT_OPENINGS = frozenset([("is", "it"), ("would", "it"), ("isn", "t"), ("wouldn", "t")])
# "Should" in many languages, for "je devrais déménager à Lyon ?", "crees que debería".
_SHOULD = word_set(
    "should ought debería deberia devrais devrait sollte soll dovrei dovremmo deveria devo"
    " devemos powinienem powinnam powinniśmy должен должна moet zou"
)
# "Do you think" openings, before "I should": the question is asked without its mark.
_THINKERS = _openings(
    "crees que", "tú crees que", "tu crois que", "tu penses que", "meinst du", "glaubst du",
    "denkst du", "secondo te", "pensi che", "você acha que", "acha que", "думаешь",
    "как думаешь", "myślisz że", "denk je dat", "do you think", "you think", "u think",
)  # fmt: skip
_ASKED_SHOULD = 3  # words of a marked question's opening: "je devrais", "should we"


def should_asked(opening: tuple[str, ...], marked: bool) -> bool:
    """Whether ``opening`` asks whether the user should do what follows: a short one
    with "should" in a question ("je devrais", "ich sollte"), or "do you think" first."""
    if not opening or _SHOULD.isdisjoint(opening[-2:]):
        return False
    if marked and len(opening) <= _ASKED_SHOULD:
        return True
    return any(opening[: len(t)] == t for t in _THINKERS)


def advice_opening(opening: tuple[str, ...], first_quoted: str) -> bool:
    """ "Do you think", "Is it a good idea to", "Would you recommend I": the opening of a
    question asking about what the user would do."""
    if opening in _QUESTION_OPENINGS or _too_much_to(opening) or _prefaced(opening):
        return True
    if opening[:2] in _IT_OPENINGS and _judged(opening):
        return True  # "is it dumb to buy a house at 25", asked by its order
    if opening in _RECOMMENDING:  # "¿me recomiendas cambiar de carrera?", not "un dentista"
        return first_quoted.endswith(_INFINITIVES)
    if opening in _ADVICE_OPENINGS:  # "Would you recommend I move", "... moving"
        return first_quoted in FIRST_PERSON or first_quoted.endswith("ing")
    return bool(opening[:-1] in _ADVICE_OPENINGS and opening[-1:] and opening[-1] in FIRST_PERSON)
