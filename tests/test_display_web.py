"""The web display in a real headless Chromium: a real daemon referees boards the tests move
by hand, publishing to a real Mosquitto; `arbiter display`'s server follows them; the pages
must show each position, whose turn, the illegal banner, the question (and send a tap back
to the referee), the hall of boards, and come back after the broker restarts. Screenshots of
each game go to docs/images for the documentation."""

from __future__ import annotations

import random
from importlib import resources

import pytest
from playwright.sync_api import expect

from host.record import read_any, replay
from conftest_mqtt import mosquitto  # noqa: F401  (fixture)
from display_kit import (TOKEN, LiveBoard, board_cells, browser, display, expected_cells,  # noqa: F401
                         page_for, screenshot)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
WAIT = 10_000  # ms: Playwright's assertions retry until then


@pytest.fixture
def boards(mosquitto, tmp_path):  # noqa: F811
    made: list[LiveBoard] = []

    def make(board_id: str, game: str, **kwargs) -> LiveBoard:
        board = LiveBoard(mosquitto, tmp_path, board_id, game, **kwargs)
        made.append(board)
        return board
    yield make
    for board in made:
        board.stop()


def shows_position(page, board) -> None:
    expected = expected_cells(board.rules, board.position)
    page.wait_for_function("n => document.querySelectorAll('#board svg [data-cell].ball, #board svg [data-cell].tile')"
                           ".length >= 0", arg=0)
    for _ in range(100):
        if board_cells(page) == expected:
            return
        page.wait_for_timeout(100)
    assert board_cells(page) == expected


def test_the_board_page_follows_a_pylos_game_and_flags_an_illegal_move(browser, display, boards):  # noqa: F811
    board = boards("club-1", "pylos")
    board.show(board.rules.cells(board.position))
    page = page_for(browser, display, "/board/club-1")
    expect(page.locator("#turn")).to_have_text("Light to move", timeout=WAIT)
    expect(page.locator("#link")).to_have_text("Connected", timeout=WAIT)
    shots = []
    for n, (move, next_player) in enumerate([("1b2", "Dark"), ("1c2", "Light"), ("1b3", "Dark"),
                                             ("1c3", "Light")], start=1):
        board.play(move)
        expect(page.locator("#moves li")).to_have_count(n, timeout=WAIT)
        expect(page.locator("#moves li.last .move")).to_have_text(move)
        expect(page.locator("#turn")).to_have_text(f"{next_player} to move")
        expect(page.locator(f"#board svg .changed[data-cell='{move}']")).to_have_count(1)
        shows_position(page, board)
        if n in (2, 4):
            shots.append(screenshot(page, f"display-pylos-{n}.png"))
    assert shots[0] != shots[1], "two positions gave the same screenshot"
    expect(page.locator("#counts")).to_contain_text("Light in reserve13")
    # a dark ball on light's turn: the banner says what and where, until the ball is taken off
    cells = board.rules.cells(board.position)
    board.show({**cells, "1a1": "D"})
    banner = page.locator("#illegal")
    expect(banner).to_be_visible(timeout=WAIT)
    expect(page.locator("#illegal-reason")).to_contain_text("1a1")
    expect(page.locator("#illegal-cells li[data-cell='1a1']")).to_have_text(
        "1a1: should be empty, the board shows a dark ball")
    expect(page.locator("#board svg .flagged[data-cell='1a1']")).to_have_count(1)
    screenshot(page, "display-pylos-illegal.png")
    board.show(cells)
    expect(banner).to_be_hidden(timeout=WAIT)
    expect(page.locator("#board svg .flagged")).to_have_count(0)
    # the record offered for download is the game so far
    record = page.request.get(display.server.url + "board/club-1/record.pgn")
    assert record.ok and "[Game \"pylos\"]" in record.text() and "1c3" in record.text()
    assert page.errors == []


