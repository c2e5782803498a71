"""What reaches a quote from outside its own clause (for streams/domain/quotes.py).

A frame of role play set in an earlier sentence of the same message covers the rest of
that message: "Let's roleplay. I am the king of France.", "Let's play a game! You're a
barista and I'm a millionaire.", "Story time: I live on Mars", "Hypothetically speaking.
I quit my job.", "Imaginons un jeu. Je suis le roi.", "假设一下。我是亿万富翁。". It ends at
an exit ("Okay, back to reality: I work at Acme", "Anyway, for real, I live in Oslo"),
and at the end of the message: a later message is read on its own. A frame counts when
it opens its sentence (or is most of a short one), so "I love roleplaying games. I live
in Berlin." stays the user's.

Another's view told after the quote: "I'm lazy, according to my boss", "I'm shy, or so my
friends say", "I'm lazy, my boss thinks", "私は怠け者だと上司は思っている",
"母は私が乳糖不耐症だと言っています", "Patronum tembel olduğumu düşünüyor", "상사는 내가
게으르다고 생각해요". Only a whole clause that is nothing but the view counts: "I'm a
nurse, my mom says it suits me" is about something else; "I'm a nurse, my doctor says"
is a finding, as views.py reads "My doctor says".
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.fiction import FRAME_WORDS
from streams.domain.holders import AUTHORITIES
from streams.domain.views import REPORTING, SAYING
from streams.domain.wording import (
    Wording,
    folded_words,
    phrase_ending,
    phrase_index,
    tokens,
    word_set,
)

_FRAME_REACH = 8  # earlier sentences looked at: a hostile message stays cheap
_OPENING_REACH = 4  # words of a sentence a frame may end in: "Okay so, let's roleplay"
_SHORT = 8  # words (characters in Chinese) of a sentence that is only a frame
# A frame of its own: "Let's roleplay.", "Hypothetically speaking.", "假设一下。".
_FRAMES = phrase_index(
    FRAME_WORDS + " imaginons imaginemos immaginiamo supposons 仮に",
    phrases=(
        "role play", "role playing", "let's pretend", "let us pretend", "make believe",
        "story time", "storytime", "picture this", "imagine this", "let's imagine",
        "jeu de rôle", "juego de rol", "gioco di ruolo", "faisons semblant",
        "ролевая игра", "玩个游戏", "玩個遊戲", "玩游戏", "玩遊戲", "讲个故事", "講個故事",
    ),
)  # fmt: skip
# An invitation to play that is a frame with a game after it: "Let's play a game!".
_INVITATIONS = phrase_index(
    "play do have jouons juguemos jugamos",
    phrases=("spielen wir",
             "lass uns", "vamos a jugar", "vamos jogar", "давай сыграем", "давай поиграем"),
)  # fmt: skip
_GAMES = word_set("game roleplay pretend jeu juego spiel gioco jogo игру")
_GAME_REACH = 3  # words from the invitation to the game: "let's play a little game"
_EXITS = phrase_index(
    "anyway anyways seriously irl ooc sérieusement realmente 说真的 說真的 言归正传 言歸正傳",
    phrases=(
        "back to reality", "back to real life", "in real life", "for real", "jokes aside",
        "joking aside", "out of character", "in reality", "but really", "en vrai",
        "pour de vrai", "blague à part", "en serio", "en realidad", "im ernst",
        "spaß beiseite", "in wirklichkeit", "на самом деле", "回到现实", "回到現實",
        "冗談はさておき", "本当は",
    ),
)  # fmt: skip
_FRAME_WORDS = frozenset(_FRAMES) | frozenset(_INVITATIONS)  # the last word of each
_OPENERS = word_set("ok okay so alright now hey well then and but let s lets us 好 那 来 來")
_WE = frozenset(tuple(w) for w in ("我们", "我們", "咱们", "咱們"))
_FRAME_TAIL = 2  # words after a frame in its clause: "speaking", "一下", "un jeu"
_OF = word_set("of de di")


def framed_earlier(said: Wording, start: int) -> bool:
    """Whether a frame of role play opens an earlier sentence of the message than the
    one of ``said.words[start]`` (or a clause before it in its own), with no exit
    between it and the quote."""
    words, sentence = said.words, said.sentence_of(start)
    reach = said.sentence_span(max(0, sentence - _FRAME_REACH + 1))[0]
    if _FRAME_WORDS.isdisjoint(words[reach:start]):
        return False  # the common case: no frame nor exit in reach
    if _an_exit(words, start, said.sentence_span(sentence)[1]):
        return False  # "I work at Acme in real life"
    for back in range(sentence, max(-1, sentence - _FRAME_REACH), -1):
        first, last = said.sentence_span(back)
        last = min(last, start)
        if _an_exit(words, first, last):
            return False  # "Okay, back to reality: I work at Acme"
        if _a_frame(said, first, last):
            return True
    return False


def _an_exit(words: Sequence[str], first: int, last: int) -> bool:
    """Whether an exit from the frame ("back to reality", "for real") is in
    ``words[first:last]``."""
    if _EXITS.keys().isdisjoint(words[first:last]):
        return False
    return any(phrase_ending(words, at, _EXITS) for at in range(first + 1, last + 1))


def _a_frame(said: Wording, first: int, last: int) -> bool:
    """Whether ``said.words[first:last]`` opens with a clause that is only a frame:
    "Let's roleplay.", "Story time:", "Let's play a game!", "假设一下。"."""
    words = said.words
    opened = first
    while opened < last and words[opened] in _OPENERS:
        opened += 1
    if tuple(words[opened : opened + 2]) in _WE:
        opened += 2  # "我们玩个游戏吧"
    ends = (at for at in range(opened + 1, min(last, opened + _OPENING_REACH) + 1))
    for at in ends:
        frame = phrase_ending(words, at, _FRAMES)
        if frame and at - len(frame) == opened:
            return _only_a_frame(said, at, last, _FRAME_TAIL)
        frame = phrase_ending(words, at, _INVITATIONS)
        if frame and at - len(frame) == opened:
            game = next(
                (g + 1 for g in range(at, min(last, at + _GAME_REACH)) if words[g] in _GAMES),
                None,
            )
            return game is not None and _only_a_frame(said, game, last, 0)
    return False


def _only_a_frame(said: Wording, at: int, last: int, tail: int) -> bool:
    """Whether the frame ending before ``said.words[at]`` is its whole clause but for
    ``tail`` words ("Hypothetically speaking.", "Let's play a game!"; not "Hypothetically
    I could move", "Let's play a game tonight" nor "a game of chess")."""
    clause_end = min((b for b in said.breaks if b >= at), default=len(said.words))
    if clause_end > last:
        return False  # the frame's clause is the quote's: fiction.py reads it
    return clause_end - at <= tail and _OF.isdisjoint(said.words[at:clause_end])


# --- another's view after the quote -------------------------------------------------

_ACCORDING_TO = frozenset(
    tuple(tokens(p))
    for p in ("according to", "laut", "selon", "d'après", "según", "segun", "secondo",
              "segundo", "по словам", "据")
)  # fmt: skip
_OR_SO = (tuple(tokens("or so")), tuple(tokens("so")))
_HEARD = word_set("told heard hear")
_ADDRESSEE = word_set("you tu vous du usted ты вы")
# The user (not "my": Polish "my" is "we" in FIRST_PERSON): "selon moi", "or so I think".
_SELF = word_set("i me we us moi je nous ich mir mich wir yo nosotros я мне мы")
_VIEW_CLAUSE = 7  # words of a clause that is only a view: "or so my friends say"
_SUBJECT_REACH = 4  # words of who holds the view: "my two best friends"
# Japanese: と then who thinks or says (言う, 思う, 考える, 信じる, 話す).
_JA_QUOTING = word_set("と")
_JA_VERBS = word_set("言 思 考 信 話")
_JA_SKIPPED = word_set("た て す の ん な")  # だ, です, なんだ before と (folded)
_JA_TOPIC = word_set("は か も")  # は, が (folded), も
_JA_SELF = frozenset("".join(w) for w in folded_words("私 僕 俺 わたし 自分 あたし"))
_JA_REACH = 6  # characters from と to its verb: "上司は" and a little
# Korean: a quoted -다고 / -라고 then 생각하다, 말하다, 믿다, 하다.
_KO_QUOTED = tuple("".join(w) for w in folded_words("고"))
_KO_VERBS = tuple("".join(w) for w in folded_words("생각 말 믿 여기 주장 하 했 한"))
_KO_SUBJECT_ENDS = tuple("".join(w) for w in folded_words("는 은 가 께서"))
_KO_SELF = word_set("나는 저는 난 전 내가 제가 우리는 우리가 저희는")
# Turkish: "olduğumu" then another's "düşünüyor", "söylüyor", "diyor".
_TR_NOMINAL = tuple("".join(w) for w in folded_words("ğumu ğımı ğimi ğümü"))
_TR_VIEWS = word_set(
    "düşünüyor düşünüyorlar düşünür sanıyor sanıyorlar sanır söylüyor söylüyorlar söyledi"
    " söylediler diyor diyorlar inanıyor inanıyorlar iddia söylerdi derdi"
)


def viewed_after(said: Wording, start: int, end: int) -> bool:
    """Whether another's view of ``said.words[start:end]`` follows it: a clause of its
    own, or (in Japanese, Korean and Turkish) the verb after the quote."""
    words, breaks = said.words, said.breaks
    if end >= len(words):
        return False
    if _japanese(said, start, end) or _korean(said, start, end) or _turkish(words, end):
        return True
    reach = min(len(words), end + _VIEW_CLAUSE + 1)
    hi = next((b for b in range(end + 1, reach) if b in breaks), reach)
    if hi - end > _VIEW_CLAUSE or (end not in breaks and hi == reach < len(words)):
        return False  # a longer clause says more than a view
    if end not in breaks and any(b in breaks for b in range(start + 1, end)):
        return False  # the quote's own clause goes on
    return _a_view(words[end:hi])


# After a saying verb first, words that are what is said or believed, never who says it.
_NO_SUBJECT = frozenset({"it", "this", "that", "so", "me", "us", "es", "das", "ça", "lo", "eso"})


def _a_view(clause: Sequence[str]) -> bool:
    """Whether ``clause`` is only another's view: "according to my boss", "or so my
    friends say", "my boss thinks", "says my mom"."""
    if not clause or len(clause) > _VIEW_CLAUSE or not AUTHORITIES.isdisjoint(clause):
        return False
    if not _ADDRESSEE.isdisjoint(clause):
        return False  # "don't you think", "as you said": a tag, or agreeing
    for opening in _ACCORDING_TO:
        if tuple(clause[: len(opening)]) == opening:
            rest = clause[len(opening) :]
            return 0 < len(rest) <= _SUBJECT_REACH and _SELF.isdisjoint(rest)
    if tuple(clause[:2]) == _OR_SO[0]:
        rest = clause[2:]
        return bool(rest) and (rest[0] not in _SELF or not _HEARD.isdisjoint(rest))
    if tuple(clause[:1]) == _OR_SO[1]:
        clause = clause[1:]
    if not _SELF.isdisjoint(clause) or len(clause) < 2:
        return False
    if clause[0] in SAYING or clause[0] in REPORTING:
        if clause[1] in _NO_SUBJECT:
            return False  # "believe it or not", "say so": what is said, not who says it
        return len(clause) - 1 <= _SUBJECT_REACH  # "says my mom"
    return len(clause) - 1 <= _SUBJECT_REACH and (clause[-1] in SAYING or clause[-1] in REPORTING)


def _japanese(said: Wording, start: int, end: int) -> bool:
    """ "…だと上司は思っている", "母は…と言っています": と, its verb, and who it is."""
    words = said.words
    at = end
    while at < len(words) and at - end < 2 and words[at] in _JA_SKIPPED:
        at += 1
    if at >= len(words) or words[at] not in _JA_QUOTING:
        return False
    stretch = words[at + 1 : at + 1 + _JA_REACH]
    verb = next((i for i, w in enumerate(stretch) if w in _JA_VERBS), None)
    if verb is None:
        return False
    who = stretch[:verb]
    if who and who[-1] in _JA_TOPIC:
        return "".join(who[:-1]) not in _JA_SELF  # "上司は思っている"
    if who:
        return False
    first = said.sentence_span(said.sentence_of(start))[0]
    topic = next((i for i in range(first, start) if words[i] in _JA_TOPIC), None)
    return topic is not None and topic > first and "".join(words[first:topic]) not in _JA_SELF


def _korean(said: Wording, start: int, end: int) -> bool:
    """ "상사는 내가 게으르다고 생각해요": a quoted clause, its verb and another subject."""
    words = said.words
    if not words[end - 1].endswith(_KO_QUOTED) or not words[end].startswith(_KO_VERBS):
        return False
    first = said.sentence_span(said.sentence_of(start))[0]
    return any(
        w.endswith(_KO_SUBJECT_ENDS) and w not in _KO_SELF and len(w) > 1
        for w in words[first:start]
    )


def _turkish(words: Sequence[str], end: int) -> bool:
    """ "Patronum tembel olduğumu düşünüyor": another's verb after "olduğumu"."""
    at = end
    if not words[end - 1].endswith(_TR_NOMINAL):
        if not words[at].endswith(_TR_NOMINAL):
            return False
        at += 1
    return at < len(words) and words[at] in _TR_VIEWS
