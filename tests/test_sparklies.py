"""Sparklies rules engine: options, notation, every rule of RULINGS.md, the end of the game."""

from __future__ import annotations

import random

import pytest

from host.games import rules_for, rules_from_tags
from host.games.base import IllegalTurn, NotationError, OptionError, RulesError
from host.games.sparklies import SparkliesPosition, SparkliesRules, SparkliesTurn


def colours(rows: str) -> dict[str, str]:
    """Colour map from rows written top row first, e.g. 'GGG/BRG/BGR' for a 3x3 board."""
    out = {}
    lines = rows.split("/")
    for k, line in enumerate(lines):
        row = len(lines) - k
        for c, letter in enumerate(line):
            if letter != "-":
                out[f"{'abcdefghijklmnopqrstuvwxyz'[c]}{row}"] = letter
    return out


# The quadrille of sparklies.md (row numbers as in the text; adjacency is the same): White to
# move, b1 green (white), a2 blue (white), b2 red (black), c1 red (white), c2 green (free).
QUAD = SparkliesRules(width=3, height=3)
QUAD_POS = QUAD.make_position(colours("GGG/BRG/BGR"), black=["b2"], white=["a2", "b1", "c1"],
                              to_move="white")


# -- options, tags, registry ---------------------------------------------------------
def test_defaults_and_tags():
    r = SparkliesRules()
    assert (r.variant, r.width, r.height, r.wrap) == ("subtle", 9, 9, False)
    assert r.game == "sparklies" and r.players == ("black", "white")
    assert r.tags() == {"Variant": "subtle", "Size": "9x9"}
    r2 = SparkliesRules("speed", width=7, height=5, dead=["e5", "a1", "c3"], wrap=True)
    assert r2.tags() == {"Variant": "speed", "Size": "7x5", "Dead": "a1 c3 e5", "Wrap": "true"}
    back = SparkliesRules.from_tags({"Game": "sparklies", **r2.tags(), "Event": "ignored"})
    assert back.tags() == r2.tags()
    assert SparkliesRules.from_tags({}).tags() == r.tags()


def test_registry_builds_sparklies():
    r = rules_for("sparklies", None, width=5, height=4)
    assert isinstance(r, SparkliesRules) and r.variant == "subtle" and r.tags()["Size"] == "5x4"
    r2 = rules_from_tags({"Game": "Sparklies", "Variant": "speed", "Size": "6x6"})
    assert isinstance(r2, SparkliesRules) and r2.variant == "speed" and r2.width == 6


@pytest.mark.parametrize("kwargs, word", [
    (dict(variant="fast"), "variant"),
    (dict(width=2), "width"),
    (dict(height=27), "height"),
    (dict(width=True), "width"),
    (dict(dead=["j1"]), "dead"),
    (dict(dead=["e0"]), "dead"),
    (dict(wrap="maybe"), "wrap"),
])
def test_bad_options_name_the_option(kwargs, word):
    variant = kwargs.pop("variant", "subtle")
    with pytest.raises(OptionError, match=word):
        SparkliesRules(variant, **kwargs)


@pytest.mark.parametrize("tags, tag", [
    ({"Variant": "turbo"}, "[Variant]"),
    ({"Size": "9"}, "[Size]"),
    ({"Size": "2x9"}, "[Size]"),
    ({"Size": "axb"}, "[Size]"),
    ({"Dead": "e5 z99"}, "[Dead]"),
    ({"Wrap": "sometimes"}, "[Wrap]"),
])
def test_bad_tags_name_the_tag(tags, tag):
    with pytest.raises(OptionError) as info:
        SparkliesRules.from_tags(tags)
    assert tag in str(info.value)


def test_all_dead_is_rejected():
    with pytest.raises(OptionError, match="every cell is dead"):
        SparkliesRules(width=3, height=3, dead=[f"{c}{r}" for c in "abc" for r in (1, 2, 3)])