def test_a_tap_on_a_candidate_confirms_the_turn_with_the_referee(browser, display, boards):  # noqa: F811
    """Reed switches see a ball raised from the base but not where it went: the page asks,
    a tap answers, and the referee records the tapped turn."""
    board = boards("club-2", "pylos", reeds=True)
    board.show(board.rules.cells(board.position))
    for move in ("1a1", "1b1", "1a2", "1b2", "1c1", "1d1", "1c2", "1d2", "1a4", "1b4"):
        board.play(move)
    board.wait_turns(10)
    reader = page_for(browser, display, "/board/club-2")  # no token: read-only
    tablet = page_for(browser, display, f"/board/club-2#token={TOKEN}")
    assert "token" not in tablet.url, "the token must leave the address bar"
    lifted = {**board.rules.cells(board.position), "1a4": "."}
    board.show(lifted)
    board.press("end-turn", "light")
    expect(tablet.locator("#question")).to_be_visible(timeout=WAIT)
    candidates = tablet.locator("#candidates button")
    expect(candidates).to_have_count(3)
    assert sorted(candidates.all_inner_texts()) == ["It was 1a4-2a1", "It was 1a4-2b1", "It was 1a4-2c1"]
    expect(reader.locator("#candidates button").first).to_be_disabled(timeout=WAIT)
    expect(reader.locator("#question-hint")).to_contain_text("confirm button")
    screenshot(tablet, "display-pylos-question.png")
    tablet.locator("#candidates button[data-move='1a4-2b1']").click()
    expect(tablet.locator("#reply")).to_have_text("Done: confirm 1a4-2b1", timeout=WAIT)
    board.wait_turns(11)
    assert board.rules.format_turn(board.daemon.referee.turns[-1]) == "1a4-2b1"
    expect(tablet.locator("#question")).to_be_hidden(timeout=WAIT)
    expect(reader.locator("#moves li.last .move")).to_have_text("1a4-2b1", timeout=WAIT)
    # a wrong token is refused by the daemon, and the page says so
    reader.evaluate(f"localStorage.setItem('arbiter-token:club-2', 'not-{TOKEN}')")
    reader.reload()
    expect(reader.locator("#actions")).to_be_visible(timeout=WAIT)
    reader.locator("#end-turn").click()
    expect(reader.locator("#reply")).to_have_text("Refused: wrong token", timeout=WAIT)
    assert tablet.errors == [] and reader.errors == []


def test_the_hall_lists_every_board_online(browser, display, boards):  # noqa: F811
    first, second = boards("table-1", "pylos"), boards("table-2", "sparks")
    for board in (first, second):
        board.show(board.rules.cells(board.position))
    first.play("1a1")
    page = page_for(browser, display, "/")
    cards = page.locator(".card")
    expect(cards).to_have_count(2, timeout=WAIT)
    expect(page.locator(".card[data-board='table-1'] .card-turn")).to_have_text("Dark to move")
    expect(page.locator(".card[data-board='table-2'] .card-turn")).to_have_text("White to move")
    expect(page.locator(".card[data-board='table-1'] .card-last")).to_have_text("last: 1a1")
    first.show({**first.rules.cells(first.position), "1d4": "D", "1d3": "D"})
    expect(page.locator(".card[data-board='table-1'] .illegal-badge")).to_be_visible(timeout=WAIT)
    screenshot(page, "display-hall.png")
    second.stop()  # its daemon says offline: it leaves the hall
    expect(cards).to_have_count(1, timeout=WAIT)
    page.locator(".card[data-board='table-1']").click()
    expect(page).to_have_url(display.server.url + "board/table-1")
    assert page.errors == []


