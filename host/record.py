"""Game records: the PGN-like text format and its JSON twin (docs/formats.md).

A :class:`Record` holds text only (tags, turns as written, comments, timestamps); checking
the turns against the rules is :func:`replay`'s job, so a record that breaks the rules can
still be read, shown and reported on.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

from .games import Rules, RulesError, rules_from_tags

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
#: the tags written first, in this order; any others follow alphabetically
TAG_ORDER = ("Game", "Variant", "Size", "Dead", "Wrap", "ReserveRule", "Start", "Event", "Site", "Date",
             "Round", "Board", "Light", "Dark", "White", "Black", "Result")
JSON_FORMAT = "tabletop-arbiter-record"
JSON_VERSION = 1
_TS = re.compile(r"\[%ts\s+([^\]\s]+)\s*\]")
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_MOVE_NUMBER = re.compile(r"(\d+)\.(\.\.)?$")


class RecordError(RulesError):
    """A record that does not parse; says where (line and column) and what was expected."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        self.line = line
        self.column = column
        where = f"line {line}, column {column}: " if line is not None and column is not None else (
            f"line {line}: " if line is not None else "")
        super().__init__(where + message)


def unwritable(text: str) -> str | None:
    """Why neither format can carry a turn written ``text``, or None: the text format's
    reader would take it for nothing, white space between tokens, a comment, a move number
    or the result, so the JSON format refuses it too and a record converts either way."""
    if not text:
        return "is empty"
    if any(ch.isspace() for ch in text):
        return "contains white space"
    if text.startswith(";"):
        return "starts with ';', which starts a comment"
    if "{" in text:
        return "contains '{', which opens a comment"
    if text in RESULTS:
        return "is a result, not a turn"
    if _MOVE_NUMBER.match(text):
        return "reads as a move number"
    return None


@dataclass(frozen=True, slots=True)
class RecordedTurn:
    """One turn as written, with its wall-clock timestamp and comment if any."""

    text: str
    ts: str | None = None
    comment: str | None = None


@dataclass(frozen=True)
class Record:
    tags: Mapping[str, str]
    turns: tuple[RecordedTurn, ...] = ()
    #: a comment before the first turn
    preamble: str | None = None

    @property
    def result(self) -> str:
        return self.tags.get("Result", "*")


@dataclass(frozen=True)
class ReplayError:
    turn: int | None  # 1-based index of the turn, None for a record-level problem
    move: str | None
    reason: str


@dataclass(frozen=True)
class Replay:
    """What replaying a record found: every position reached (positions[0] is the start)."""

    rules: Rules
    positions: tuple[Any, ...]
    turns: tuple[Any, ...]
    result: str
    error: ReplayError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def final(self) -> Any:
        return self.positions[-1]


# -- text format ---------------------------------------------------------------------------


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _comment_text(turn: RecordedTurn) -> str | None:
    parts = []
    if turn.ts:
        parts.append(f"[%ts {turn.ts}]")
    if turn.comment:
        parts.append(turn.comment)
    return " ".join(parts) if parts else None


def ordered_tags(tags: Mapping[str, str]) -> list[tuple[str, str]]:
    known = [(k, tags[k]) for k in TAG_ORDER if k in tags]
    rest = sorted((k, v) for k, v in tags.items() if k not in TAG_ORDER)
    return known + rest


def write_text(record: Record, *, width: int = 79) -> str:
    """The record in the PGN-like text format; lines are wrapped at ``width``."""
    for name in record.tags:
        if not _TAG_NAME.fullmatch(name):
            raise RecordError(f"tag name {name!r} must be a letter followed by letters, digits or _")
    tags = dict(record.tags)
    tags.setdefault("Result", "*")
    lines = [f'[{k} "{_escape(v)}"]' for k, v in ordered_tags(tags)]
    tokens: list[str] = []
    if record.preamble:
        tokens.append("{" + record.preamble.replace("}", ")") + "}")
    for i, turn in enumerate(record.turns):
        why = unwritable(turn.text)
        if why:
            raise RecordError(f"turn {i + 1}: {turn.text!r} {why}")
        if i % 2 == 0:
            tokens.append(f"{i // 2 + 1}.")
        elif i % 2 == 1 and tokens and tokens[-1].startswith("{"):
            tokens.append(f"{i // 2 + 1}...")
        tokens.append(turn.text)
        comment = _comment_text(turn)
        if comment:
            tokens.append("{" + comment.replace("}", ")") + "}")
    tokens.append(tags["Result"])
    body, line = [], ""
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > width:
            body.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    body.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(body) + "\n"


