"""The web companion display's HTTP side (docs/display.md): the hall page, a page per board,
their files, a JSON view of each board, Server-Sent Events that push every change, the game
record as a download, and the page's taps forwarded as MQTT commands.

The standard library's threading HTTP server is enough: a few dozen pages at a club, each
holding one event stream. Pages are plain HTML, CSS and JavaScript from
``host/display_static`` (nothing from a CDN). Commands are checked for shape here and
carry the page's own token; the daemon decides whether the token allows them.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, Callable
from urllib.parse import parse_qs, unquote, urlsplit

from .display_model import Hall
from .mqtt_topics import BOARD_ID, Topics
from .record import RecordError

log = logging.getLogger("arbiter.display")

#: what a page may ask of a board (the rest of the MQTT commands are for organisers' tools)
PAGE_COMMANDS = ("confirm", "end-turn", "takeback")
#: how long a page's command waits for the daemon's reply
REPLY_TIMEOUT = 5.0
#: a silent event stream sends a comment this often, so pages notice a dead server
HEARTBEAT = 10.0
MAX_BODY = 16 * 1024
STATIC = {"display.css": "text/css", "display.js": "text/javascript", "board.js": "text/javascript",
          "hall.js": "text/javascript", "board.html": "text/html", "hall.html": "text/html",
          "favicon.svg": "image/svg+xml"}


class DisplayServer:
    """Serves ``hall`` on ``host:port`` (port 0: any free port) until :meth:`stop`.
    ``publish(topic, payload)`` sends a command; ``svg`` draws a board."""

    def __init__(self, hall: Hall, *, publish: Callable[[str, bytes], None] | None, svg: Callable[..., str],
                 host: str = "127.0.0.1", port: int = 8080):
        self.hall = hall
        self.publish = publish
        self.svg = svg
        self.stopping = threading.Event()
        self._views: dict[str, tuple[int, dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._count = 0
        handler = type("Handler", (_Handler,), {"display": self})
        try:
            self.httpd = ThreadingHTTPServer((host, port), handler)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot serve the display on {host} port {port}: {exc.strerror}") from None
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        host = self.httpd.server_address[0]
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        return f"http://{shown}:{self.port}/"

    def start(self) -> "DisplayServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="display-http", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.hall.close()  # the event streams see ``stopping`` and end at once
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- what the pages get ------------------------------------------------------------
    def view(self, board: str) -> dict[str, Any] | None:
        """A board's view, drawn once per change however many pages show it."""
        version = self.hall.versions.get(board)
        with self._lock:
            cached = self._views.get(board)
            if cached is not None and version is not None and cached[0] == version:
                return cached[1]
        found = self.hall.snapshot(board, svg=self.svg)
        if found is None:
            return None
        with self._lock:
            self._views[board] = found
        return found[1]

    def hall_list(self) -> list[dict[str, Any]]:
        keys = ("board", "game", "variant", "turn", "to_move", "status", "last_move", "result", "players", "flag",
                "question")
        return [{k: view[k] for k in keys} for view in self.hall.views()]

    def link(self) -> dict[str, Any]:
        return {"connected": self.hall.connected, "problem": self.hall.link_problem}

    def command(self, board: str, body: Any) -> tuple[int, dict[str, Any]]:
        """A page's tap: checked, sent with an id, and the daemon's reply awaited."""
        if self.publish is None:
            return 403, {"ok": False, "error": "this display sends no commands (started with --read-only)"}
        if not isinstance(body, dict):
            return 400, {"ok": False, "error": "the command must be a JSON object"}
        cmd = body.get("cmd")
        if cmd not in PAGE_COMMANDS:
            return 400, {"ok": False, "error": f"unknown cmd {cmd!r}: a page may send {', '.join(PAGE_COMMANDS)}"}
        allowed = {"cmd", "token", "move", "turns"}
        extra = sorted(set(body) - allowed)
        if extra:
            return 400, {"ok": False, "error": f"{cmd}: unknown field {extra[0]!r}"}
        if self.hall.board(board) is None:
            return 404, {"ok": False, "error": f"no board {board!r} on the broker"}
        with self._lock:
            self._count += 1
            ident = f"display-{os.getpid()}-{self._count}"
        replied = threading.Event()
        answer: dict[str, Any] = {}

        def got(reply: dict[str, Any]) -> None:
            answer.update(reply)
            replied.set()

        self.hall.expect_reply(ident, got)
        payload = {k: v for k, v in body.items() if v is not None}
        payload["id"] = ident
        try:
            self.publish(Topics(board).cmd, json.dumps(payload, separators=(",", ":")).encode("utf-8"))
            if not replied.wait(REPLY_TIMEOUT):
                return 504, {"ok": False, "error": f"no reply from board {board} within {REPLY_TIMEOUT:g} s: "
                             "is its daemon running and the display connected to its broker?"}
        finally:
            self.hall.forget_reply(ident)
        answer.pop("id", None)
        return 200, answer