def test_sparks_and_sparklies_pages_draw_their_boards(browser, display, boards):  # noqa: F811
    sparks = boards("sparks-1", "sparks")
    sparks.show(sparks.rules.cells(sparks.position))
    page = page_for(browser, display, "/board/sparks-1")
    expect(page.locator("#turn")).to_have_text("White to move", timeout=WAIT)
    example = replay(read_any((resources.files("host") / "examples" / "sparks.pgn").read_text("utf-8")))
    for n, turn in enumerate(example.turns, start=1):  # the example game, to its end
        sparks.play(sparks.rules.format_turn(turn))
        expect(page.locator("#moves li")).to_have_count(n, timeout=WAIT)
        shows_position(page, sparks)
        if n == 12:
            expect(page.locator("#counts")).to_contain_text("Sparks on the board")
            screenshot(page, "display-sparks.png")
    expect(page.locator("#turn")).to_have_text("Game over", timeout=WAIT)
    expect(page.locator("#result")).to_have_text(f"Black wins (0-1): {sparks.rules.outcome(sparks.position).reason}")
    expect(page.locator("#actions")).to_be_hidden()
    rng = random.Random(2)

    rules_options = {"width": 5, "height": 5}
    grid = boards("grid-1", "sparklies", options=rules_options, start=random.Random(4))
    grid.show(grid.rules.cells(grid.position))
    page = page_for(browser, display, "/board/grid-1")
    expect(page.locator("#turn")).to_have_text("Black to move", timeout=WAIT)
    first = None
    for n in range(1, 4):
        turn = grid.rules.random_turn(grid.position, rng)
        grid.play(grid.rules.format_turn(turn))
        expect(page.locator("#moves li")).to_have_count(n, timeout=WAIT)
        shows_position(page, grid)
        shot = screenshot(page, "display-sparklies.png")
        assert shot != first
        first = shot
    expect(page.locator("#counts")).to_contain_text("Black controls")
    # a turn under way: the squares its chain has changed so far are marked as it goes
    rules, before = grid.rules, grid.position
    turn = rules.random_turn(before, rng)
    state = rules.begin_turn(before).apply(rules.steps(before, turn)[0])
    grid.show(state.cells())
    changed = [n for n, v in state.cells().items() if v != rules.cells(before)[n]]
    assert changed
    for cell in changed:
        expect(page.locator(f"#board svg .active[data-cell='{cell}']")).to_have_count(1, timeout=WAIT)
    expect(page.locator("#moves li")).to_have_count(3)  # not a move yet
    assert page.errors == []


def test_the_page_says_when_the_broker_is_gone_and_recovers(browser, display, boards, mosquitto):  # noqa: F811
    board = boards("club-3", "pylos")
    board.show(board.rules.cells(board.position))
    page = page_for(browser, display, "/board/club-3")
    expect(page.locator("#link")).to_have_text("Connected", timeout=WAIT)
    mosquitto.stop()
    expect(page.locator("#link")).to_contain_text("Disconnected from the broker", timeout=WAIT)
    mosquitto.start()
    expect(page.locator("#link")).to_have_text("Connected", timeout=20_000)
    board.play("1d4")
    expect(page.locator("#moves li.last .move")).to_have_text("1d4", timeout=20_000)
    expect(page.locator("#turn")).to_have_text("Dark to move")
    assert page.errors == []


def test_the_page_says_when_the_display_server_is_gone(browser, mosquitto, boards):  # noqa: F811
    from host.display_cli import start_display
    shown = start_display(mosquitto.url, {}, port=0)
    port = shown.server.port
    board = boards("club-4", "pylos")
    board.show(board.rules.cells(board.position))
    page = page_for(browser, shown, "/board/club-4")
    expect(page.locator("#turn")).to_have_text("Light to move", timeout=WAIT)
    shown.stop()
    expect(page.locator("#link")).to_contain_text("cannot reach the display server", timeout=WAIT)
    again = start_display(mosquitto.url, {}, port=port)
    try:
        board.play("1a1")
        expect(page.locator("#link")).to_have_text("Connected", timeout=20_000)
        expect(page.locator("#moves li.last .move")).to_have_text("1a1", timeout=WAIT)
    finally:
        again.stop()


CONTRAST = """() => {
  const lum = (rgb) => { const [r, g, b] = rgb.map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
                         return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const parse = (s) => { const m = s.match(/rgba?\\(([^)]+)\\)/); if (!m) return null; const p = m[1].split(',').map(Number);
                         return { rgb: p.slice(0, 3), a: p.length > 3 ? p[3] : 1 }; };
  const background = (el) => { for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor);
                                 if (c && c.a > 0.5) return c.rgb; } return [255, 255, 255]; };
  const bad = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg') || el.offsetParent === null && getComputedStyle(el).position !== 'fixed') continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const style = getComputedStyle(el);
    const fg = parse(style.color).rgb, bg = background(el);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < need) bad.push(`${el.tagName}#${el.id}.${el.className}: "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)} < ${need}`);
  }
  return bad;
}"""


