"""A statement the user takes back in the clause after it (for streams/domain/quotes.py).

"I work at Google, but I don't.", "I'm a pilot, just kidding", "Vivo en Madrid, pero no
es verdad", "Ich wohne in Berlin, aber das stimmt nicht", "我住在北京，但不是真的",
"Saya tinggal di Jakarta, tapi bohong": a clause that is nothing but a denial or a "just
kidding", right after the quote's clause, says the quote is not so. Only a whole clause
counts: "I work at Google, but I don't like it" and "I live in Berlin, just kidding about
the cat" deny something else, and "I live in Berlin, no?" asks.
"""

from __future__ import annotations

from streams.domain.wording import Wording, tokens, word_set

# Words that may open the denying clause: "but", "which", "lol".
_OPENERS = word_set(
    "but which and lol haha jaja mdr aber mais pero но 但 でも ama tapi لكن mas ma però"
    " though well ok okay"
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
        "brincadeira", "non è vero", "scherzo", "sto scherzando",
    )
)  # fmt: skip
# "no" alone denies only after a laugh ("lol no"): "I live in Berlin, no?" asks, and
# "..., and no, I don't smoke" answers.
_LONGEST = 8  # words of a denial with its openers
_LAUGHS = word_set("lol haha jaja mdr")
# "I'm not", "I don't" deny only what the user said of themself: "My wife is vegan, but
# I'm not" leaves the wife vegan.
_PERSONAL = word_set("i")


def taken_back(said: Wording, start: int, end: int) -> bool:
    """Whether the clause after the one ``said.words[start:end]`` ends (or the rest of
    that clause) is only a denial of it."""
    words, breaks = said.words, said.breaks
    own = not _PERSONAL.isdisjoint(words[max(0, start - 1) : start + 1])
    clause_end = min((b for b in breaks if b > end), default=len(words))
    if _a_denial(said, (end, clause_end), own=own):
        return True  # "I work at Google, but I don't", "I work at Google jk"
    if end in breaks or clause_end >= len(words):
        return False
    after = min((b for b in breaks if b > clause_end), default=len(words))
    return _a_denial(said, (clause_end, after), own=own)  # "I work at Google as a chef, jk"


def _a_denial(said: Wording, span: tuple[int, int], *, own: bool) -> bool:
    """Whether ``said.words`` at ``span`` are a denial, after "but", "which" or a laugh."""
    if span[1] - span[0] > _LONGEST:
        return False  # a longer clause says more than a denial
    clause = said.words[span[0] : span[1]]
    opened = 0
    while opened < len(clause) and clause[opened] in _OPENERS:
        opened += 1
    rest = tuple(clause[opened:])
    if rest not in _DENIALS or said.sentence_of(span[0]) in said.asked:
        return False
    if rest[0] in _PERSONAL and not own:
        return False
    return rest != ("no",) or not _LAUGHS.isdisjoint(clause[:opened])