class _Reader:
    """A cursor over the text that knows its line and column."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def where(self, pos: int | None = None) -> tuple[int, int]:
        pos = self.pos if pos is None else pos
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return line, column

    def error(self, message: str, pos: int | None = None) -> RecordError:
        return RecordError(message, *self.where(pos))

    def skip_space(self) -> None:
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch.isspace():
                self.pos += 1
            elif ch == ";":  # comment to the end of the line, as in PGN
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            else:
                return

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""


def _read_tag(r: _Reader) -> tuple[str, str]:
    start = r.pos
    r.pos += 1  # '['
    m = _TAG_NAME.match(r.text, r.pos)
    if not m:
        raise r.error("expected a tag name after '['")
    name = m.group(0)
    r.pos = m.end()
    while r.peek() in (" ", "\t"):
        r.pos += 1
    if r.peek() != '"':
        raise r.error(f'expected a quoted value after tag {name}, like [{name} "..."]')
    r.pos += 1
    value = []
    while True:
        ch = r.peek()
        if ch == "" or ch == "\n":
            raise r.error(f"tag {name}: the value is not closed with '\"'", start)
        r.pos += 1
        if ch == "\\":
            esc = r.peek()
            if esc not in ('"', "\\"):
                raise r.error(f"tag {name}: only \\\" and \\\\ are escapes")
            value.append(esc)
            r.pos += 1
        elif ch == '"':
            break
        else:
            value.append(ch)
    while r.peek() in (" ", "\t"):
        r.pos += 1
    if r.peek() != "]":
        raise r.error(f"tag {name}: expected ']' after the value")
    r.pos += 1
    return name, "".join(value)


def _read_comment(r: _Reader) -> str:
    start = r.pos
    end = r.text.find("}", r.pos + 1)
    if end < 0:
        raise r.error("comment opened with '{' is never closed", start)
    body = r.text[r.pos + 1:end]
    if "{" in body:
        raise r.error("comments cannot be nested: '{' inside a comment", r.pos + 1 + body.index("{"))
    r.pos = end + 1
    return " ".join(body.split())


def read_text(text: str) -> Record:
    """Parse the text format. Checks the syntax (tags, move numbers, comments, the result)
    but not the rules: that is :func:`replay`."""
    if "\x00" in text:
        raise RecordError("the file contains NUL bytes: not a game record")
    r = _Reader(text)
    tags: dict[str, str] = {}
    r.skip_space()
    while r.peek() == "[":
        start = r.pos
        name, value = _read_tag(r)
        if name in tags:
            raise r.error(f"tag {name} appears twice", start)
        tags[name] = value
        r.skip_space()
    if not tags:
        raise r.error('expected tag pairs such as [Game "pylos"] at the start of the record')
    turns: list[RecordedTurn] = []
    preamble: str | None = None
    result: str | None = None
    result_pos = 0
    numbered = False  # a move number was read since the last turn
    while True:
        r.skip_space()
        if r.at_end():
            break
        start = r.pos
        if result is not None:
            raise r.error(f"nothing may follow the result {result}")
        if r.peek() == "{":
            comment = _read_comment(r)
            ts_match = _TS.search(comment)
            ts = ts_match.group(1) if ts_match else None
            rest = _TS.sub("", comment).strip() or None
            if not turns:
                preamble = comment
                continue
            last = turns[-1]
            if ts and last.ts:
                raise r.error(f"turn {len(turns)} has two [%ts] timestamps", start)
            merged = " ".join(x for x in (last.comment, rest) if x) or None
            turns[-1] = RecordedTurn(last.text, ts or last.ts, merged)
            continue
        end = start
        while end < len(text) and not text[end].isspace() and text[end] != "{":
            end += 1
        token = text[start:end]
        r.pos = end
        m = _MOVE_NUMBER.match(token)
        if m:
            number, cont = int(m.group(1)), bool(m.group(2))
            expected = len(turns) // 2 + 1
            if number != expected or cont != (len(turns) % 2 == 1):
                want = f"{expected}." if len(turns) % 2 == 0 else f"{expected}..."
                raise r.error(f"move number {token} out of sequence: expected {want}", start)
            numbered = True
            continue
        if token in RESULTS:
            result, result_pos = token, start
            continue
        if len(turns) % 2 == 0 and not numbered:
            raise r.error(f"expected move number {len(turns) // 2 + 1}. before {token!r}", start)
        numbered = False
        turns.append(RecordedTurn(token))
    if result is None:
        raise r.error("the movetext does not end with a result (1-0, 0-1, 1/2-1/2 or *)")
    if "Result" in tags and tags["Result"] != result:
        raise r.error(f'the [Result "{tags["Result"]}"] tag and the final result {result} differ', result_pos)
    if tags.get("Result", result) not in RESULTS:
        raise RecordError(f"[Result] must be one of {', '.join(RESULTS)}")
    tags["Result"] = result
    return Record(tags, tuple(turns), preamble)


# -- JSON format ---------------------------------------------------------------------------


def to_json(record: Record) -> dict[str, Any]:
    tags = dict(ordered_tags({**record.tags, "Result": record.result}))
    out: dict[str, Any] = {"format": JSON_FORMAT, "version": JSON_VERSION, "tags": tags}
    if record.preamble:
        out["comment"] = record.preamble
    out["turns"] = [
        {k: v for k, v in (("turn", t.text), ("ts", t.ts), ("comment", t.comment)) if v is not None}
        for t in record.turns
    ]
    out["result"] = record.result
    return out


def write_json(record: Record) -> str:
    return json.dumps(to_json(record), indent=2, ensure_ascii=False) + "\n"


def read_json(text: str) -> Record:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    return from_json(data)


def from_json(data: Any) -> Record:
    if not isinstance(data, dict):
        raise RecordError("a JSON record must be an object with 'tags' and 'turns'")
    if data.get("format", JSON_FORMAT) != JSON_FORMAT:
        raise RecordError(f"'format' is {data.get('format')!r}, expected {JSON_FORMAT!r}")
    if data.get("version", JSON_VERSION) != JSON_VERSION:
        raise RecordError(f"'version' {data.get('version')!r} is not supported (this program reads {JSON_VERSION})")
    tags = data.get("tags")
    if not isinstance(tags, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in tags.items()):
        raise RecordError("'tags' must be an object of string values")
    for name in tags:
        if not _TAG_NAME.fullmatch(name):
            raise RecordError(f"tags: {name!r} is not a tag name")
    turns_data = data.get("turns", [])
    if not isinstance(turns_data, list):
        raise RecordError("'turns' must be a list")
    turns = []
    for i, item in enumerate(turns_data, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("turn"), str) or not item["turn"].strip():
            raise RecordError(f"turns[{i - 1}] (turn {i}) must be an object with a non-empty 'turn' string")
        extra = set(item) - {"turn", "ts", "comment"}
        if extra:
            raise RecordError(f"turns[{i - 1}] (turn {i}): unknown key {sorted(extra)[0]!r}")
        for key in ("ts", "comment"):
            if key in item and not isinstance(item[key], str):
                raise RecordError(f"turns[{i - 1}] (turn {i}): {key!r} must be a string")
        why = unwritable(item["turn"])
        if why:
            raise RecordError(f"turns[{i - 1}] (turn {i}): {item['turn']!r} {why}")
        turns.append(RecordedTurn(item["turn"], item.get("ts"), item.get("comment")))
    result = data.get("result", tags.get("Result", "*"))
    if result not in RESULTS:
        raise RecordError(f"'result' must be one of {', '.join(RESULTS)}, not {result!r}")
    if "Result" in tags and tags["Result"] != result:
        raise RecordError(f"tags.Result {tags['Result']!r} and 'result' {result!r} differ")
    comment = data.get("comment")
    if comment is not None and not isinstance(comment, str):
        raise RecordError("'comment' must be a string")
    return Record({**tags, "Result": result}, tuple(turns), comment)


def read_any(text: str) -> Record:
    """Either format, told apart by the first character."""
    return read_json(text) if text.lstrip().startswith("{") else read_text(text)


# -- checking against the rules --------------------------------------------------------------


def start_position(rules: Rules, tags: Mapping[str, str]) -> Any:
    if "Start" in tags:
        return rules.parse_position(tags["Start"])
    if rules.game == "sparklies":
        raise RecordError("a Sparklies record needs a [Start] tag: its colours are random")
    return rules.start()


def replay(record: Record) -> Replay:
    """Check every turn against the rules. Raises RecordError when the tags themselves are
    wrong (unknown game, bad variant, bad start position); a broken turn or a result that
    contradicts the rules comes back as ``Replay.error``."""
    try:
        rules = rules_from_tags(record.tags)
        position = start_position(rules, record.tags)
    except RecordError:
        raise
    except RulesError as exc:
        raise RecordError(f"tags: {exc}") from None
    positions = [position]
    turns = []
    for i, recorded in enumerate(record.turns, start=1):
        over = rules.outcome(position)
        if over is not None:
            return Replay(rules, tuple(positions), tuple(turns), over.result,
                          ReplayError(i, recorded.text, f"the game was already over ({over.result}, {over.reason})"))
        try:
            turn = rules.parse_turn(position, recorded.text)
        except RulesError as exc:
            return Replay(rules, tuple(positions), tuple(turns), record.result, ReplayError(i, recorded.text, str(exc)))
        position = rules.play(position, turn)
        positions.append(position)
        turns.append(turn)
    over = rules.outcome(position)
    result = over.result if over else record.result
    error = None
    if over and record.result not in ("*", over.result):
        error = ReplayError(None, None, f"the record says {record.result} but the final position is "
                                        f"{over.result} ({over.reason})")
    return Replay(rules, tuple(positions), tuple(turns), result, error)


def new_record(rules: Rules, *, start: Any | None = None, **tags: str) -> Record:
    """An empty record for ``rules``; a Sparklies start position is always stored."""
    all_tags = {"Game": rules.game, **rules.tags()}
    if start is not None and (rules.game == "sparklies" or start != rules.start()):
        all_tags["Start"] = rules.format_position(start)
    all_tags.update(tags)
    all_tags.setdefault("Result", "*")
    return Record(all_tags)
