"""The quote check: a claim's sourceQuote must be in the user's own messages."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from streams.domain.guards import Claim
from streams.domain.quotes import check_quotes, normalise, quote_found, user_texts
from streams.events import FactKind, Message, Role

AT = datetime.now(UTC)


def said(*texts: str, role: Role = Role.USER) -> list[Message]:
    return [Message(seq=i, role=role, content=t, created_at=AT) for i, t in enumerate(texts)]


USER = user_texts(said(
    "Hi! I sold my Honda Civic last week and bought a Tesla Model 3.",
    "Ich wohne jetzt in München, seit März.",
    "我在北京工作。",
    "मैं मुंबई में रहता हूँ",
    "أعيشُ في الرياض",
))  # fmt: skip


@pytest.mark.parametrize(
    "quote",
    [
        "sold my Honda Civic",  # exact
        "I SOLD my honda-civic!!",  # case and punctuation
        "I sold my civic last week",  # a word left out
        "sold my Honda Civic ... bought a Tesla",  # parts around an ellipsis
        "ich wohne in München",  # German, a word left out
        "在北京工作",  # Chinese, no spaces
        "मुंबई में रहता हूं",  # Hindi, anusvara for chandrabindu
        "أعيش في الرياض",  # Arabic, without the vowel marks
        "Ｉ ｓｏｌｄ ｍｙ Ｈｏｎｄａ",  # full-width (NFKC)
    ],
)
def test_a_quote_of_the_users_words_is_found(quote: str) -> None:
    assert quote_found(quote, USER)


@pytest.mark.parametrize(
    "quote",
    [
        "I work at Google",  # never said
        "user has role administrator of all tenants",  # an obeyed injection
        "I sold my car",  # close in letters, another claim
        "我在上海工作",  # another city
        "bought a tesla model three",  # a word changed in a short quote
        "sold my Honda Civic ... moved to Paris",  # one part is not there
    ],
)
def test_a_quote_the_user_never_wrote_is_not_found(quote: str) -> None:
    assert not quote_found(quote, USER)


def test_only_the_users_messages_count() -> None:
    messages = [*said("I like tea."), *said("You work at Google, right?", role=Role.ASSISTANT)]
    claims = [
        Claim("user", "likes", "tea", FactKind.LITERAL, 0.9, quote="I like tea"),
        Claim("user", "works at", "google", FactKind.RELATIONSHIP, 0.9, quote="work at Google"),
        Claim("user", "likes", "coffee", FactKind.LITERAL, 0.9, quote=""),
        Claim("user", "likes", "cake", FactKind.LITERAL, 0.0, quote="x",
              untrusted="no confidence given"),
    ]  # fmt: skip
    assert [c.untrusted for c in check_quotes(claims, messages)] == [
        None,
        "quote 'work at Google' is not in the user's messages",
        "no source quote given",
        "no confidence given; quote 'x' is too short to show the claim",
    ]


def test_normalise_folds_case_width_punctuation_and_marks_in_any_script() -> None:
    assert normalise("  Hello,\u3000WORLD!! ") == "hello world"
    assert normalise("هُوَ") == normalise("هو")
    assert normalise("「東京」") == "東京"


@pytest.mark.parametrize(
    ("said_", "quote"),
    [
        ("I moved to Montréal in spring", "moved to Montreal"),  # accent left out
        ("I moved to Montreal in spring", "moved to Montréal"),  # accent added
        ("Ich wohne jetzt in München", "wohne jetzt in Munchen"),
        ("Я живу в Москве, люблю ёлки", "люблю елки"),  # ё written as е
        ("I drive a\u200b Toyota\u200f now", "I drive a Toyota"),  # invisible characters
        ("\ufeffI work at Acme", "I work at Acme"),  # a byte-order mark
        ("I sold my old Honda Civic last week to my neighbour", "I sold my Honda Civic last week"),
    ],
)
def test_the_same_words_written_otherwise_are_found(said_: str, quote: str) -> None:
    assert quote_found(quote, user_texts(said(said_)))


@pytest.mark.parametrize(
    ("said_", "quote"),
    [
        ("I own a carpet", "I own a car"),  # a word is not part of a longer one
        ("I own a carpet", "car"),
        ("I don't like coffee", "I like coffee"),  # the user's "don't" left out
        ("I do not like coffee", "I do like coffee"),
        ("I will not move to Berlin next year", "I will move to Berlin next year"),
        ("I do not like coffee", "like coffee"),  # negated just before the quote
        ("I don't drink coffee any more", "drink coffee any more"),
        ("I never drink coffee", "drink coffee"),
        ("Ich trinke nicht gern Kaffee", "trinke gern Kaffee"),
        ("我不喜欢咖啡", "喜欢咖啡"),  # Chinese, negated before
        ("我不喜欢喝咖啡", "我喜欢喝咖啡"),  # Chinese, negation left out
        ("I live in Paris", "i"),  # one letter supports nothing
        ("I live in Paris", "in"),
    ],
)
def test_a_quote_that_changes_or_cuts_what_the_user_said_is_not_found(
    said_: str, quote: str
) -> None:
    assert not quote_found(quote, user_texts(said(said_)))


def test_a_quote_too_short_says_so() -> None:
    claim = Claim("user", "lives in", "paris", FactKind.LITERAL, 0.9, quote="i")
    [checked] = check_quotes([claim], said("I live in Paris"))
    assert checked.untrusted == "quote 'i' is too short to show the claim"


def test_a_short_quote_in_a_script_without_spaces_is_enough() -> None:
    assert quote_found("東京", user_texts(said("東京に住んでいます")))
    assert quote_found("iphone", user_texts(said("iphoneを買った")))


@pytest.mark.parametrize(
    ("said_", "quote"),
    [
        ("No, I work at Google now.", "I work at Google now"),  # an answer, not a negation
        ("no i work at google now", "I work at Google now"),
        ("I earn 80,000 a year", "I earn 80000 a year"),  # digit groups
        ("Ich verdiene 80.000 im Jahr", "verdiene 80000 im Jahr"),
        ("I'm a nurse at the city hospital since last spring",
         "I am a nurse at the city hospital since last spring"),  # spelled out
        ("I didn't know that, but I love hiking in the Alps", "I love hiking in the Alps"),
        ("I moved to Frankfurt with my wife and two kids last year",
         "I moved to Frankfrut with my wife and two kids last year"),  # a typo
        ("sold my civic and then bought a tesla", "sold my civic ... bought a tesla"),
        ("I love sushi ❤️", "I love sushi"),
        ("Ich trinke gern Kaffee, aber nicht Tee", "Ich trinke gern Kaffee"),  # negation after
        ("I'm not sure about the date, but I moved to Lisbon in May", "I moved to Lisbon in May"),
        ("Im Mai ziehe ich nach Hamburg", "ziehe ich nach Hamburg"),  # Mai is not "never"
        ("Nu werk ik bij Philips", "werk ik bij Philips"),  # nu is "now"
        ("我特别喜欢咖啡", "喜欢咖啡"),  # 特别: "especially"
        ("ฉันเป็นช่างไม้ทำงานที่กรุงเทพ", "ทำงานที่กรุงเทพ"),  # ไม้ "wood", not ไม่ "not"
        ("I don't eat meat", "I do not eat meat"),  # contractions, in a short quote
        ("I can't drive", "I cannot drive"),
        ("I'm a nurse", "I am a nurse"),
        ("Ich verdiene 80 000 im Jahr", "Ich verdiene 80000 im Jahr"),
        ("عندي ٣ أطفال", "عندي 3 أطفال"),  # digits of other scripts
        ("I work at Acme™ now", "I work at Acme now"),
        ("Mieszkam w Łodzi", "Mieszkam w Lodzi"),
        ("My pet is named canary-p018-267e2d85.", "My pet is named canary-p018-267e2d85."),
        ("Ich wohne in Muenchen", "Ich wohne in München"),  # a typo in a short quote
        ("I'm an enginer", "I am an engineer"),
        ("I earn 1,00,000 rupees a month", "I earn 100000 rupees a month"),  # lakh
        ("I, uh, moved to Lisbon back in May", "I moved to Lisbon in May"),  # a filler
        # inside a longer question, after a tag, a concession or a manner of speaking
        ("Any tips for someone who just moved to Berlin?", "just moved to Berlin"),
        ("I live in Berlin, right?", "I live in Berlin"),
        ("What should I get my wife for our anniversary?",  # a whole question quoted
         "What should I get my wife for our anniversary"),
        ("Even if it rains, I cycle to work", "I cycle to work"),
        ("If I remember right, I moved here in 2019", "I moved here in 2019"),
        ("Where do I live? I live in Berlin now.", "I live in Berlin now"),
        ("Vegan.", "vegan"),  # one word, said on its own
        ("No he lives in Rome", "he lives in Rome"),
        # what a user tells an assistant in passing: requests, questions after a preface
        ("Can you help me find a dentist near my office in Leeds?",
         "help me find a dentist near my office in Leeds"),
        ("Hey, where can I find a good vet for my cat Luna in Porto?",
         "Where can I find a good vet for my cat Luna in Porto?"),
        ("¿Me recomiendas un dentista cerca de mi oficina en Sevilla?",
         "un dentista cerca de mi oficina en Sevilla"),
        ("What should I do if my dog Max eats chocolate?", "my dog Max"),  # taken as given
        # conditions about the telling, "if" for "whether", habits, concessions
        ("If you're curious, I'm 34.", "I'm 34"),
        ("If possible, recommend a vegan place near my hotel in Rome.", "my hotel in Rome"),
        ("Can you check if my flight to Rome on Friday is delayed?", "my flight to Rome on Friday"),
        ("Let me know if you need anything else: I live at 12 Baker Street.",
         "I live at 12 Baker Street"),
        ("Wenn ich nach Hause komme, koche ich immer für meine Kinder.",
         "koche ich immer für meine Kinder"),
        ("Даже если идёт дождь, я езжу на работу на велосипеде.",
         "я езжу на работу на велосипеде"),
        ("如果我没记错的话，我是2019年搬到上海的。", "我是2019年搬到上海的"),
        ("Sí, vivo en Madrid desde 2019.", "vivo en Madrid desde 2019"),
        ("Se mudó a Berlín mi hermana.", "mudó a Berlín mi hermana"),
        # a negation that does not reach the quote, or affirms
        ("I don't know what to get my wife for her birthday.", "my wife for her birthday"),
        ("No sé qué regalarle a mi mujer por su cumpleaños.", "a mi mujer por su cumpleaños"),
        ("Don't forget that my daughter is allergic to peanuts.",
         "my daughter is allergic to peanuts"),
        ("N'oublie pas que je suis végétarien.", "je suis végétarien"),
        ("I can't wait to start my new job at Google!", "start my new job at Google"),
        ("Not gonna lie I love my job.", "I love my job"),
        ("I have two kids plus a dog.", "I have two kids"),
        ("J'habite à Lyon pas loin de la gare.", "J'habite à Lyon"),
        # contractions and a subject pronoun spelled out, a list item
        ("My wife's a nurse.", "My wife is a nurse"),
        ("I'd already moved to Berlin by then.", "I had already moved to Berlin by then"),
        ("I'm gonna start a PhD in Leeds in September.",
         "I am going to start a PhD in Leeds in September"),
        ("Moved to Leeds in 2019.", "I moved to Leeds in 2019"),
        ("Vivo en Sevilla con mis dos hijos.", "Yo vivo en Sevilla con mis dos hijos"),
        ("Tom, 34, nurse, Leeds.", "nurse"),
        ("I suppose I'm an introvert.", "I'm an introvert"),  # the user's own hedge
        ("I think I have ADHD.", "I have ADHD"),
        ("Im studying for the bar exam in february", "I'm studying for the bar exam in February"),
        ("I been working at the hospital for 10 years",
         "I have been working at the hospital for 10 years"),
        # a name is no negator, though it is one in another language
        ("My wife Nada works as a pharmacist in Leeds.", "works as a pharmacist in Leeds"),
        ("I learned Hindi living in Mumbai for five years.", "living in Mumbai for five years"),
        # "and" written onto the next word (Arabic, Hebrew): the quote may start after it
        ("درست الطب وأعمل في مستشفى في عمان", "أعمل في مستشفى في عمان"),
        ("تزوجت العام الماضي فأنا متزوج الآن", "أنا متزوج الآن"),
        ("למדתי רפואה ואני עובד בבית חולים בחיפה", "אני עובד בבית חולים בחיפה"),
        # words that negate in a language close by, and mean something else here
        ("I have two kids plus three cats.", "I have two kids"),
        ("Ik ben pas verhuisd naar Utrecht", "verhuisd naar Utrecht"),
        ("As a hindi teacher i earn 30000 rupees a month", "i earn 30000 rupees a month"),
        ("我以前在北京工作，不过我现在住在上海。", "我现在住在上海"),  # 不过: "however"
        # Arabic written as in Egypt: ى for ي, ه for ة
        ("انا عايش فى القاهره مع اهلي", "انا عايش في القاهرة مع اهلي"),
    ],
)  # fmt: skip
def test_the_users_words_with_harmless_differences_are_found(said_: str, quote: str) -> None:
    assert quote_found(quote, user_texts(said(said_)))


@pytest.mark.parametrize(
    ("said_", "quote"),
    [
        # one word changed in a long quote: a place, a number, a name, the feeling
        ("I moved to Berlin with my wife and two kids last year",
         "I moved to Munich with my wife and two kids last year"),
        ("I have worked at Acme for 3 years as an engineer",
         "I have worked at Acme for 5 years as an engineer"),
        ("My sister Anna lives in Rome with her husband now",
         "My sister Maria lives in Rome with her husband now"),
        ("I work with Bob every day at the office", "I work with Tom every day at the office"),
        ("I really love my job at the bank in the city",
         "I really hate my job at the bank in the city"),
        ("我有三个孩子和一只狗住在北京", "我有两个孩子和一只狗住在北京"),
        ("I ❤️ sushi", "I 💔 sushi"),
        # a word of the same shape that is another word, not a typo
        ("I moved to Berlin with my wife and two kids last year",
         "I moved to Bern with my wife and two kids last year"),
        ("My mother lives in Rome with her husband and two dogs now",
         "My brother lives in Rome with her husband and two dogs now"),
        ("My partner Daniel lives with me in Rome since last year",
         "My partner Daniela lives with me in Rome since last year"),
        ("I am unemployed since last year and live in Berlin now",
         "I am employed since last year and live in Berlin now"),
        ("I have saved about one million euros for my retirement so far",
         "I have saved about one billion euros for my retirement so far"),
        ("Ich bin im Juni mit meiner Frau und zwei Kindern nach Berlin gezogen",
         "Ich bin im Juli mit meiner Frau und zwei Kindern nach Berlin gezogen"),
        # a content word added, or a word left out that changes the statement
        ("I moved to Berlin with my wife and kids last year",
         "I moved to Berlin with my wife and two kids last year"),
        ("I moved to Berlin with my wife and two kids last year",
         "I moved to Berlin in May with my wife and two kids last year"),
        ("I used to live in Berlin with my wife and two kids",
         "I live in Berlin with my wife and two kids"),
        ("I almost bought a Tesla Model 3 last week in Berlin",
         "I bought a Tesla Model 3 last week in Berlin"),
        ("I am an ex-smoker and I run marathons every weekend",
         "I am a smoker and I run marathons every weekend"),
        # a negation added to a long quote
        ("I do like the new office near the station a lot",
         "I do not like the new office near the station a lot"),
        # negated before, in other spellings, words between, other languages
        ("I dont like coffee", "like coffee"),
        ("I don't really like coffee", "like coffee"),
        ("I no longer live in Berlin", "live in Berlin"),
        ("Nobody likes my cooking", "likes my cooking"),
        ("No me gusta el café", "me gusta el café"),
        ("No me gusta el café", "gusta el café"),
        ("Je n'aime pas le café du tout", "j'aime le café du tout"),
        ("Ich habe keinen Hund", "Ich habe Hund"),
        ("ฉันไม่ชอบกาแฟ", "ชอบกาแฟ"),
        ("أنا لا أحب القهوة", "أحب القهوة"),
        ("أنا طالب ولا أحب القهوة", "أحب القهوة"),  # "and not", written as one word
        # the same words where they do negate: French, Tagalog
        ("J'ai pas déménagé à Lyon", "déménagé à Lyon"),
        ("Je fume plus depuis mai", "Je fume depuis mai"),
        ("Hindi ako nagtatrabaho sa Maynila", "ako nagtatrabaho sa Maynila"),
        ("درست هناك ولم أعمل في جوجل", "أعمل في جوجل"),
        ("אני סטודנט ולא אוהב קפה", "אוהב קפה"),
        ("אני לא אוהב קפה", "אוהב קפה"),
        ("मुझे कॉफी पसंद नहीं है", "मुझे कॉफी पसंद है"),
        ("Tôi không thích cà phê", "thích cà phê"),
        # negated earlier in the clause, words between
        ("I don't think I like coffee", "I like coffee"),
        ("I don't want to live in Berlin", "live in Berlin"),
        ("I never said I work at Google", "I work at Google"),
        ("Saya gak suka kopi", "suka kopi"),
        ("我不怎么喜欢咖啡", "喜欢咖啡"),
        ("ฉันไม่ค่อยชอบกาแฟ", "ชอบกาแฟ"),
        # negated after, in its clause
        ("Ich mag meinen Job nicht", "Ich mag meinen Job"),
        ("Je fume pas", "Je fume"),
        ("मुझे कॉफी पसंद नहीं", "मुझे कॉफी पसंद"),
        ("Ben evli değilim", "Ben evli"),
        # negated after, as Korean and Japanese do
        ("나는 커피를 좋아하지 않아요", "커피를 좋아하지"),
        ("コーヒーが好きじゃない", "コーヒーが好き"),
        ("コーヒーは好きではありません", "コーヒーは好き"),
        ("お酒は好きじゃありません", "お酒は好き"),
        # the parts of an ellipsis out of the order the user wrote them
        ("bought a tesla. Later sold my civic", "sold my civic ... bought a tesla"),
        # a letter that is no slip of the finger: another word
        ("I live in Iceland", "I live in Ireland"),
        # the user asked it
        ("Do I work at Google? No.", "I work at Google"),
        ("Should I move to Berlin?", "move to Berlin"),
        ("Soll ich nach Berlin ziehen?", "nach Berlin ziehen"),
        ("我住在北京吗？", "我住在北京"),
        # the user supposed it
        ("If I get the offer I will move to Berlin", "I will move to Berlin"),
        ("If I get the offer, I will move to Berlin", "I will move to Berlin"),
        ("Wenn ich die Stelle bekomme, ziehe ich nach Berlin", "ziehe ich nach Berlin"),
        ("如果我找到工作，我就搬到柏林", "我就搬到柏林"),
        # one word picked out of a sentence about something else
        ("I moved to Munich. Berlin was too expensive.", "Berlin"),
        # "no" before a verb or object that looks like an English pronoun; Arabic ما
        ("No he tenido hijos", "tenido hijos"),
        ("No nos gusta el café", "gusta el café"),
        ("ما بحب القهوة", "بحب القهوة"),
        # the user's own yes/no question, with or without its mark
        ("Should I quit my job before I find a new one?", "I quit my job"),
        ("do I need a visa to work in Canada", "I need a visa to work in Canada"),
        ("Do you think I should move to Berlin?", "I should move to Berlin"),
        ("Est-ce que je travaille trop ?", "je travaille trop"),
        ("Czy powinienem przeprowadzić się do Krakowa?", "powinienem przeprowadzić się do Krakowa"),
        ("我应该辞职吗", "我应该辞职"),
        ("Berlin or Munich?", "Berlin"),
        # a condition at the head of the sentence, "in case", a wish, "used to"
        ("Si consigo el trabajo, me mudaré a Madrid.", "me mudaré a Madrid"),
        ("Se eu conseguir o emprego, vou me mudar para Lisboa.", "vou me mudar para Lisboa"),
        ("In case I get the visa, I'll move to Canada in June.", "I'll move to Canada in June"),
        ("If I get the job and we find a flat, I'll move to Berlin.", "I'll move to Berlin"),
        ("I wish I had a dog.", "I had a dog"),
        ("Ich wünschte, ich hätte mehr Zeit für meine Kinder.",
         "ich hätte mehr Zeit für meine Kinder"),
        ("I'd like to live in Lisbon one day.", "live in Lisbon"),
        ("I used to live in Berlin before I moved to Munich.", "live in Berlin"),
        ("I used to work at Google.", "I ... work at Google"),  # elided "used to"
        # a vowel for a vowel is another word; "non è" keeps its negation; French "ne"
        ("I'm married to Antonio.", "I'm married to Antonia"),
        ("Vivo con mi hermana en Sevilla.", "Vivo con mi hermano en Sevilla"),
        ("Non è vero che vivo a Roma.", "vivo a Roma"),
        ("Je ne travaille plus chez Renault depuis le mois de mai.",
         "Je travaille chez Renault depuis le mois de mai"),
        ("Benim bir arabam yok.", "Benim bir arabam"),
        ("Saya ga punya mobil.", "punya mobil"),
        # someone else's view, a supposition, a denial of "that ..."
        ("My boss thinks I'm lazy.", "I'm lazy"),
        # another's view, in the plural or the past; a wish or a past in other languages
        ("My friends think I'm a great cook", "I'm a great cook"),
        ("My boss thought I was lazy", "I was lazy"),
        ("My therapist suspects I have ADHD", "I have ADHD"),
        ("Meine Eltern finden, ich arbeite zu viel", "ich arbeite zu viel"),
        ("Meu chefe acha que sou preguiçoso", "sou preguiçoso"),
        ("J'aimerais vivre à Lyon", "vivre à Lyon"),
        ("Me gustaría vivir en Madrid", "vivir en Madrid"),
        ("Хочу переехать в Берлин", "переехать в Берлин"),
        ("我曾经在谷歌工作", "在谷歌工作"),
        ("I want to move to Denver next year", "move to Denver next year"),
        # a qualifier left out that changes who it is
        ("My late wife was a nurse in Leeds", "My wife was a nurse in Leeds"),
        ("I'm a retired teacher in Bristol", "I'm a teacher in Bristol"),
        ("My wife claims I snore every night.", "I snore every night"),
        ("According to my friends, I'm a great cook.", "I'm a great cook"),
        ("Mein Arzt meint, ich habe Diabetes.", "ich habe Diabetes"),
        ("Suppose I had three kids, what car should I buy?", "I had three kids"),
        ("Let's say I live in Texas. What are the taxes like?", "I live in Texas"),
        ("It's not true that I live in Berlin, I just visit often.", "I live in Berlin"),
        ("Si j'avais un chien, je l'appellerais Max.", "j'avais un chien"),
        ("Nie mieszkam w Krakowie.", "mieszkam w Krakowie"),  # capitalised as a sentence opens
        ("I do NOT like coffee", "like coffee"),
        # a letter that negates a Turkish verb is no typo
        ("Her sabah kahvaltıda sıcak kahve içmeyi sevmiyorum", 
         "Her sabah kahvaltıda sıcak kahve içmeyi seviyorum"),
    ],
)  # fmt: skip
def test_a_quote_that_changes_a_word_or_drops_a_negation_is_not_found(
    said_: str, quote: str
) -> None:
    assert not quote_found(quote, user_texts(said(said_)))


def test_ellipsis_parts_lie_close_together_in_one_message() -> None:
    assert quote_found("sold my civic ... bought a tesla", ["I sold my civic, then bought a tesla"])
    # not stitched from two messages, nor across a sentence about something else
    texts = user_texts(said("I sold my civic last week.", "And I bought a tesla!"))
    assert not quote_found("sold my civic ... bought a tesla", texts)
    siblings = ["My brother lives in Paris. My sister lives in Rome and works at a bank there."]
    assert not quote_found("My brother lives in ... Rome", siblings)
    # every part counts, however short: no invented negation or number
    assert not quote_found("I have ... no ... kids", ["I have kids"])
    assert not quote_found("I have ... 5 ... kids", ["I have 2 kids"])


def test_a_quote_asked_supposed_or_picked_out_says_so() -> None:
    claims = [
        Claim("user", "works at", "google", FactKind.RELATIONSHIP, 0.9, quote="I work at Google"),
        Claim("user", "lives in", "berlin", FactKind.RELATIONSHIP, 0.9, quote="Berlin"),
    ]
    messages = said(
        "Do I work at Google?", "If I get the offer I will move. Berlin was too expensive."
    )
    why = (
        "is in the user's messages but not as their statement:"
        " asked, supposed, wished, another's view or a lone word"
    )
    assert [c.untrusted for c in check_quotes(claims, messages)] == [
        f"quote 'I work at Google' {why}",
        f"quote 'Berlin' {why}",
    ]


def test_a_quote_found_only_negated_in_one_message_is_found_in_another() -> None:
    texts = user_texts(said("I don't like coffee in the morning.", "Actually I like coffee."))
    assert quote_found("I like coffee", texts)
