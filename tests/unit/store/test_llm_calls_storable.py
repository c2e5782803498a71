"""What llm_calls can store: NUL and lone surrogates replaced, everything else exact."""

from __future__ import annotations

import json

from streams.store.llm_calls import REPLACEMENT, storable, storable_text


def test_nul_and_unpaired_surrogates_become_the_replacement_character() -> None:
    assert storable_text("a\x00b") == f"a{REPLACEMENT}b"
    assert storable_text("high \ud83d alone") == f"high {REPLACEMENT} alone"
    assert storable_text("low \ude00 alone") == f"low {REPLACEMENT} alone"
    assert storable_text("\ude00\ud83d") == REPLACEMENT * 2  # wrong order: not a pair


def test_a_pair_split_over_two_code_points_is_joined() -> None:
    assert storable_text("\ud83d\ude00") == "😀"


def test_every_other_text_is_kept_exactly() -> None:
    text = 'tabs\t, "quotes", back\\slash \\u0000 as text, 中文, مرحبا, 😀, \u200b, \r\n end'
    assert storable_text(text) is text  # untouched, not even copied


def test_values_keep_their_shape_with_keys_and_floats_made_storable() -> None:
    value = {
        "te\x00xt": ["ok", "bad\udcff", 1, 2.5, True, None],
        "scores": [float("nan"), float("inf"), -float("inf")],
        "nested": {"deep": ("tuple", "\x00")},
    }
    assert storable(value) == {
        f"te{REPLACEMENT}xt": ["ok", f"bad{REPLACEMENT}", 1, 2.5, True, None],
        "scores": ["NaN", "Infinity", "-Infinity"],
        "nested": {"deep": ["tuple", REPLACEMENT]},
    }
    # What comes out is strict JSON (no NaN token), as jsonb requires.
    json.dumps(storable(value), allow_nan=False)