def test_every_text_on_the_pages_passes_a_contrast_check(browser, display, boards):  # noqa: F811
    """WCAG AA contrast (4.5:1, 3:1 for large text) for every text of the pages in each state
    worth seeing: playing, flagged, asking, the hall; the drawing's own letters are checked
    against their fills in tests/test_display_svg.py."""
    camera = boards("contrast-1", "pylos")
    camera.show(camera.rules.cells(camera.position))
    camera.play("1a1")
    page = page_for(browser, display, f"/board/contrast-1#token={TOKEN}")
    expect(page.locator("#moves li")).to_have_count(1, timeout=WAIT)
    assert page.evaluate(CONTRAST) == []
    camera.show({**camera.rules.cells(camera.position), "1d4": "L"})  # light again, on dark's turn
    expect(page.locator("#illegal")).to_be_visible(timeout=WAIT)
    assert page.evaluate(CONTRAST) == []
    reeds = boards("contrast-2", "pylos", reeds=True)
    reeds.show(reeds.rules.cells(reeds.position))
    for move in ("1a1", "1b1", "1a2", "1b2", "1c1", "1d1", "1c2", "1d2", "1a4", "1b4"):
        reeds.play(move)
    reeds.wait_turns(10)
    reeds.show({**reeds.rules.cells(reeds.position), "1a4": "."})
    reeds.press("end-turn", "light")
    page = page_for(browser, display, f"/board/contrast-2#token={TOKEN}")
    expect(page.locator("#question")).to_be_visible(timeout=WAIT)
    assert page.evaluate(CONTRAST) == []
    hall = page_for(browser, display, "/")
    expect(hall.locator(".card")).to_have_count(2, timeout=WAIT)
    assert hall.evaluate(CONTRAST) == []
    phone = page_for(browser, display, "/board/contrast-2", width=390, height=844)
    expect(phone.locator("#question")).to_be_visible(timeout=WAIT)
    assert phone.evaluate(CONTRAST) == []
    # the check itself: faint grey text on the page is caught
    phone.evaluate("document.querySelector('#moves li').style.color = '#bbbbbb'")
    assert any("1a1" in bad for bad in phone.evaluate(CONTRAST))


@pytest.mark.parametrize("width, height, columns", [(390, 844, 1), (1024, 768, 2), (1920, 1080, 2)])
def test_the_board_page_fits_a_phone_a_tablet_and_a_tv(browser, display, boards, width, height, columns):  # noqa: F811
    """No sideways scrolling; the drawing and whose turn on the first screen of a tablet and
    a TV (one column under the other on a phone); type grows with the screen."""
    board = boards(f"screen-{width}", "pylos")
    board.show(board.rules.cells(board.position))
    for move in ("1a1", "1b1", "1c1"):
        board.play(move)
    page = page_for(browser, display, f"/board/screen-{width}", width=width, height=height)
    expect(page.locator("#moves li")).to_have_count(3, timeout=WAIT)
    layout = page.evaluate("""() => {
        const box = (s) => document.querySelector(s).getBoundingClientRect();
        return {scroll: document.documentElement.scrollWidth, inner: innerWidth, svg: box('#board svg'),
                turn: box('#turn'), font: parseFloat(getComputedStyle(document.body).fontSize)}; }""")
    assert layout["scroll"] <= layout["inner"], "the page scrolls sideways"
    svg, turn = layout["svg"], layout["turn"]
    assert svg["width"] > 0.4 * width / columns and svg["right"] <= width
    side_by_side = turn["left"] >= svg["right"] - 1
    assert side_by_side == (columns == 2)
    if columns == 2:
        assert svg["bottom"] <= height and turn["bottom"] <= height  # all on the first screen
    assert page.errors == []
    if width == 1920:
        assert layout["font"] > 20  # readable across the room
