"""The one name normaliser: what the guards, resolution and the prompt context agree on.

An entity name (and the subject and object of a claim) is NFKC-folded, case-folded in full
("Straße" and "STRASSE", "İzmir" and "IZMIR" are one name), rid of invisible format
characters (zero-width spaces, direction marks, byte-order marks), whitespace-collapsed
and stripped of edge punctuation in any script. Turkish dotless ı is i ("KADIKÖY" and
"Kadıköy"), Greek letters lose their accents, which Greek capitals are written without
("ΑΘΗΝΑ" and "Αθήνα"; Latin accents keep their meaning: "José" is not "Jose"), and every
apostrophe look-alike is ' ("O’Brien" and "O'Brien") ("Acme Corp." and
"acme corp" are one name, so are "「東京」" and "東京"; "St. Louis", "C++" and "c#" keep
what makes them names), and every way a model says "the user" becomes ``user``; "my
sister" and "the user's sister" become "user's sister". Literal values keep their edge
punctuation. Nothing unstorable survives: NUL and lone surrogates (which Postgres text
and UTF-8 cannot hold) and other control characters are removed first.
"""

from __future__ import annotations

import re
import unicodedata

from streams.events import USER_ENTITY

# How a model may say "the user" when it means the user.
USER_ALIASES = frozenset({"user", "the user", "i", "me", "myself", "the_user"})
# Edge characters that are part of a name, though Unicode calls them punctuation.
_KEPT_AT_EDGES = frozenset("#&*@%/\\+")
_POSSESSIVE = re.compile(r"^(?:my|(?:the )?user['’]s|(?:the )?users['’])\s+(?=\S)")
USER_POSSESSIVE = f"{USER_ENTITY}'s "
_UNSTORABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def strip_unstorable(text: str) -> str:
    """``text`` without what Postgres or UTF-8 cannot hold (NUL, lone surrogates) and
    other control characters; tabs and newlines stay."""
    return _UNSTORABLE.sub("", text)


# Zero-width joiner and non-joiner shape emoji and some scripts (Persian, Indic): kept.
_KEPT_FORMAT = frozenset("\u200c\u200d")
# What case folding leaves of the Turkish capital dotted I: an i and a combining dot.
_DOTTED_I = "i\u0307"
# Turkish dotless ı, which case folding keeps: "KADIKÖY" is "Kadıköy".
_DOTLESS_I = "\u0131"
# How a model or a keyboard writes an apostrophe: ’ ‘ ʼ ′ ´ and the fullwidth one. Mapped
# before NFKC, which would split ´ into a space and a combining accent.
_APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u02bc\u2032\u00b4\uff07", "'"))
# Accents Greek capitals are written without: varia, tonos/oxia, dialytika, psili, dasia,
# perispomeni, koronis, dialytika tonos (the precomposed letters decompose into these).
_GREEK_ACCENTS = frozenset("\u0300\u0301\u0308\u0313\u0314\u0342\u0343\u0344")


def _is_greek(ch: str) -> bool:
    return "\u0370" <= ch <= "\u03ff" or "\u1f00" <= ch <= "\u1fff"


def _without_greek_accents(text: str) -> str:
    """``text`` with the accents of its Greek letters dropped ("αθήνα" -> "αθηνα"), every
    other character as it was: uppercase Greek carries no tonos, so "ΑΘΗΝΑ" is "Αθήνα"."""
    if not any(_is_greek(ch) for ch in text):
        return text
    out: list[str] = []
    after_greek = False  # the last base character was a Greek letter
    for ch in text:
        if after_greek and ch in _GREEK_ACCENTS:
            continue  # a combining accent written apart from its letter
        if unicodedata.combining(ch):
            out.append(ch)
            continue
        after_greek = _is_greek(ch)
        if after_greek:
            ch = "".join(c for c in unicodedata.normalize("NFD", ch) if c not in _GREEK_ACCENTS)
        out.append(ch)
    return "".join(out)


def fold(text: str) -> str:
    """NFKC, case-folded, invisible characters dropped, whitespace collapsed, ı as i, Greek
    accents dropped, apostrophes as ': how any stored text is compared."""
    text = strip_unstorable(text).translate(_APOSTROPHES)
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return " ".join(text.lower().split())
    visible = "".join(ch for ch in text if ch in _KEPT_FORMAT or unicodedata.category(ch) != "Cf")
    folded = visible.casefold().replace(_DOTTED_I, "i").replace(_DOTLESS_I, "i")
    return " ".join(_without_greek_accents(folded).split())


_EDGE_CATEGORIES = frozenset({"Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Zs", "Zl", "Zp", "Cf"})


def _is_edge_punctuation(ch: str) -> bool:
    return unicodedata.category(ch) in _EDGE_CATEGORIES and ch not in _KEPT_AT_EDGES


def _strip_edges(text: str) -> str:
    start, end = 0, len(text)
    while start < end and _is_edge_punctuation(text[start]):
        start += 1
    while end > start and _is_edge_punctuation(text[end - 1]):
        end -= 1
    return text[start:end]


def canonical_name(name: str) -> str:
    """The stored form of an entity name."""
    folded = fold(name)
    stripped = _strip_edges(folded) or folded
    if stripped in USER_ALIASES:
        return USER_ENTITY
    return _POSSESSIVE.sub(USER_POSSESSIVE, stripped, count=1)


def is_owned_by_user(name: str) -> bool:
    """A possessive name ("user's sister"): the user's own instance by its very name."""
    return name.startswith(USER_POSSESSIVE) and len(name) > len(USER_POSSESSIVE)


def canonical_value(value: str) -> str:
    """The stored form of a literal value: folded, edge punctuation kept."""
    return fold(value)
