"""The quote check across languages: negators, conditions, questions without an "if"
word or a question word at the start, and what stays the user's statement."""

from __future__ import annotations

import pytest

from streams.domain.quotes import quote_found


@pytest.mark.parametrize(
    ("said", "quote"),
    [
        # Indonesian and Malay "tak", Vietnamese "chẳng" beside words of their language
        ("Saya tak suka kopi", "suka kopi"),
        ("Aku tak tinggal di Jakarta lagi", "tinggal di Jakarta lagi"),
        ("Tôi chẳng thích cà phê", "thích cà phê"),
        # Gulf and Levantine Arabic, "I am not"
        ("انا مو متزوج", "متزوج"),
        ("انا مو متزوج", "انا متزوج"),
        ("لست متزوجا", "متزوجا"),
        ("لستُ طبيبا", "طبيبا"),
        ("أنا لست طبيبا", "أنا طبيبا"),
        # Hindi written in Latin letters
        ("Main coffee nahi peeta hoon", "Main coffee peeta hoon"),
        ("Main Delhi mein nahin rehta", "Delhi mein rehta"),
        ("mujhe chai pasand nahi hai", "mujhe chai pasand hai"),
        ("mujhe chai pasand nahi hai", "mujhe chai pasand"),
        # Hebrew "I am not"
        ("אינני נשוי", "נשוי"),
        # Portuguese "o" is an article, not a clause-ending "or"
        ("Eu não tenho o meu carro aqui", "meu carro aqui"),
        # Japanese "not A but B": the ellipsis may not skip the negation
        ("東京ではなく大阪に住んでいます", "東京...住んでいます"),
        ("東京じゃなくて大阪に住んでいます", "東京...住んでいます"),
        ("東京ではなく大阪に住んでいます", "東京"),
    ],
)
def test_negated_in_more_languages(said: str, quote: str) -> None:
    assert not quote_found(quote, [said])


@pytest.mark.parametrize(
    ("said", "quote"),
    [
        # the same words where they are not negators
        ("Tak, mieszkam w Krakowie", "mieszkam w Krakowie"),  # Polish "yes"
        ("Ja tak mieszkam w Krakowie od lat", "mieszkam w Krakowie od lat"),
        ("I met Chang in Berlin and we live there now", "we live there now"),
        ("I bought a yoga mat and I practise at home", "I practise at home"),
        ("I work at Mat Labs as an engineer", "I work at Mat Labs as an engineer"),
        ("Eu moro em Lisboa e o meu irmão mora no Porto", "o meu irmão mora no Porto"),
        ("Não, o meu carro é um Fiat", "o meu carro é um Fiat"),
        ("大阪に住んでいます", "大阪...住んでいます"),
        ("Saya tinggal di Jakarta", "Saya tinggal di Jakarta"),
        ("Tôi sống ở Hà Nội", "Tôi sống ở Hà Nội"),
        ("Main Delhi mein rehta hoon", "Main Delhi mein rehta hoon"),
        ("أعيش في الرياض مع عائلتي", "أعيش في الرياض"),
    ],
)
def test_the_same_words_where_they_do_not_negate(said: str, quote: str) -> None:
    assert quote_found(quote, [said])
