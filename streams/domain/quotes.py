"""The quote check: is a claim's sourceQuote in the user's own words of the window?

Run in code after the guards, whatever the model said. Both sides are folded to words the
same way (streams/domain/wording.py: case, accents, punctuation, invisible characters,
digit groups, digits of any script and English contractions folded), then the quote is
looked for as whole words ("car" is not in "carpet"); failing that, as a close match: at
least ``CLOSE_MATCH`` of its words shared in order with one user message, where what
differs is only a typo mended or a little word added, and the few words it leaves out
change nothing (streams/domain/mending.py). Another word of the same shape (Bern for
Berlin, Juli for Juni), a dropped or added negation, a quote the user negated in its
clause before or after it (streams/domain/negation.py), asked or supposed
(streams/domain/mood.py), or a lone word picked out of a longer sentence is not the
user's claim (streams/domain/said.py). A quote
with an ellipsis ("sold my civic ... bought a tesla") is checked part by part: every
part, in order, a few words apart within one sentence of one message. A quote too short
to say anything (one letter) supports nothing. A claim whose quote fails (or that has
none) is still stored, marked untrusted with the reason: it never ends another fact.
Assistant, system and tool messages do not count: a fact only the assistant asserted is
not the user's. Close matching has a budget per episode, so a hostile repetitive text
costs its own claims their trust, not the stage its time.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from difflib import SequenceMatcher
from itertools import pairwise

from streams.domain.guards import Claim
from streams.domain.mending import FILLERS, little, may_elide, may_leave_out, mended, typos
from streams.domain.said import Rules, Said
from streams.domain.support import unmentioned
from streams.domain.wording import is_unspaced, normalise, tokens
from streams.events import Message, Role

__all__ = ["CLOSE_MATCH", "check_quotes", "normalise", "quote_found", "user_texts"]

CLOSE_MATCH = 0.85
_ELLIPSIS = re.compile(r"\.{3,}|…")
_MAX_GAP = 12  # words the user may have written between two parts of an elided quote
# What close matching may cost one episode's claims (quote words x message words
# aligned): a hostile repetitive text then makes its own claims untrusted, not the
# stage slow.
_CLOSE_BUDGET = 300_000
_MIN_QUOTE_CHARS = 3  # letters and digits; in scripts without spaces, two
_MIN_UNSPACED_QUOTE_CHARS = 2
# A repetitive message stays cheap: occurrences of a quote examined.
_MAX_HITS = 64
_STATED = Rules()
_NOT_STATED = (
    "in the user's messages but not as their statement:"
    " asked, supposed, wished, another's view or a lone word"
)
_WRITTEN = Rules(moods=False)  # the words are there, whatever their mood


def _whole_words_at(part: list[str], said: Said, lo: int, rules: Rules) -> tuple[int, int] | None:
    """Where ``part`` is (start, end) as consecutive whole words of the message from word
    ``lo`` on, said there (not negated, asked or supposed); None if nowhere."""
    if lo >= len(said.words):
        return None
    needle = f" {' '.join(part)} "
    at = said.padded.find(needle, said.offsets[lo])
    for _ in range(_MAX_HITS):
        if at < 0:
            return None
        start = bisect_left(said.offsets, at)
        if not said.unsaid(start, start + len(part), rules):
            return start, start + len(part)
        at = said.padded.find(needle, at + 1)
    return None


def _anchor(part: list[str], said: Said, lo: int) -> int | None:
    """The offset in the message at which most of ``part``'s word pairs line up."""
    votes: Counter[int] = Counter()
    spots = said.spots()
    for b, pair in enumerate(pairwise(part)):
        for a in spots.get(pair, ()):
            if a >= lo:
                votes[a - b] += 1
    return max(votes, key=lambda at: (votes[at], -at)) if votes else None