# -- positions -----------------------------------------------------------------------
def test_start_is_random_seeded_and_uncontrolled():
    r = SparkliesRules()
    a, b = r.start(random.Random(3)), r.start(random.Random(3))
    assert a == b and a != r.start(random.Random(4))
    assert a.black == a.white == 0 and a.to_move == 0
    assert a.red | a.green | a.blue == r.board.live
    assert not (a.red & a.green or a.red & a.blue or a.green & a.blue)
    assert r.outcome(a) is None and r.to_move(a) == "black"


def test_position_string_round_trip_and_layout():
    r = SparkliesRules(width=4, height=3, dead=["b2"])
    p = r.make_position(colours("RGBR/G-BR/BBGG"), black=["a1", "d3"], white=["c2"], to_move="white")
    text = r.format_position(p)
    assert text == "R.G.B.Rb/G.--BwR./BbB.G.G. w"
    assert r.parse_position(text) == p
    assert r.cells(p)["a1"] == "Bb" and r.cells(p)["d3"] == "Rb" and "b2" not in r.cells(p)
    assert len(r.cells(p)) == 11
    assert SparkliesRules.geometry_from_position(text) == (4, 3, ("b2",))
    diagram = r.diagram(p)
    assert "White to move" in diagram and "--" in diagram and diagram.splitlines()[1].startswith(" 3")


@pytest.mark.parametrize("text, words", [
    ("G.G.G./BwRbG./B.GwRw", "player to move"),
    ("G.G.G./BwRbG. w", "expected 3 rows"),
    ("G.G.G./BwRbG./B.GwR w", "row 1 has 2.5 cells"),
    ("G.G.X./BwRbG./B.GwRw w", "expected a colour"),
    ("G.G.Gx/BwRbG./B.GwRw w", "controller"),
    ("G.G.G./BwRbG./B.GwRw x", "player to move: b or w"),
    ("G.G.G./Bw--G./B.GwRw w", "not a dead cell"),
])
def test_parse_position_errors_name_the_place(text, words):
    with pytest.raises(NotationError, match=words):
        QUAD.parse_position(text)


def test_parse_position_error_column():
    with pytest.raises(NotationError) as info:
        QUAD.parse_position("G.G.G./BwRbX./B.GwRw w")
    assert info.value.column == 11 and info.value.token == "X." and "c2" in str(info.value)


def test_dead_cell_must_be_written_as_dashes():
    r = SparkliesRules(width=3, height=3, dead=["b2"])
    with pytest.raises(NotationError, match="b2 is a dead cell"):
        r.parse_position("G.G.G./BwRbG./B.GwRw w")
    assert r.parse_position("G.G.G./Bw--G./B.GwRw w").red == 1 << 2


def test_sizes_3x3_and_26x26_names():
    big = SparkliesRules(width=26, height=26)
    assert big.board.names[0] == "a1" and big.board.names[-1] == "z26"
    assert big.board.names[25 * 26 + 19] == "t26"
    p = big.start(random.Random(1))
    assert big.parse_position(big.format_position(p)) == p
    assert big.parse_turn_text("t20:t20G").control == 19 * 26 + 19
    small = SparkliesRules(width=3, height=3)
    assert small.board.nb[small.board.by_name["b2"]] == tuple(
        small.board.by_name[n] for n in ("b1", "a2", "c2", "b3"))


def test_rectangular_board():
    r = SparkliesRules(width=5, height=3)
    assert r.tags()["Size"] == "5x3"
    assert r.board.by_name["e3"] == 14
    with pytest.raises(NotationError, match="off the 5x3 board"):
        r.parse_turn_text("a4:a4R")
    p = r.start(random.Random(2))
    assert len(r.format_position(p).split()[0].split("/")) == 3
    assert r.parse_position(r.format_position(p)) == p


