"""What reaches a quote from outside its clause: a frame of role play in an earlier
sentence, another's saying in Chinese and Japanese, another's view told after the quote,
and a denial a clause or two on."""

from __future__ import annotations

import time

import pytest

from streams.domain.quotes import quote_found


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        # A frame set in an earlier sentence covers the rest of the message.
        ("Let's roleplay. I am the king of France.", "I am the king of France"),
        ("Let's play a game! You're a barista and I'm a millionaire.", "I'm a millionaire"),
        ("Story time: I live on Mars and I own three moons.", "I live on Mars"),
        ("Story time. I live on Mars and I own three moons.", "I own three moons"),
        ("Hypothetically speaking. I quit my job.", "I quit my job"),
        ("Imaginons un jeu. Je suis le roi.", "Je suis le roi"),
        ("假设一下。我是亿万富翁。", "我是亿万富翁"),
        (
            "Let's roleplay. I am the king. You are my knight. I live in a castle.",
            "I live in a castle",
        ),
        # Another's saying in Chinese and Japanese.
        ("我妈妈说我乳糖不耐受", "我乳糖不耐受"),
        ("我妈妈说我乳糖不耐受", "乳糖不耐受"),
        ("老板说我很懒", "我很懒"),
        ("母は私が乳糖不耐症だと言っています", "私が乳糖不耐症"),
        ("友達は私が東京に住んでいると言ってる", "東京に住んでいる"),
        # Another's view told after the quote.
        ("I'm lazy, according to my boss", "I'm lazy"),
        ("I'm shy, or so my friends say", "I'm shy"),
        ("I'm lazy, my boss thinks.", "I'm lazy"),
        ("I'm lazy, says my mom.", "I'm lazy"),
        ("Je suis paresseux, selon mon patron.", "Je suis paresseux"),
        ("Soy perezoso, según mi jefe.", "Soy perezoso"),
        ("私は怠け者だと上司は思っている", "私は怠け者"),
        ("私は怠け者だと上司は思っている", "怠け者"),
        ("Patronum tembel olduğumu düşünüyor", "tembel olduğumu"),
        ("상사는 내가 게으르다고 생각해요", "내가 게으르다고"),
        # A denial a clause or two on.
        ("I work at Google, said nobody ever", "I work at Google"),
        ("I'm a millionaire... not!", "I'm a millionaire"),
        ("I own a Ferrari, yeah right", "I own a Ferrari"),
        ("I live in Paris — in my dreams", "I live in Paris"),
        ("I work at Google, in Zurich, yeah right", "I work at Google"),
        ("他们都说我很高", "我很高"),
        ("Ich bin faul, sagt mein Chef", "Ich bin faul"),
        ("Annem tembel olduğumu diyor", "tembel olduğumu"),
    ],
)
def test_not_the_users_statement(text: str, quote: str) -> None:
    assert not quote_found(quote, [text])


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("Okay, back to reality: I work at Acme", "I work at Acme"),
        ("Let's roleplay. I am the king. Okay, back to reality: I work at Acme.", "I work at Acme"),
        ("Let's roleplay. I am the king. Anyway, for real, I live in Oslo.", "I live in Oslo"),
        ("I love roleplaying games. I live in Berlin.", "I live in Berlin"),
        ("Let's play tennis tomorrow. I live in Berlin.", "I live in Berlin"),
        ("Let's play a game of chess. I live in Berlin.", "I live in Berlin"),
        ("I live in Berlin. Let's roleplay.", "I live in Berlin"),
        ("Hypothetically I could move, but I live in Rome. I work at Acme.", "I work at Acme"),
        ("我说我要辞职", "我要辞职"),
        ("医生说我有糖尿病", "我有糖尿病"),
        ("我妈妈跟我说我出生在巴黎", "我出生在巴黎"),
        ("我是说我住在北京", "我住在北京"),
        ("我住在北京，我妈妈说的没错", "我住在北京"),
        ("My doctor says I'm diabetic", "I'm diabetic"),
        ("I'm diabetic, my doctor says.", "I'm diabetic"),
        ("I'm a nurse, my mom says it suits me", "I'm a nurse"),
        ("I'm a teacher, my wife says hi", "I'm a teacher"),
        ("I'm lazy, I think.", "I'm lazy"),
        ("I'm vegan, and so is my wife", "I'm vegan"),
        ("I work at Google, so my commute is long", "I work at Google"),
        ("I ran 5 km or so, then I swam", "I ran 5 km"),
        ("I have two cats, or so.", "I have two cats"),
        ("Je suis le roi du barbecue, selon moi", "Je suis le roi du barbecue"),
        ("Ich wohne in Berlin, laut und lebendig ist es hier", "Ich wohne in Berlin"),
        ("私は東京に住んでいると思います", "私は東京に住んでいる"),
        ("私は東京に住んでいると言いました", "東京に住んでいる"),
        ("東京に住んでいると思います", "東京に住んでいる"),
        ("나는 내가 게으르다고 생각해요", "내가 게으르다고"),
        ("Tembel olduğumu düşünüyorum", "tembel olduğumu"),
        ("I live in Paris, in a small flat, and I love it", "I live in Paris"),
        ("I live in Berlin, not Munich", "I live in Berlin"),
        ("I live in Berlin. I work at Google, jk", "I live in Berlin"),
        ("我跟老板说我要辞职", "我要辞职"),
        ("老板跟我说我很懒", "我很懒"),
        ("Okay so let's play a game tonight. I live in Berlin.", "I live in Berlin"),
        ("Let's roleplay. You're the king. I work at Acme in real life.", "I work at Acme"),
        ("I live in Berlin, don't you think", "I live in Berlin"),
        ("I live in Rome, as you said", "I live in Rome"),
        ("I moved to Oslo, they say it's cold", "I moved to Oslo"),
        ("I work at Acme, which my mom thinks is boring", "I work at Acme"),
        ("I love Oslo, so do my friends", "I love Oslo"),
        # Idioms that only look like a denial or another's view.
        ("I own a Ferrari, believe it or not.", "I own a Ferrari"),
        ("I own a Ferrari, like it or not.", "I own a Ferrari"),
        ("I own a Ferrari, believe it.", "I own a Ferrari"),
    ],
)
def test_still_the_users_statement(text: str, quote: str) -> None:
    assert quote_found(quote, [text])


def test_a_frame_ends_with_its_message() -> None:
    """A frame does not reach a later message: each message is read on its own."""
    assert quote_found("I live in Oslo", ["Let's roleplay. I am the king.", "I live in Oslo"])


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("Let's roleplay. " * 1500 + "I am the king.", "I am the king"),
        ("I'm lazy, according to my boss, " * 600, "I'm lazy"),
        ("我妈妈说" * 4000 + "我乳糖不耐受", "我乳糖不耐受"),
        ("私は怠け者だと上司は思っている" * 1200, "怠け者"),
        ("I own a Ferrari, yeah right, " * 600, "I own a Ferrari"),
        ("Story time. " + "I live on Mars. Back to reality. " * 500, "I live on Mars"),
    ],
)
def test_hostile_long_input_stays_cheap(text: str, quote: str) -> None:
    began = time.perf_counter()
    quote_found(quote, [text[:20_000]])
    assert time.perf_counter() - began < 0.2
