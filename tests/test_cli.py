"""The arbiter command line: replay, legal, infer and show, with their exit codes (the demo:
tests/test_demo.py)."""

import json
import random
import subprocess
import sys

import pytest

from host.cli import main
from host.games import rules_for
from host.record import RecordedTurn, new_record, write_json, write_text

PYLOS_START = "....,....,....,..../...,...,.../..,../. L 15 15"
SPARKS_START = "WBWB,BWBW,WBWB,BWBW/...,...,.../..,../. W"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def record_file(tmp_path, text, name="game.pgn"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def random_game(game, seed, turns=None, **options):
    rules = rules_for(game, **options)
    rng = random.Random(seed)
    position = rules.start(rng) if game == "sparklies" else rules.start()
    start = position
    played = []
    while rules.outcome(position) is None and (turns is None or len(played) < turns):
        turn = rules.random_turn(position, rng)
        played.append(rules.format_turn(turn))
        position = rules.play(position, turn)
    over = rules.outcome(position)
    record = new_record(rules, start=start, Result=over.result if over else "*")
    record = type(record)(record.tags, tuple(RecordedTurn(t) for t in played))
    return rules, record, position


def test_replay_legal_record(tmp_path, capsys):
    path = record_file(tmp_path, '[Game "pylos"]\n\n1. 1a1 1b1 2. 1a2 *\n')
    code, out, err = run(capsys, "replay", path)
    assert code == 0, err
    assert "3 turns, all legal" in out
    assert "final: ....,....,L...,LD../...,...,.../..,../. D 13 14" in out
    assert "result: *" in out


def test_replay_illegal_turn_exit_1_with_number_token_and_reason(tmp_path, capsys):
    path = record_file(tmp_path, '[Game "pylos"]\n\n1. 1a1 1b1 2. 1a1 *\n')
    code, out, _ = run(capsys, "replay", path)
    assert code == 1
    assert "illegal turn 3 (1a1)" in out and "1a1" in out
    code, out, _ = run(capsys, "replay", path, "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and data["turns"] == 2
    assert data["error"]["turn"] == 3 and data["error"]["move"] == "1a1" and data["error"]["reason"]
    assert data["final"] == "....,....,....,LD../...,...,.../..,../. L 14 14"


def test_replay_unparsable_exit_2_with_location(tmp_path, capsys):
    path = record_file(tmp_path, '[Game "pylos"]\n\n1. 1a1 {oops\n')
    code, out, err = run(capsys, "replay", path)
    assert code == 2 and out == ""
    assert "line 3, column 8" in err and "never closed" in err


def test_replay_unknown_game_and_bad_variant_are_input_errors(tmp_path, capsys):
    code, _, err = run(capsys, "replay", record_file(tmp_path, '[Game "chess"]\n\n*\n'))
    assert code == 2 and "chess" in err
    code, _, err = run(capsys, "replay", record_file(tmp_path, '[Game "pylos"]\n[Variant "grown-up"]\n\n*\n'))
    assert code == 2 and "grown-up" in err


def test_replay_missing_file_and_binary_file(tmp_path, capsys):
    code, _, err = run(capsys, "replay", str(tmp_path / "nope.pgn"))
    assert code == 2 and "cannot read" in err
    path = tmp_path / "bin.pgn"
    path.write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and "not UTF-8" in err


@pytest.mark.parametrize("game", ["pylos", "sparks"])
def test_replay_finished_random_games_in_both_formats(tmp_path, capsys, game):
    for seed in range(5):
        rules, record, final = random_game(game, seed)
        for name, text in (("g.pgn", write_text(record)), ("g.json", write_json(record))):
            code, out, err = run(capsys, "replay", record_file(tmp_path, text, name), "--json")
            data = json.loads(out)
            assert code == 0, (data, err)
            assert data["final"] == rules.format_position(final)
            assert data["result"] == rules.outcome(final).result
            assert data["turns"] == len(record.turns)


def test_replay_sparklies_needs_start(tmp_path, capsys):
    code, _, err = run(capsys, "replay", record_file(tmp_path, '[Game "sparklies"]\n[Size "3x3"]\n\n*\n'))
    assert code == 2 and "Start" in err


def test_replay_sparklies_game(tmp_path, capsys):
    rules, record, final = random_game("sparklies", 3, width=4, height=3)
    code, out, err = run(capsys, "replay", record_file(tmp_path, write_text(record)), "--json")
    assert code == 0, err
    assert json.loads(out)["final"] == rules.format_position(final)


def test_result_that_contradicts_the_rules_is_reported(tmp_path, capsys):
    rules, record, final = random_game("pylos", 11)
    wrong = "0-1" if rules.outcome(final).result == "1-0" else "1-0"
    tags = {**record.tags, "Result": wrong}
    code, out, _ = run(capsys, "replay", record_file(tmp_path, write_text(type(record)(tags, record.turns))))
    assert code == 1 and f"says {wrong}" in out


def test_turn_after_game_over_is_illegal(tmp_path, capsys):
    rules, record, final = random_game("sparks", 5)
    turns = record.turns + (RecordedTurn("1a1:B2a1"),)
    code, out, _ = run(capsys, "replay", record_file(tmp_path, write_text(type(record)({**record.tags, "Result": "*"}, turns))), "--json")
    data = json.loads(out)
    assert code == 1 and data["error"]["turn"] == len(turns) and "already over" in data["error"]["reason"]


def test_legal_lists_every_turn(capsys):
    code, out, _ = run(capsys, "legal", "pylos")
    lines = out.split()
    assert code == 0 and len(lines) == 16 and "1a1" in lines and "2a1" not in lines
    code, out, _ = run(capsys, "legal", "pylos", "--count", "--position",
                       "LDLD,DLDL,LDLD,DLDL/...,...,.../..,../. L 7 7")
    assert code == 0 and int(out) > 9  # 9 placements on level 2 plus raises
    code, out, _ = run(capsys, "legal", "sparks")
    assert code == 0 and all(":" in line for line in out.split())
    code, _, err = run(capsys, "legal", "sparklies")
    assert code == 2 and "sparklies" in err


def test_legal_bad_position_is_exit_2_with_token(capsys):
    code, _, err = run(capsys, "legal", "pylos", "--position", "....,....,....,..X./...,...,.../..,../. L 15 15")
    assert code == 2 and "'X'" in err


def test_infer_found_none_and_json(capsys):
    code, out, _ = run(capsys, "infer", "pylos", "--before", PYLOS_START,
                       "--after", "....,....,....,.L../...,...,.../..,../. D 14 15")
    assert code == 0 and out.strip() == "1b1"
    code, out, _ = run(capsys, "infer", "pylos", "--before", PYLOS_START,
                       "--after", "....,....,....,.D../...,...,.../..,../. D 15 14", "--json")
    data = json.loads(out)
    assert code == 1 and data["status"] == "none" and "1b1" in data["unexplained"]


def test_infer_sparks_and_sparklies(capsys):
    rules = rules_for("sparks")
    start = rules.start()
    turn = next(iter(rules.legal_turns(start)))
    after = rules.format_position(rules.play(start, turn))
    code, out, _ = run(capsys, "infer", "sparks", "--before", SPARKS_START, "--after", after)
    assert code == 0 and rules.play(start, rules.parse_turn(start, out.strip())) == rules.play(start, turn)

    srules, record, _ = random_game("sparklies", 7, turns=4, width=5, height=5)
    from host.record import replay
    rep = replay(record)
    before, after = (srules.format_position(p) for p in rep.positions[-2:])
    code, out, _ = run(capsys, "infer", "sparklies", "--before", before, "--after", after, "--json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "found"
    assert srules.play(rep.positions[-2], srules.parse_turn(rep.positions[-2], data["turn"])) == rep.positions[-1]
    code, _, err = run(capsys, "infer", "sparklies", "--before", before, "--after", after, "--size", "9x9")
    assert code == 2 and "5x5" in err


def test_show_position_and_record(tmp_path, capsys):
    code, out, _ = run(capsys, "show", "--position", SPARKS_START)
    assert code == 0 and "level 1" in out and "4  W B W B" in out
    code, out, _ = run(capsys, "show", "--position", PYLOS_START)
    assert code == 0 and "level 4" in out
    path = record_file(tmp_path, '[Game "pylos"]\n\n1. 1a1 1b1 2. 1a2 *\n')
    code, out, _ = run(capsys, "show", path, "--turn", "1")
    assert code == 0 and "after 1 of 3 turns" in out and "1. 1a1" in out
    code, _, err = run(capsys, "show", path, "--turn", "9")
    assert code == 2 and "3 legal turns" in err


def test_installed_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "host.cli", "legal", "sparks", "--count"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and int(proc.stdout) > 0
