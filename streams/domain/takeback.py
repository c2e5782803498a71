"""A statement the user takes back in the clause after it (for streams/domain/quotes.py).

"I work at Google, but I don't.", "I'm a pilot, just kidding", "Vivo en Madrid, pero no
es verdad", "Ich wohne in Berlin, aber das stimmt nicht", "我住在北京，但不是真的",
"Saya tinggal di Jakarta, tapi bohong": a clause that is nothing but a denial or a "just
kidding", right after the quote's clause, says the quote is not so. Only a whole clause
counts, up to two short clauses on ("I work at Google, said nobody ever", "I'm a
millionaire... not!", "I own a Ferrari, yeah right", "I live in Paris — in my dreams"):
"I work at Google, but I don't like it" and "I live in Berlin, just kidding about the
cat" deny something else, and "I live in Berlin, no?" asks.
"""

from __future__ import annotations

from streams.domain.corrections import a_line_told, believed_before, corrected_after
from streams.domain.wording import Wording, tokens, word_set

# Words that may open the denying clause: "but", "which", "lol".
_OPENERS = word_set(
    "but which and lol haha jaja mdr aber mais pero но 但 でも ama tapi لكن mas ma però"
    " though well ok okay ja ha ah"
)
_DENIALS = frozenset(
    tuple(tokens(denial))
    for denial in (
        "i don't", "i do not", "i'm not", "i didn't", "i haven't", "i am not", "not really",
        "not true", "isn't true", "is not true", "that's not true", "that is not true",
        "that's a lie", "just kidding", "kidding", "i'm kidding", "i'm just kidding",
        "jk", "j/k", "just joking", "joking", "i'm joking", "no", "nope",
        "no es verdad", "no es cierto", "es broma", "mentira", "ce n'est pas vrai",
        "c'est pas vrai", "pas vrai", "je plaisante", "das stimmt nicht",
        "stimmt nicht", "nur spaß", "nur ein scherz", "это неправда", "неправда",
        "шучу", "я шучу", "不是真的", "开玩笑的", "開玩笑的", "开玩笑", "開玩笑", "違います",
        "嘘です", "冗談です", "冗談", "doğru değil", "şaka", "şaka yaptım", "bohong",
        "bercanda", "cuma bercanda", "هذا غير صحيح", "غير صحيح", "أمزح", "não é verdade",
        "brincadeira", "non è vero", "scherzo", "sto scherzando", "said nobody ever",
        "said no one ever", "said nobody", "said no one", "not", "yeah right", "ya right",
        "as if", "i wish", "in my dreams", "in your dreams", "only in my dreams",
        "dans mes rêves", "en mis sueños", "in meinen träumen", "ja klar", "做梦吧",
        "在梦里", "夢の中で", "that was a lie", "it was a lie", "that was a joke",
        "it was a joke", "which was a lie", "that wasn't true", "that was not true",
        "era mentira", "era broma", "c'était un mensonge", "c'était une blague",
        "das war gelogen", "das war ein witz", "это была ложь", "это была шутка",
        "to było kłamstwo", "to był żart", "era una bugia", "era uno scherzo",
        "era uma mentira", "era brincadeira", "dat was gelogen", "dat was een grap",
        "nothing's decided", "nothing is decided", "nothing's decided yet", "haven't decided",
        "i haven't decided", "not decided yet", "nothing's final", "nothing is final",
        "nothing's set in stone", "we haven't decided", "no está decidido",
        "rien n'est décidé", "noch nicht entschieden", "ещё не решил", "ещё не решила",
        "we've talked about it", "we've talked about it a bit", "just an idea",
        "it's just an idea", "just a thought", "still thinking about it", "still deciding",
        "solo es una idea", "c'est juste une idée", "nur eine idee", "noch unentschlossen",
        "je rigole", "je blague", "je déconne", "grapje", "geintje", "żartuję", "żart",
        "đùa thôi", "đùa đấy", "giỡn thôi", "scherz", "spaß", "bromeo", "scherzavo",
        "ojalá", "j'aimerais bien", "schön wär's", "was het maar waar", "magari",
        "quem me dera", "chciałbym", "chciałabym", "если бы", "keşke", "我倒希望是",
        "だったらいいのに", "andai aja", "ước gì", "يا ليت", "s",
        "i used to be", "well i used to be", "at least i used to be", "at least i was",
        "du moins je l'étais", "bueno lo era", "lo era", "war ich mal", "zumindest war ich es",
        "było kiedyś", "была когда-то",
    )
)  # fmt: skip
# A belief the user no longer holds, whatever follows it ("or so I thought until I tried").
_PAST_BELIEFS = frozenset(
    tuple(tokens(belief))
    for belief in (
        "or so i thought", "or so i believed", "or so i hoped", "or so i assumed",
        "or so i used to think", "or at least i thought so", "or so we thought",
        "at least i thought so", "or at least that's what i thought",
        "or that's what i thought", "ou du moins je le croyais",
        "du moins c'est ce que je pensais", "o eso creía", "o eso pensaba",
        "o al menos eso creía", "dachte ich", "so dachte ich", "dachte ich zumindest",
        "zumindest dachte ich das", "o almeno così pensavo", "ou pelo menos achava que sim",
        "or so i'd thought", "по крайней мере мне так казалось", "so i thought",
        "so i believed", "that's what i thought", "at least that's what i thought",
        "c'est ce que je croyais", "c'est ce que je pensais", "enfin c'est ce que je croyais",
        "eso creía yo", "al menos eso pensaba", "o almeno così credevo",
        "pelo menos era o que eu achava", "zumindest dachte ich das", "так я думал",
        "так мне казалось", "tak myślałem", "tak myślałam", "dat dacht ik", "or i was",
        "o lo era", "bzw war ich", "ou je l'étais", "or at least i was",
    )
)  # fmt: skip
_LONGEST_BELIEF = max(len(b) for b in _PAST_BELIEFS)
_BELIEF_STARTS = frozenset(b[0] for b in _PAST_BELIEFS)
_UNTIL = word_set("until till before but hasta jusqu bis")
# A bare "no" followed by "not ..." corrects something else: "I live in Lyon, nope, not
# Paris" leaves Lyon.
_BARE = frozenset({("no",), ("nope",)})
_MAYBES = frozenset(
    tuple(tokens(m))
    for m in (
        "maybe", "perhaps", "possibly", "maybe not", "perhaps not", "probably not", "quizás",
        "tal vez", "peut-être", "vielleicht", "talvez", "forse", "mungkin", "có lẽ", "может быть",
    )
)  # fmt: skip
_NOT_CORRECTING = word_set("anymore any at me really true since yet now ever longer so")
# "no" alone denies only after a laugh ("lol no"): "I live in Berlin, no?" asks, and
# "..., and no, I don't smoke" answers.
_CLAUSES_ON = 3  # the rest of the quote's clause and the two after it
_LONGEST = 8  # words of a denial with its openers
_LAUGHS = word_set("lol haha jaja mdr")
# "I'm not", "I don't" deny only what the user said of themself: "My wife is vegan, but
# I'm not" leaves the wife vegan.
_PERSONAL = word_set("i")


