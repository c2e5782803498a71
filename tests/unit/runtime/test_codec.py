import pytest
from pydantic import BaseModel

from streams.errors import PoisonError
from streams.events import Fact, FactKind, FactsResolved
from streams.runtime.codec import DecodeError, OutputTooLarge, decode, encode


class Ev(BaseModel):
    seq: int


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (None, "empty"),
        (b"x" * 101, "oversized"),
        (b"\xff\xfe{}", "not_utf8"),
        (b"{not json", "bad_json"),
        (b'{"seq": "nope"}', "invalid_schema"),
        (b"[1, 2]", "invalid_schema"),
    ],
)
def test_undecodable_values_are_poison_with_a_reason(value: bytes | None, reason: str) -> None:
    with pytest.raises(DecodeError) as err:
        decode(value, Ev, max_bytes=100)
    assert err.value.reason == reason
    assert isinstance(err.value, PoisonError)


def test_round_trip_and_output_limit() -> None:
    assert decode(b'{"seq": 3}', Ev, 100) == Ev(seq=3)
    assert decode(encode(Ev(seq=4), 100), Ev, 100).seq == 4
    with pytest.raises(OutputTooLarge):
        encode(Ev(seq=4), 3)


def test_a_stage_output_leaves_out_what_is_none_and_reads_back_the_same() -> None:
    fact = Fact(subject="user", predicate="likes", object="tea", kind=FactKind.LITERAL,
                confidence=0.9)  # fmt: skip
    out = FactsResolved(dataset="d", project_id="p", episode_id="e", source_event_id="s",
                        entities=[], facts=[fact])  # fmt: skip
    data = encode(out, 1_000_000)
    assert b"null" not in data and b"valid_until" not in data
    assert decode(data, FactsResolved, 1_000_000) == out
    assert len(data) < len(out.model_dump_json())