# -- turns: notation -------------------------------------------------------------------
def test_turn_notation_round_trip():
    t = QUAD.parse_turn(QUAD_POS, "a1:b1B,b2R,c2B,b2G,c1G,b1B,c2B")
    assert t.control == 0 and t.pings[0] == (1, "B") and len(t.pings) == 7
    assert QUAD.format_turn(t) == "a1:b1B,b2R,c2B,b2G,c1G,b1B,c2B"


@pytest.mark.parametrize("text, words", [
    ("a1b1B", "':'"),
    ("a1:b1X", "colour letter R, G or B"),
    ("a1:b1b", "colour letter"),
    ("a1:", "expected a ping"),
    ("a1:b1B,,c2B", "expected a ping"),
    ("q1:b1B", "off the 3x3 board"),
    (":b1B", "control square or -"),
    ("a1:11B", "square name"),
])
def test_turn_notation_errors(text, words):
    with pytest.raises(NotationError, match=words):
        QUAD.parse_turn(QUAD_POS, text)


# -- rules -----------------------------------------------------------------------------
def test_quadrille_cycles():
    """sparklies.md: b1 to blue captures b2, b2 kept red captures c2, c2 to blue activates b2
    and c1 (a quadrille); b2 and c1 to green activate b1 and c2 again; cycling continues."""
    tip = QUAD.begin_turn(QUAD_POS)
    from host.games.base import Step
    for step, active in [(Step("control", "a1", "w"), ()), (Step("activate", "b1"), ("b1",)),
                         (Step("deactivate", "b1", "B"), ("b2",)),
                         (Step("deactivate", "b2", "R"), ("c2",)),
                         (Step("deactivate", "c2", "B"), ("c1", "b2")),
                         (Step("deactivate", "b2", "G"), ("c1",)),
                         (Step("deactivate", "c1", "G"), ("b1", "c2")),
                         (Step("deactivate", "b1", "R"), ("c2",)),
                         (Step("deactivate", "c2", "R"), ("c1", "b2")),
                         (Step("deactivate", "c1", "B"), ("b1", "b2")),
                         (Step("deactivate", "b2", "B"), ("b1", "c2"))]:
        tip = tip.apply(step)
        assert tip.active_squares() == active
    end = QUAD.play(QUAD_POS, QUAD.parse_turn(QUAD_POS, "a1:b1B,b2R,c2B,b2G,c1G,b1B,c2B"))
    assert QUAD.format_position(end) == "G.G.G./BwGwBw/BwBwGw b"
    cycled = QUAD.play(QUAD_POS, QUAD.parse_turn(QUAD_POS, "a1:b1B,b2R,c2B,b2G,c1G,b1R,c2R,b2B,c1B,b1B,c2B"))
    assert QUAD.format_position(cycled) == "G.G.G./BwBwBw/BwBwBw b"


def test_capture_of_opponent_square_and_unchanged_colour_ping_captures():
    t = QUAD.parse_turn(QUAD_POS, "a1:b1B,b2R,c2B,c1B,b2R")
    after = QUAD.play(QUAD_POS, t)
    assert QUAD.cells(after)["b2"] == "Rw"           # taken from black
    assert QUAD.cells(after)["c2"] == "Bw"           # b2 kept red and still captured c2
    with pytest.raises(IllegalTurn, match="c2 is not active"):
        QUAD.parse_turn(QUAD_POS, "a1:b1B,c2R")         # without b2's ping, c2 is never active


def test_own_inactive_square_is_reactivated():
    tip = QUAD.begin_turn(QUAD_POS)
    from host.games.base import Step
    for step in (Step("control", "a1", "w"), Step("activate", "b1"), Step("deactivate", "b1", "B"),
                 Step("deactivate", "b2", "R"), Step("deactivate", "c2", "B")):
        tip = tip.apply(step)
    assert "c1" in tip.active_squares()                # white's own c1, captured again
    assert "c1" not in tip.owed_markers()              # already white: no marker to lay
    with pytest.raises(IllegalTurn, match="active squares left: c1 b2"):
        QUAD.parse_turn(QUAD_POS, "a1:b1B,b2R,c2B")


