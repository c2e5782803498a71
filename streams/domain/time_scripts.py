"""Time clauses before a future in Chinese and Arabic (for streams/domain/time_clauses.py).

"等我找到工作，我就买车" ("once I've found a job, I'll buy a car"): 等 and a subject open
the sentence, 就 (or 要, 会) in the clause after says what follows the event.
"عندما أحصل على الوظيفة سأشتري سيارة": عندما ("when") before a verb not in the past,
then a future with سـ or سوف opening the clause after.
"毕业以后我要去德国读研" ("after graduating I'll do a master's in Germany"): 以后 before
the quote, 要 or 会 in it. What stands: "等一下，我就来" (等 "wait" before no subject), a
past "等了很久，我就放弃了",
"عندما وصلت إلى دبي ساعدني أخي" (a past time clause), a habit "عندما أكون متعبا أشرب القهوة".
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.wording import word_set

_DENG, _LE = "等", "了"
_THEN_WILL = word_set("就 要 会 會")  # "我就买车", "我要去云南住"
_CHINESE_SUBJECTS = word_set("我 你 他 她 咱")
_AFTER = ("以后", "之后", "以後", "之後")  # "after" an event
_AFTER_LAST = frozenset(("后", "後"))
_WILL = word_set("要 会 會")  # not 就, a habit too: "吃完饭以后我就睡觉"
_ARABIC_WHEN = word_set("عندما حينما بعدما")
_ARABIC_WAS = word_set("كان كانت كنت كنا")
_SAWFA = "سوف"
_AND = word_set("و ف")
_ARABIC_I = word_set("انا نحن")
_FUTURE_PREFIXES = ("سا", "سن")  # سأ, سن folded: "I will", "we will"
_NOT_FUTURE_ENDINGS = ("ت", "ه", "ة", "نا", "وا")  # سافرت (past), ساعه (an hour)
_SHORTEST_FUTURE = 5


def arabic_or_chinese(words: Sequence[str], span: tuple[int, int, int], breaks: frozenset[int]
                      ) -> bool:  # fmt: skip
    """Whether the quote at ``span[1]:span[2]`` of the sentence from ``span[0]`` is a
    future after a Chinese 等 clause or an Arabic عندما clause."""
    first, start, _ = span
    if start <= first + 1:
        return False
    if _after_then_will(words, span):
        return True
    if words[first] == _DENG:
        return _chinese(words, span, breaks)
    if words[first] in _ARABIC_WHEN:
        return _arabic(words, span)
    return False


def _after_then_will(words: Sequence[str], span: tuple[int, int, int]) -> bool:
    """ "毕业以后我要去德国读研": 以后 (after) before the quote, and 要 or 会 in it, not 了."""
    first, start, end = span
    if _AFTER_LAST.isdisjoint(words[first:start]):
        return False  # the common case
    before = "".join(words[first:start])
    if not any(after in before for after in _AFTER):
        return False
    quote = words[start:end]
    return not _WILL.isdisjoint(quote) and _LE not in quote


def _chinese(words: Sequence[str], span: tuple[int, int, int], breaks: frozenset[int]) -> bool:
    first, start, end = span
    if words[first + 1] not in _CHINESE_SUBJECTS:
        return False
    main = max((b for b in breaks if first + 2 < b <= start), default=start)
    clause = words[main:end]
    if main == start:  # no comma: "等我退休了我要搬到海边" quoted from after its 我要
        return not _THEN_WILL.isdisjoint(words[max(first + 2, start - 2) : end]) and (
            _LE not in clause
        )
    return not _THEN_WILL.isdisjoint(clause) and _LE not in clause


def _arabic(words: Sequence[str], span: tuple[int, int, int]) -> bool:
    first, start, end = span
    verb = words[first + 1]
    if verb in _AND and first + 2 < start:  # "وصلت" read as "و" + "صلت"
        verb = words[first + 2]
    if verb in _ARABIC_WAS or verb.endswith("ت"):
        return False  # "عندما وصلت": a past
    if words[start] in _ARABIC_I and start + 1 < end:  # "أنا سأشتري"
        start += 1
    if words[start - 1] == _SAWFA:
        return True  # "سوف أسافر" quoted without its سوف
    return _arabic_future(words[start])  # opening the main clause, not "ساندويتش" after


def _arabic_future(word: str) -> bool:
    if word == _SAWFA:
        return True
    return (
        len(word) >= _SHORTEST_FUTURE
        and word.startswith(_FUTURE_PREFIXES)
        and not word.endswith(_NOT_FUTURE_ENDINGS)
    )