def _close_at(
    part: list[str], said: Said, lo: int, budget: list[int], rules: Rules
) -> tuple[int, int] | None:
    """Where a close match of ``part`` is (start, end) in the message from word ``lo`` on
    (see the module doc); None if there is none or ``budget`` is spent."""
    if len(part) < 2 or budget[0] <= 0:
        return None
    slack = len(part) // 4 + 2
    offset = lo
    if len(said.words) - lo > len(part) + 2 * slack:
        anchor = _anchor(part, said, lo)
        if anchor is None:
            return None
        offset = max(lo, anchor - slack)
    window = said.words[offset : offset + len(part) + 2 * slack]
    budget[0] -= len(part) * len(window)
    ops = SequenceMatcher(None, part, window, autojunk=False).get_opcodes()
    # Words the user wrote with a typo count as theirs: a typo is no other word.
    kept = [
        op for op in ops if op[0] == "equal" or typos(part[op[1] : op[2]], window[op[3] : op[4]])
    ]
    if not _shared_enough(part, ops, kept):
        return None
    first, last = kept[0][3], kept[-1][4]
    left_out: list[str] = []
    for op in ops:
        if op in kept:
            continue
        _, i1, i2, j1, j2 = op
        inside = first <= j1 and j2 <= last
        if inside:
            left_out += [word for word in window[j1:j2] if word not in FILLERS]
        theirs = window[j1:j2] if inside else _nearest(window, j1, j2, i2 - i1, first)
        if not mended(part[i1:i2], theirs, replacing=bool(theirs)):
            return None
    if len(left_out) > max(1, len(part) // 4) or not may_leave_out(left_out):
        return None
    if said.unsaid(offset + first, offset + last, rules):
        return None
    return offset + first, offset + last


def _shared_enough(part: list[str], ops: Sequence[_Op], kept: Sequence[_Op]) -> bool:
    """Whether the quote shares a word with the message, and CLOSE_MATCH of its words
    (the few little words it adds, "I" or "ich" before a verb, not counted)."""
    if all(op[0] != "equal" for op in kept):
        return False
    shared = sum(i2 - i1 for _, i1, i2, _, _ in kept)
    added = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "delete" and little(part[i1:i2]))
    return shared >= CLOSE_MATCH * (len(part) - min(added, max(1, len(part) // 4)))


_Op = tuple[str, int, int, int, int]


def _nearest(window: list[str], j1: int, j2: int, count: int, first: int) -> list[str]:
    """The ``count`` message words next to a quote's words added before or after the
    stretch it matches: what they would stand for."""
    return window[max(j1, j2 - count) : j2] if j2 <= first else window[j1 : j1 + count]


def _too_short(parts: Sequence[list[str]]) -> bool:
    letters = sum(len(word) for part in parts for word in part)
    if letters >= _MIN_QUOTE_CHARS:  # long enough in any script
        return False
    unspaced = any(is_unspaced(word) for part in parts for word in part)
    return letters < (_MIN_UNSPACED_QUOTE_CHARS if unspaced else _MIN_QUOTE_CHARS)


def _quote_parts(quote: str) -> list[list[str]]:
    return [p for p in (tokens(p) for p in _ELLIPSIS.split(quote)) if p]


def quote_found(quote: str, texts: Sequence[str]) -> bool:
    """Whether every part of ``quote`` is (nearly) in one of ``texts``, in order."""
    parts = _quote_parts(quote)
    said = [Said(text) for text in texts]
    return _found(parts, said, [_CLOSE_BUDGET], _stated(parts))


def _stated(parts: Sequence[list[str]]) -> Rules:
    lone = len(parts) == 1 and len(parts[0]) == 1 and not is_unspaced(parts[0][0])
    return replace(_STATED, lone=lone)


def _found(
    parts: Sequence[list[str]], said: Sequence[Said], budget: list[int], rules: Rules
) -> bool:
    if not parts or _too_short(parts):
        return False
    # Word for word in any message first: close matching costs far more, and a quote is
    # most often copied exactly, from whichever message.
    if any(_in_order(parts, message, None, rules) for message in said):
        return True
    return any(_in_order(parts, message, budget, rules) for message in said)


def _in_order(
    parts: Sequence[list[str]], said: Said, budget: list[int] | None, rules: Rules
) -> bool:
    """Every part in the message, each after the one before, at most _MAX_GAP words from
    it and in the same sentence (an ellipsis leaves out a few words, not the end of one
    statement and the start of another)."""
    lo = 0
    for i, part in enumerate(parts):
        at = _whole_words_at(part, said, lo, rules)
        if at is None and budget is not None:
            at = _close_at(part, said, lo, budget, rules)
        if at is None:
            return False
        if i > 0 and not _elided(said, lo, at[0]):
            return False
        lo = at[1]
    return True


def _elided(said: Said, lo: int, hi: int) -> bool:
    """Whether the words from ``lo`` to ``hi`` may stand for an ellipsis: a few, in one
    sentence, none that negates or makes the statement past, unsure or almost."""
    if hi - lo > _MAX_GAP or said.sentence_of(hi) != said.sentence_of(lo - 1):
        return False
    return may_elide(said.words[lo:hi])


def user_texts(messages: Sequence[Message]) -> list[str]:
    """The user's own messages of the window, for :func:`quote_found`."""
    return [m.content for m in messages if m.role is Role.USER]


def check_quotes(claims: Sequence[Claim], messages: Sequence[Message]) -> list[Claim]:
    """Each claim, marked untrusted when its quote is not in the user's messages."""
    said = [Said(text) for text in user_texts(messages)]
    budget = [_CLOSE_BUDGET]
    out = []
    for claim in claims:
        reason = _quote_problem(claim.quote, said, budget) or _unsupported(claim)
        if reason is not None:
            why = reason if claim.untrusted is None else f"{claim.untrusted}; {reason}"
            claim = replace(claim, untrusted=why[:300])
        out.append(claim)
    return out


def _unsupported(claim: Claim) -> str | None:
    """Why the quote, the user's own statement, is no proof of the claim, if it is not:
    it mentions nothing of the claim's object (streams/domain/support.py)."""
    if not unmentioned(claim.object, claim.quote):
        return None
    return f"quote {_shown(claim.quote)!r} does not mention {_shown(claim.object, 80)!r}"


def _shown(text: str, limit: int = 120) -> str:
    """``text`` for a reason, cut to ``limit`` characters."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _quote_problem(quote: str, said: Sequence[Said], budget: list[int]) -> str | None:
    if not quote.strip():
        return "no source quote given"
    shown = _shown(quote)
    parts = _quote_parts(quote)
    if not parts or _too_short(parts):
        return f"quote {shown!r} is too short to show the claim"
    if _found(parts, said, budget, _stated(parts)):
        return None
    if _found(parts, said, budget, _WRITTEN):
        return f"quote {shown!r} is {_NOT_STATED}"
    return f"quote {shown!r} is not in the user's messages"
