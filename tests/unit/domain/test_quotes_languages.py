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
        # "rarely" says the statement is not so, as "hardly" does
        ("I rarely eat meat", "eat meat"),
        ("Ich trinke selten Kaffee", "Ich trinke ... Kaffee"),
        ("Je mange rarement de la viande", "de la viande"),
        ("Saya jarang minum kopi", "minum kopi"),
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
        # negations that affirm
        ("Nothing beats living in Berlin", "living in Berlin"),
        ("Nada como vivir en Sevilla", "vivir en Sevilla"),
    ],
)
def test_the_same_words_where_they_do_not_negate(said: str, quote: str) -> None:
    assert quote_found(quote, [said])


@pytest.mark.parametrize(
    ("said", "quote"),
    [
        # a condition marked at the end of its clause, or by the verb first
        ("İşi alırsam Berlin'e taşınacağım", "Berlin'e taşınacağım"),
        ("Kahvaltıda kahve içersem iyi hissederim", "iyi hissederim"),
        ("Hava güzel olursa yürüyerek gidiyorum", "yürüyerek gidiyorum"),
        ("仕事が決まったらベルリンに引っ越します", "ベルリンに引っ越します"),
        ("お金があればベルリンに引っ越します", "ベルリンに引っ越します"),
        ("東京なら住みたい", "住みたい"),
        ("취직하면 베를린으로 이사할 거예요", "베를린으로 이사할 거예요"),
        ("돈이 있으면 베를린으로 이사할 거예요", "베를린으로 이사할 거예요"),
        ("找到工作的话我就搬到柏林", "我就搬到柏林"),
        ("找到工作的话，我会搬到柏林", "我会搬到柏林"),
        ("Should I get the job, I'll move to Berlin", "I'll move to Berlin"),
        ("Had I known, I would have stayed in Rome", "I would have stayed in Rome"),
        ("Were I to win, I'd buy a house in Rome", "I'd buy a house in Rome"),
        ("Sollte ich die Stelle bekommen, ziehe ich nach Berlin", "ziehe ich nach Berlin"),
        # an "if" word of more languages
        ("Kalau dapat kerja, saya pindah ke Jakarta", "saya pindah ke Jakarta"),
        ("Kalo dapat kerja saya pindah ke Jakarta", "saya pindah ke Jakarta"),
        ("ถ้าได้งานฉันจะย้ายไปเบอร์ลิน", "ฉันจะย้ายไปเบอร์ลิน"),
        ("Ikiwa nitapata kazi nitahamia Nairobi", "nitahamia Nairobi"),
        # "usually" as a whole word, not one kana or character of it
        ("如果我找到工作，我是说我就搬到柏林", "我就搬到柏林"),
    ],
)
def test_a_condition_without_an_if_word_is_supposed(said: str, quote: str) -> None:
    assert not quote_found(quote, [said])


@pytest.mark.parametrize(
    ("said", "quote"),
    [
        # a yes/no question marked only by its question mark or a closing word
        ("Moving to Berlin next month?", "Moving to Berlin next month"),
        ("Still working at Acme?", "working at Acme"),
        ("Still working at Acme?", "Still working at Acme"),
        ("I live in Berlin?", "I live in Berlin"),
        ("¿Me mudo a Madrid?", "Me mudo a Madrid"),
        ("Je déménage à Lyon ?", "Je déménage à Lyon"),
        ("제가 서울에 살아요?", "제가 서울에 살아요"),
        ("서울로 이사할까", "서울로 이사할까"),
        ("Berlin'de mi yaşıyorum?", "Berlin'de yaşıyorum"),
        ("Berlin'e taşınmalı mıyım", "Berlin'e taşınmalı"),
        ("Tôi có nên chuyển đến Berlin không?", "Tôi có nên chuyển đến Berlin"),
        ("ฉันควรย้ายไปเบอร์ลินไหม", "ฉันควรย้ายไปเบอร์ลิน"),
        ("Должен ли я переехать в Берлин", "я переехать в Берлин"),
        ("Переехать ли мне в Берлин?", "Переехать мне в Берлин"),
    ],
)
def test_a_question_without_an_opening_is_asked(said: str, quote: str) -> None:
    assert not quote_found(quote, [said])


@pytest.mark.parametrize(
    ("said", "quote"),
    [
        # statements beside a question, or with a marker that is another word here
        ("I moved to Berlin last month. Any tips?", "I moved to Berlin last month"),
        ("I moved to Berlin, do you know a good dentist?", "I moved to Berlin"),
        ("Where can I buy a bike in Berlin?", "Where can I buy a bike in Berlin"),
        ("Can you suggest gyms near my office in Leeds?",
         "Can you suggest gyms near my office in Leeds"),
        ("Guess what? I got a job at Acme.", "I got a job at Acme"),
        ("我住在北京，你呢？", "我住在北京"),
        ("Ich wohne in Berlin, und du?", "Ich wohne in Berlin"),
        ("東京に住んでいます。おすすめは何ですか？", "東京に住んでいます"),
        ("Great, about 13 people. Still living in City 0.", "Still living in City 0"),
        ("I work as a nurse I love my job in Leeds", "I love my job in Leeds"),
        ("Of course I moved to Berlin last year", "I moved to Berlin last year"),
        ("My colleague Andersen and I work at Acme", "I work at Acme"),
        ("Mi hermana va a casarse y yo vivo en Madrid", "yo vivo en Madrid"),
        ("라면 좋아해요", "좋아해요"),
        ("냉면을 좋아하고 서울에 살아요", "서울에 살아요"),
        ("たらこが好きです", "好きです"),
        ("あたらしい仕事を始めました", "仕事を始めました"),
        ("さようなら、東京に住んでいます", "東京に住んでいます"),
        ("他说的话我都记得", "我都记得"),
        ("Bursa'ya taşındım ve orada çalışıyorum", "orada çalışıyorum"),
        ("Had lunch with my sister, I live in Berlin", "I live in Berlin"),
        ("Should you need it, I live at 12 Baker Street", "I live at 12 Baker Street"),
        ("Kalau saya, saya suka kopi", "saya suka kopi"),
        ("Kalau boleh tahu, saya tinggal di Jakarta", "saya tinggal di Jakarta"),
        ("如果我没记错的话，我是2019年搬到上海的。", "我是2019年搬到上海的"),
    ],
)  # fmt: skip
def test_statements_beside_questions_and_lookalike_markers_stand(said: str, quote: str) -> None:
    assert quote_found(quote, [said])