def test_already_active_square_stays_active_once():
    # after c2B, b2 is active; c1 to blue captures b2 again: it is still to be pinged once
    t = QUAD.parse_turn(QUAD_POS, "a1:b1B,b2R,c2B,c1B,b2R")
    assert len(t.pings) == 5
    with pytest.raises(IllegalTurn, match="b2 is not active .ping 6.: no square is active"):
        QUAD.parse_turn(QUAD_POS, "a1:b1B,b2R,c2B,c1B,b2R,b2R")


def speed_pair() -> tuple[SparkliesRules, SparkliesRules, SparkliesPosition]:
    """b2 green (free) between b1 red (black's, to be pinged) and a2 red (white's)."""
    sub, spd = SparkliesRules(width=3, height=3), SparkliesRules("speed", width=3, height=3)
    p = sub.make_position(colours("BBB/RGB/BRB"), black=["b1"], white=["a2"])
    return sub, spd, p


def test_capture_only_in_speed():
    sub, spd, p = speed_pair()
    assert sub.cells(sub.play(p, sub.parse_turn(p, "c3:b1R")))["b2"] == "G."
    with pytest.raises(IllegalTurn, match="b2 is not active"):
        sub.parse_turn(p, "c3:b1R,b2R")
    after = spd.play(p, spd.parse_turn(p, "c3:b1R,b2R"))
    assert spd.cells(after)["b2"] == "Rb"             # a2 (white's) counted as an attacker


def test_speed_forced_colour():
    _, spd, p = speed_pair()
    with pytest.raises(IllegalTurn, match="b2 must turn R"):
        spd.parse_turn(p, "c3:b1R,b2G")
    with pytest.raises(IllegalTurn, match="active squares left: b2"):
        spd.parse_turn(p, "c3:b1R")
    # the activation colour is free in speed
    assert spd.cells(spd.play(p, spd.parse_turn(p, "c3:b1G")))["b1"] == "Gb"


def test_dead_cells_are_not_neighbours():
    """A 3x3 with b2 dead: b1 and a2 are no longer next to b2, and a capture through it fails."""
    alive = SparkliesRules(width=3, height=3)
    holed = SparkliesRules(width=3, height=3, dead=["b2"])
    assert holed.board.nb[holed.board.by_name["b1"]] == (0, 2)
    # a1 green (free) attacked by b1 red and a2 red (black's): works on both boards
    for r in (alive, holed):
        cols = colours("BBB/RBB/GRB") if r is alive else colours("BBB/R-B/GRB")
        p = r.make_position(cols, black=["b1", "a2"])
        assert r.cells(r.play(p, r.parse_turn(p, "c3:b1R,a1G")))["a1"] == "Gb"
    with pytest.raises(NotationError, match="dead cell"):
        holed.parse_turn_text("b2:a1R")
    # b2 dead: never controlled, not counted, the game ends with 8 squares
    p = holed.make_position("R", black=["a1", "b1", "c1", "a2"], white=["c2", "a3", "b3", "c3"])
    assert holed.outcome(p).result == "1/2-1/2"


def test_wrap_around_neighbours_and_capture():
    r = SparkliesRules(width=4, height=3, wrap=True)
    nb = {r.board.names[j] for j in r.board.nb[r.board.by_name["a1"]]}
    assert nb == {"b1", "d1", "a2", "a3"}
    flat = SparkliesRules(width=4, height=3)
    # a1 green (free) next to d1 and a3 only across the edges, both red and black's
    cols = colours("RBBB/BBBB/GBBR")
    for rules, captured in ((r, True), (flat, False)):
        p = rules.make_position(cols, black=["d1", "a3"])
        if captured:
            assert rules.cells(rules.play(p, rules.parse_turn(p, "c2:d1R,a1R")))["a1"] == "Rb"
        else:
            after = rules.play(p, rules.parse_turn(p, "c2:d1R"))
            assert rules.cells(after)["a1"] == "G."