class _Handler(BaseHTTPRequestHandler):
    display: DisplayServer
    protocol_version = "HTTP/1.1"
    server_version = "arbiter-display"

    def log_message(self, format: str, *args: Any) -> None:  # requests at debug level, never tokens
        log.debug("%s %s", self.address_string(), format % args)

    # -- routes --------------------------------------------------------------------------
    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        query = parse_qs(parts.query)
        if path == "/":
            return self._static("hall.html")
        if path.startswith("/static/") and path[8:] in STATIC:
            return self._static(path[8:])
        if path == "/favicon.ico":
            return self._static("favicon.svg")
        if path == "/events":
            return self._events(query.get("board", [None])[0])
        if path == "/api/boards":
            return self._json(200, {"boards": self.display.hall_list(), "link": self.display.link()})
        segments = path.strip("/").split("/")
        if len(segments) >= 2 and segments[0] in ("board", "api") and (segments[0] == "board" or segments[1] == "board"):
            board = segments[1] if segments[0] == "board" else (segments[2] if len(segments) > 2 else "")
            if not BOARD_ID.fullmatch(board):
                return self._json(404, {"error": f"no board {board!r}: board ids are letters, digits, '.', '_', '-'"})
            if segments[0] == "board" and len(segments) == 2:
                return self._static("board.html")
            if segments[0] == "board" and segments[2:] == ["record.pgn"]:
                return self._record(board)
            if segments[0] == "api" and len(segments) == 3:
                view = self.display.view(board)
                return self._json(200, view) if view is not None else self._json(404, {"error": f"no board {board!r}"})
        self._json(404, {"error": f"nothing at {path}"})

    def do_POST(self) -> None:
        segments = unquote(urlsplit(self.path).path).strip("/").split("/")
        if len(segments) != 4 or segments[:2] != ["api", "board"] or segments[3] != "cmd" or not BOARD_ID.fullmatch(segments[2]):
            return self._json(404, {"ok": False, "error": "commands go to /api/board/<id>/cmd"})
        if not self.headers.get("Content-Type", "").startswith("application/json"):
            return self._json(415, {"ok": False, "error": "send the command as application/json"})
        origin = self.headers.get("Origin")
        if origin and urlsplit(origin).netloc != self.headers.get("Host"):
            return self._json(403, {"ok": False, "error": "commands are taken from this display's own pages only"})
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self.close_connection = True  # the body is not read: this connection cannot go on
            if length > MAX_BODY:
                return self._json(413, {"ok": False, "error": f"command too large ({length} bytes, {MAX_BODY} at most)"})
            return self._json(400, {"ok": False, "error": "the request's Content-Length is not a number of bytes"})
        try:
            body = json.loads(self.rfile.read(length) or b"null")
        except ValueError as exc:
            return self._json(400, {"ok": False, "error": f"the command is not JSON: {exc}"})
        self._json(*self.display.command(segments[2], body))

    # -- answers -------------------------------------------------------------------------
    def _send(self, status: int, content_type: str, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, "application/json; charset=utf-8", json.dumps(obj).encode("utf-8"))

    def _static(self, name: str) -> None:
        data = (resources.files("host") / "display_static" / name).read_bytes()
        kind = STATIC[name]
        self._send(200, kind + ("; charset=utf-8" if kind.startswith("text/") else ""), data,
                   {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'"})

    def _record(self, board: str) -> None:
        view = self.display.hall.board(board)
        try:
            text = view.record_text() if view is not None else None
        except RecordError as exc:
            return self._json(500, {"error": f"board {board!r}: its game cannot be written as a record: {exc}"})
        if text is None:
            return self._json(404, {"error": f"board {board!r} has no game to download"})
        filename = f"{board}-{view.state.get('game', 'game')}-turn{view.state.get('turn', 0)}.pgn" if view.state else f"{board}.pgn"
        self._send(200, "application/x-chess-pgn; charset=utf-8", text.encode("utf-8"),
                   {"Content-Disposition": f'attachment; filename="{filename}"'})

    def _events(self, board: str | None) -> None:
        """The event stream: the current view at once, then each change; a comment every
        HEARTBEAT seconds. EventSource reconnects by itself after ``retry`` ms."""
        if board is not None and not BOARD_ID.fullmatch(board):
            return self._json(404, {"error": f"no board {board!r}"})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        display, hall = self.display, self.display.hall
        sent: dict[str, Any] = {}
        version = -1
        try:
            self.wfile.write(b"retry: 1000\n\n")
            while not display.stopping.is_set():
                now = hall.version
                for kind, payload in self._changes(board, sent):
                    self.wfile.write(f"event: {kind}\ndata: {json.dumps(payload)}\n\n".encode("utf-8"))
                self.wfile.flush()
                version = now
                if hall.wait(version, HEARTBEAT) == version and not display.stopping.is_set():
                    self.wfile.write(b"event: ping\ndata: {}\n\n")
                    self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass  # the page went away

    def _changes(self, board: str | None, sent: dict[str, Any]) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        display = self.display
        link = display.link()
        if sent.get("link") != link:
            sent["link"] = link
            out.append(("link", link))
        if board is None:
            boards = display.hall_list()
            if sent.get("hall") != boards:
                sent["hall"] = boards
                out.append(("hall", boards))
        else:
            version = display.hall.versions.get(board, 0)
            if sent.get("version") != version or "version" not in sent:
                sent["version"] = version
                view = display.view(board)
                out.append(("board", view if view is not None else {"board": board, "online": False, "missing": True}))
        return out