def taken_back(said: Wording, start: int, end: int) -> bool:
    """Whether the rest of the clause ``said.words[start:end]`` ends, or one of the two
    clauses after it (each short), is only a denial of it."""
    words, breaks = said.words, said.breaks
    if corrected_after(said, start, end) or believed_before(said, start):
        return True  # "I live in Chicago. Well, actually I just moved", "I thought I ..."
    if a_line_told(said, end):
        return True  # "'I'm fine' is what I tell everyone"
    own = not _PERSONAL.isdisjoint(words[max(0, start - 1) : start + 1])
    lo = end
    for _ in range(_CLAUSES_ON):
        if lo >= len(words):
            return False
        hi = min((b for b in breaks if b > lo), default=len(words))
        if _a_past_belief(said, lo, hi) or _only_a_maybe(said, lo, hi):
            return True  # "I love hiking, or so I thought", "I'll move to Denver, maybe."
        if _a_denial(said, (lo, hi), own=own):
            return not _a_correction(said, (lo, hi), words[start:end])  # "nope, not Paris"
        if hi - lo > _LONGEST or said.sentence_of(hi) != said.sentence_of(end - 1):
            return False  # "I live in Paris, in a small flat, and I love it"
        lo = hi  # "I work at Google as a chef, jk", "I work at Google, in Zurich, yeah right"
    return False