def test_activation_must_be_the_movers():
    with pytest.raises(IllegalTurn, match="b2 cannot be activated: white does not control it"):
        QUAD.parse_turn(QUAD_POS, "a1:b2R")
    assert QUAD.play(QUAD_POS, QUAD.parse_turn(QUAD_POS, "a1:a1B")).to_move == 0


def test_control_rules():
    with pytest.raises(IllegalTurn, match="b2 is already controlled by black"):
        QUAD.parse_turn(QUAD_POS, "b2:b1G")
    with pytest.raises(IllegalTurn, match="must take control of an uncontrolled square"):
        QUAD.parse_turn(QUAD_POS, "-:b1G")
    with pytest.raises(IllegalTurn, match="no ping"):
        QUAD.play(QUAD_POS, SparkliesTurn(0, ()))


def test_dash_control_when_none_is_left_and_scoring():
    r = SparkliesRules(width=3, height=3)
    p = r.make_position(colours("RGB/GBR/BRG"), black=["a1", "b1", "c1", "a2", "b2"],
                        white=["c2", "a3", "b3", "c3"], to_move="white")
    out = r.outcome(p)
    assert out.result == "1-0" and out.winner == "black" and "black 5, white 4" in out.reason
    t = r.parse_turn(p, "-:c3B")
    assert t.control is None and r.format_turn(t) == "-:c3B"
    with pytest.raises(IllegalTurn, match="active squares left: b3"):
        r.parse_turn(p, "-:c3R")                      # red c3 captures b3, which must be pinged
    with pytest.raises(IllegalTurn, match="already controlled"):
        r.parse_turn(p, "a1:c3B")
    assert r.play(p, t).to_move == 0
    assert r.random_turn(p, random.Random(1)).control is None
    white_wins = r.make_position("R", black=["a1", "b1"], white=["c1", "a2", "b2", "c2", "a3", "b3", "c3"])
    assert r.outcome(white_wins).result == "0-1"
    not_over = r.make_position("R", black=["a1"])
    assert r.outcome(not_over) is None


def test_game_ends_when_last_square_is_controlled():
    r = SparkliesRules(width=3, height=3, dead=["b2"])
    p = r.make_position("R", black=["a1", "b1", "c1"], white=["a2", "c2", "a3", "b3"])
    assert r.outcome(p) is None
    after = r.play(p, r.parse_turn(p, "c3:c3R"))
    out = r.outcome(after)
    assert out.result == "1/2-1/2" and out.winner is None and "black 4, white 4" in out.reason


def test_legal_turns_not_offered():
    with pytest.raises(NotImplementedError):
        list(QUAD.legal_turns(QUAD_POS))


def test_play_rejects_malformed_turn_objects():
    with pytest.raises(IllegalTurn, match="not a square"):
        QUAD.play(QUAD_POS, SparkliesTurn(0, ((99, "R"),)))
    with pytest.raises(IllegalTurn, match="not R, G or B"):
        QUAD.play(QUAD_POS, SparkliesTurn(0, ((1, "Y"),)))
    with pytest.raises(IllegalTurn, match="dead cell"):
        SparkliesRules(width=3, height=3, dead=["a1"]).play(QUAD_POS, SparkliesTurn(0, ((1, "R"),)))


def test_random_turn_is_legal_and_bounded():
    r = SparkliesRules()
    rng = random.Random(9)
    p = r.start(rng)
    for _ in range(30):
        t = r.random_turn(p, rng, max_pings=3)
        assert r.parse_turn(p, r.format_turn(t)) == t
        p = r.play(p, t)
    assert isinstance(p, SparkliesPosition)


def test_errors_are_rules_errors():
    for exc in (NotationError, IllegalTurn, OptionError):
        assert issubclass(exc, RulesError)