@pytest.mark.parametrize(
    ("said", "quote"),
    [
        # a wish before what it wishes, or after it where the verb comes last
        ("我想住在北京", "住在北京"),
        ("Tôi muốn sống ở Berlin", "sống ở Berlin"),
        ("ฉันอยากอยู่เบอร์ลิน", "อยู่เบอร์ลิน"),
        ("Ningependa kuishi Nairobi", "kuishi Nairobi"),
        ("Chciałbym mieszkać w Berlinie", "mieszkać w Berlinie"),
        ("Eu queria morar em Lisboa", "morar em Lisboa"),
        ("Quiero vivir en Madrid", "vivir en Madrid"),
        ("Ich möchte in Berlin wohnen", "in Berlin wohnen"),
        ("אני רוצה לגור בברלין", "לגור בברלין"),
        ("أريد أن أعيش في برلين", "أعيش في برلين"),
        ("Saya mau pindah ke Jakarta", "pindah ke Jakarta"),
        ("मैं बर्लिन में रहना चाहता हूँ", "बर्लिन में रहना"),
        ("베를린에 살고 싶어요", "베를린에 살고"),
        ("東京に住みたい", "東京に住み"),
        ("Berlin'e taşınmak istiyorum", "Berlin'e taşınmak"),
        # someone else's view, in more languages
        ("Mój szef uważa, że jestem leniwy", "jestem leniwy"),
        ("مديري يعتقد أنني كسول", "أنني كسول"),
        ("הבוס שלי חושב שאני עצלן", "שאני עצלן"),
        ("मेरे बॉस को लगता है कि मैं आलसी हूँ", "मैं आलसी हूँ"),
        ("我老板觉得我很懒", "我很懒"),
        ("Мой начальник считает, что я ленивый", "я ленивый"),
        ("Bosi wangu anadhani mimi ni mvivu", "mimi ni mvivu"),
    ],
)
def test_a_wish_or_anothers_view_is_not_a_statement(said: str, quote: str) -> None:
    assert not quote_found(quote, [said])


@pytest.mark.parametrize(
    ("said", "quote"),
    [
        # the user's own hedge, and plain statements, in many languages
        ("我觉得我很懒", "我很懒"),
        ("我想我有ADHD", "我有ADHD"),
        ("मुझे लगता है कि मैं आलसी हूँ", "मैं आलसी हूँ"),
        ("אני חושב שאני עצלן", "שאני עצלן"),
        ("Quero dizer, moro em Lisboa", "moro em Lisboa"),
        ("J'habite à Lyon depuis 2019", "J'habite à Lyon depuis 2019"),
        ("Vivo en Madrid con mi pareja", "Vivo en Madrid con mi pareja"),
        ("Ich arbeite als Lehrerin in Köln", "Ich arbeite als Lehrerin in Köln"),
        ("Я работаю врачом в Москве", "Я работаю врачом в Москве"),
        ("Pracuję jako programista w Krakowie", "Pracuję jako programista w Krakowie"),
        ("İstanbul'da öğretmen olarak çalışıyorum", "İstanbul'da öğretmen olarak çalışıyorum"),
        ("أعمل مهندسا في دبي", "أعمل مهندسا في دبي"),
        ("אני עובד כמהנדס בחיפה", "אני עובד כמהנדס בחיפה"),
        ("मैं मुंबई में डॉक्टर हूँ", "मैं मुंबई में डॉक्टर हूँ"),
        ("我在上海当老师", "我在上海当老师"),
        ("大阪で看護師として働いています", "大阪で看護師として働いています"),
        ("저는 부산에서 간호사로 일해요", "저는 부산에서 간호사로 일해요"),
        ("ฉันทำงานเป็นพยาบาลที่เชียงใหม่", "ฉันทำงานเป็นพยาบาลที่เชียงใหม่"),
        ("Tôi làm y tá ở Đà Nẵng", "Tôi làm y tá ở Đà Nẵng"),
        ("Saya bekerja sebagai perawat di Bandung", "Saya bekerja sebagai perawat di Bandung"),
        ("Ninafanya kazi kama muuguzi Mombasa", "Ninafanya kazi kama muuguzi Mombasa"),
        ("Trabalho como enfermeira em Lisboa", "Trabalho como enfermeira em Lisboa"),
    ],
)
def test_the_users_own_hedge_and_statements_stand(said: str, quote: str) -> None:
    assert quote_found(quote, [said])
