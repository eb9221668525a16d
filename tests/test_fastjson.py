"""config.fastjson: the same JSON values as the standard library's ``json``, and its errors."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from config import fastjson

# JSON values as a game's view holds them: nested objects and arrays of strings (any Unicode), 64-bit
# integers, finite floats, booleans and null.
scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text())
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=5), max_leaves=30)


@given(values)
def test_the_text_is_the_json_value_the_standard_library_writes(value):
    text = fastjson.dumps(value)
    assert json.loads(text) == json.loads(json.dumps(value))
    assert fastjson.dumps_bytes(value) == text.encode()


def test_keys_keep_their_order_and_integer_keys_become_strings_as_with_json():
    value = {"b": 1, 3: [True, None], "a": {"é": "🎲"}}
    assert list(json.loads(fastjson.dumps(value))) == ["b", "3", "a"]
    assert json.loads(fastjson.dumps(value)) == {"b": 1, "3": [True, None], "a": {"é": "🎲"}}
    assert fastjson.dumps(value) == '{"b":1,"3":[true,null],"a":{"é":"🎲"}}'  # compact, UTF-8


def test_what_orjson_refuses_is_written_by_json_and_what_neither_can_encode_raises_type_error():
    big = 2**70  # beyond orjson's 64-bit integers
    assert fastjson.dumps({"n": big}) == '{"n": 1180591620717411303424}'
    with pytest.raises(TypeError):
        fastjson.dumps({"x": object()})


def test_other_values_nan_becomes_null_a_datetime_raises_as_with_json_a_cycle_raises_value_error():
    import datetime

    assert fastjson.dumps([float("nan"), float("inf")]) == "[null,null]"  # json writes NaN, which no parser takes
    with pytest.raises(TypeError):
        fastjson.dumps({"at": datetime.datetime(2026, 12, 2)})
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError):
        fastjson.dumps(loop)
