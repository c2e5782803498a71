"""Role play, fiction and suppositions around a quote (for streams/domain/mood.py).

"Let's write a story where I'm a detective", "In my novel I live on Mars", "Let's play a
game: you're the barista and I'm a millionaire", "Roleplay: I am the king of France",
"Hypothetically I'm a billionaire", "假设我是国王": what the user says inside a story, a
game or a supposition is the story's, not the user's. A frame counts in the quote's own
sentence, before the quote: a word that is only a frame ("roleplay", "hypothetically",
"let's pretend"), or a story, novel, game or dream the words are "in" or "where" ("In the
game I own a castle"), not one the user talks about ("I work in the game industry", "In
the book club I met my wife").
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.views import FIRST_PERSON
from streams.domain.wording import Wording, ends_with_phrase, phrase_index, tokens, word_set

# Words that name a frame of play or supposition in any language (scope.py reads them too).
FRAME_WORDS = (
    "roleplay role-play roleplaying hypothetically hypothétiquement hipotéticamente"
    " hipoteticamente ipoteticamente hypothetisch rollenspiel 假设 假設 设想 設想 角色扮演"
    " ロールプレイ"
)
_FRAMES = phrase_index(
    FRAME_WORDS,
    phrases=(
        "let's pretend", "let's play", "let's write", "let's imagine", "let's roleplay",
        "let us pretend", "make believe", "make-believe", "jeu de rôle", "juego de rol",
        "gioco di ruolo", "ролевая игра", "游戏里", "遊戲裡", "故事里", "故事裡", "小说里",
        "小說裡", "梦里", "夢裡",
    ),
)  # fmt: skip
# What may hold a made-up world, in English, German, French, Spanish, Italian,
# Portuguese and Russian (its case after "в").
_FICTIONS = word_set(
    "story novel game book dream fanfic fanfiction screenplay script rpg roman spiel"
    " geschichte traum histoire jeu rêve juego novela historia sueño storia gioco sogno"
    " romanzo história jogo sonho игре романе истории сне рассказе книге"
)
_INTO = word_set("in im dans en no na nel nella в во")
_WHERE = word_set("where wo où donde onde dove где")
_INTO_REACH = 3  # words from "in" to the story: "in my new novel"


def fictional(said: Wording, first: int, start: int) -> bool:
    """Whether a frame of role play or fiction stands before ``said.words[start]`` in its
    sentence (from ``first``)."""
    words = said.words
    before = words[first:start]
    if _FRAMES.keys().isdisjoint(before) and _FICTIONS.isdisjoint(before):
        return False  # the common case
    for at in range(first + 1, start + 1):
        if ends_with_phrase(words, at, _FRAMES):
            return True
        if words[at - 1] in _FICTIONS and _made_up_in(said, first, at - 1, start):
            return True
    return False


def _made_up_in(said: Wording, first: int, noun: int, start: int) -> bool:
    """Whether the story at ``said.words[noun]`` holds what follows: "a story where",
    "in my novel, I", "in the game I"."""
    words = said.words
    after = noun + 1
    if after < start and words[after] in _WHERE:
        return True
    if not (after == start or after in said.breaks or words[after] in FIRST_PERSON):
        return False  # "in the game industry", "in the book club"
    return not _INTO.isdisjoint(words[max(first, noun - _INTO_REACH) : noun])


# Set-ups of a supposition, unless the user's own hedge ("I suppose I'm an introvert").
_SUPPOSING = word_set(
    "suppose supposing imagine assume assuming pretend angenommen imaginons supongamos"
    " допустим представь"
)
# Not a set-up: "Imagine my surprise", the user's own hedge ("I suppose"), and an
# exclamation with its comma ("Can you imagine, I got promoted", "as you can imagine,";
# not "Can you imagine I'm a 5-year-old and explain ...", a role to play).
_EXCLAIMED = frozenset(
    tuple(tokens(p))
    for p in (
        "my surprise", "my shock", "my joy", "my relief", "my delight", "my face",
        "my excitement", "my reaction", "my amazement", "ma surprise", "ma joie",
        "mon soulagement", "mi sorpresa", "mi alegría", "mi alivio", "la mia sorpresa",
        "la mia gioia", "minha surpresa", "minha alegria", "meine überraschung",
        "meine freude",
    )
)  # fmt: skip
_EXCLAIMING = word_set("you can could just")


def supposing_at(words: Sequence[str], span: tuple[int, int], breaks: frozenset[int]) -> bool:
    """ "Suppose I had three kids", "Imagine I'm a doctor": a set-up just before the quote
    at ``span[1]`` or opening its sentence at ``span[0]``, not the user's "I suppose"."""
    first, start = span
    for at in (start - 1, start - 2, first):
        if first <= at < start and words[at] in _SUPPOSING:
            if tuple(words[at + 1 : at + 3]) in _EXCLAIMED:
                return False  # "Imagine my surprise: I ..."
            exclaimed = (at + 1 in breaks and at > 0 and words[at - 1] in _EXCLAIMING) or (
                tuple(words[max(0, at - 3) : at]) == ("as", "you", "can")
            )
            return not exclaimed and (at == 0 or words[at - 1] not in FIRST_PERSON)
    return False
