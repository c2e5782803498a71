"""Who holds a view told around a quote (for streams/domain/views.py).

Another person, whose view it is ("My boss thinks I'm lazy"); in languages that put the
possessor after the noun, "bos saya" (Indonesian, Malay) and "sếp tôi" (Vietnamese) are
"my boss", so "bos saya pikir" is the boss's view, not the user's own "saya pikir". Or a
source whose word the user reports as their own: a doctor or a test ("My doctor says I'm
diabetic", 医生说, "bác sĩ"), or a record or a plan ("According to my calendar", "según
mis cuentas", "volgens afspraak").
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.according import a_person_with_suffix
from streams.domain.wording import Wording, folded_words, word_set

# Whose saying is a finding the user reports as theirs: "My doctor says I'm diabetic".
AUTHORITIES = word_set(
    "doctor doctors doc dentist physician therapist psychiatrist psychologist gp nurse"
    " specialist test tests results scan arzt ärztin médecin médico врач lekarz dokter"
    " ob obgyn gyn gynecologist gynaecologist midwife pediatrician paediatrician surgeon"
    " cardiologist dermatologist allergist optometrist vet"
)
# Records and plans, whose "according to" is the user's own reading of them: "According
# to my calendar, I have ...", "According to plan, I moved ...", "Según mi agenda".
_RECORDS = word_set(
    "calendar schedule plan plans diary planner records record passport license licence"
    " app tracker watch scale itinerary contract lease ticket receipts statement bank"
    " agenda calendario plano planning kalender plan terminkalender kalendarz календарю fitbit"
    " garmin strava smartwatch плану planeado planeada previsto prévu geplant planu plana"
    " planem planning afspraak الخطه calculations calculation calculs cálculos cuentas calcoli"
    " berechnungen rechnung obliczeń math estimate estimates count notes numbers spreadsheet"
    " budget رايي"
)
# Two-word authorities as one string: 医生, and Vietnamese "bác sĩ".
_AUTHORITY_PAIRS = frozenset("".join(w) for w in folded_words("医生 醫生 大夫 医师 醫師 bác_sĩ"))
# Languages that put the possessor after the noun: "bos saya" (Indonesian, Malay) and
# "sếp tôi" (Vietnamese) are "my boss", so "bos saya pikir" is the boss's "thinks", not
# the user's own "saya pikir". Only these nouns of people, so an opening word before the
# user's own "I think" ("tapi saya pikir", "còn tôi nghĩ") is never read as a speaker.
_POSTPOSED_POSSESSORS = word_set("saya aku kami tôi mình")
_PEOPLE_POSSESSED = word_set(
    "bos atasan manajer ibu ayah bapak mama papa mami papi emak istri isteri suami teman"
    " kawan sahabat pacar kakak adik abang kakek nenek tetangga rekan guru dosen keluarga"
    " mertua anak pasangan tunangan dokter sếp mẹ má bố cha vợ chồng thầy yêu xóm nghiệp"
    " đình mak bạn em trai gái bè"
)
_FIRST_SYLLABLES = word_set("đồng gia bạn anh chị em hàng")  # đồng nghiệp, bạn trai
_PEOPLE = word_set("orang semua mọi người")
_CLAUSE_OPENERS = word_set("tapi tetapi dan jadi terus karena nhưng và còn thì mà")


def possessed(said: Wording, first: int, at: int) -> bool:
    """Whether ``words[at]``, a first person, is the possessor after a noun of a person
    in its clause ("bos saya", "sếp tôi": "my boss"), not the user as the subject."""
    words = said.words
    return (
        words[at] in _POSTPOSED_POSSESSORS
        and at - 1 >= first
        and at not in said.breaks
        and words[at - 1] in _PEOPLE_POSSESSED
        and _opens_its_clause(said, first, at - 1)
    )


def _opens_its_clause(said: Wording, first: int, at: int) -> bool:
    """Whether ``words[at]`` opens its clause, maybe after "but", "and" ("Tapi bos saya
    pikir"), not an object ("cerai dengan suami saya pikir") nor after thanks ("Makasih
    teman saya pikir"). A noun of two syllables opens with its first ("Đồng nghiệp tôi")."""
    if at > first and at not in said.breaks and said.words[at - 1] in _FIRST_SYLLABLES:
        at -= 1
    if at == first or at in said.breaks:
        return True
    before = said.words[at - 1]
    return before in _CLAUSE_OPENERS and (at - 1 == first or at - 1 in said.breaks)


def an_authority(words: Sequence[str], at: int) -> bool:
    """A doctor or a test ("doctor", 医生, "bác sĩ"), whose saying is a finding."""
    pair = "".join(words[max(0, at - 1) : at + 1])
    return words[at] in AUTHORITIES or pair in _AUTHORITY_PAIRS


def a_source(words: Sequence[str], at: int) -> bool:
    """A doctor, a test or a record of the user's ("my calendar", "my calculations", "lo
    planeado", "afspraak"): what it says the user reports as theirs."""
    return an_authority(words, at) or words[at] in _RECORDS


def a_person_at(words: Sequence[str], at: int) -> bool:
    if at >= len(words):
        return False
    return words[at] in _PEOPLE_POSSESSED | _PEOPLE or a_person_with_suffix(
        words[at], _PEOPLE_POSSESSED
    )