def _a_denial(said: Wording, span: tuple[int, int], *, own: bool) -> bool:
    """Whether ``said.words`` at ``span`` are a denial, after "but", "which" or a laugh."""
    if span[1] - span[0] > _LONGEST:
        return False  # a longer clause says more than a denial
    clause = said.words[span[0] : span[1]]
    opened = 0
    while opened < len(clause) and clause[opened] in _OPENERS:
        opened += 1
    rest = tuple(clause[opened:])
    half = len(rest) // 2
    if half and len(rest) % 2 == 0 and rest[:half] == rest[half:]:
        rest = rest[:half]  # "jk jk", "şaka şaka"
    if rest not in _DENIALS or said.sentence_of(span[0]) in said.asked:
        return False
    if rest[0] in _PERSONAL and not own:
        return False
    if rest == ("not",) and "or" in said.words[max(0, span[0] - 1) : span[0] + opened]:
        return False  # "believe it or not", "like it or not": the "or" split an idiom
    return rest != ("no",) or not _LAUGHS.isdisjoint(clause[:opened])


def _a_past_belief(said: Wording, lo: int, hi: int) -> bool:
    """Whether ``said.words[lo:hi]`` is "or so I thought" and the like, ending its sentence
    or followed by its "until" ("so I thought, why not ask" and "dachte ich, frag ich
    mal" go on to say something else)."""
    words = said.words
    if words[lo] not in _BELIEF_STARTS:
        return False  # the common case
    for n in range(min(hi - lo, _LONGEST_BELIEF), 1, -1):  # the longest first
        if tuple(words[lo : lo + n]) in _PAST_BELIEFS:
            if lo + n < hi:
                return words[lo + n] in _UNTIL
            ends = hi >= len(words) or said.sentence_of(hi) != said.sentence_of(lo)
            return ends or words[hi] in _UNTIL
    return False


def _only_a_maybe(said: Wording, lo: int, hi: int) -> bool:
    """Whether ``said.words[lo:hi]`` is only "maybe" (or "maybe not"), ending its sentence
    ("I'll move to Denver, maybe.", not "..., maybe you know it")."""
    clause = tuple(said.words[lo:hi])
    ends = hi >= len(said.words) or said.sentence_of(hi) != said.sentence_of(lo)
    return ends and clause in _MAYBES


def _a_correction(said: Wording, span: tuple[int, int], quoted: list[str]) -> bool:
    """Whether the denial at ``said.words[lo:hi]`` is a bare "no" whose next clause, in
    its sentence, is "not" and what it corrects ("nope, not Paris"), not a denial nor the
    quote's own words ("I live in Paris, nope, not Paris, Lyon" takes Paris back)."""
    words, (lo, hi) = said.words, span
    if tuple(w for w in words[lo:hi] if w not in _OPENERS) not in _BARE or hi >= len(words):
        return False
    nxt = min((b for b in said.breaks if b > hi), default=len(words))
    rest = tuple(words[hi:nxt])
    same = said.sentence_of(hi) == said.sentence_of(lo)
    if not same or len(rest) < 2 or rest[0] != "not" or rest in _DENIALS:
        return False
    return rest[1] not in _NOT_CORRECTING and rest[1] not in quoted
