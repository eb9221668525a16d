"""The JSON-lines protocol itself (../shared/conformance/README.md): one answer per line, in order; a bad
line never stops the run."""

import io
import json

from games.conformance import run


def _answers(lines: list[str]) -> list[dict]:
    out = io.StringIO()
    run(lines, out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_bad_lines_get_errors_and_the_run_goes_on():
    rows = _answers([
        "not json\n",
        "[1, 2]\n",
        '{"id": "u", "op": "chinchon.nothing", "args": {}}\n',
        '{"id": "a", "op": "chinchirorin.hand", "args": "x"}\n',
        "\n",
        '{"id": "ok", "op": "chinchirorin.hand", "args": {"dice": [2, 2, 4]}}\n',
    ])
    assert [r.get("id") for r in rows] == [None, None, "u", "a", "ok"]
    assert rows[2] == {"id": "u", "error": "unknown op 'chinchon.nothing'"}
    assert all("error" in r for r in rows[:4])
    assert rows[4] == {"id": "ok", "result": {"hand": "point", "value": 4}}


def test_a_result_too_big_to_write_is_an_error_line():
    # 4300 nines is the longest integer json reads; the winner's 10 more points make 4301 digits, more than
    # json writes: that line gets an error and the next line is still answered.
    nines = "9" * 4300
    line = ('{"id": "big", "op": "chinchirorin.settle", "args": {"rules": {}, "dealer": 0, '
            '"points": {"0": 1000, "1": ' + nines + '}, "bets": {"1": 10}, '
            '"hands": {"0": {"hand": "point", "value": 1}, "1": {"hand": "point", "value": 2}}}}')
    rows = _answers([line + "\n", '{"id": "next", "op": "chinchirorin.hand", "args": {"dice": [1, 1, 1]}}\n'])
    assert rows[0]["id"] == "big" and "error" in rows[0] and "result" not in rows[0]
    assert rows[1] == {"id": "next", "result": {"hand": "pinzoro", "value": None}}
