"""The embedded MQTT broker: amqtt running in a thread of its own, so the daemon and the demo
need no broker installed.

amqtt is asyncio-only; the daemon is synchronous. :class:`EmbeddedBroker` owns one event loop
in one thread and is started and stopped from ordinary code. It listens on loopback by
default, allows anonymous clients and checks no topics: it is meant for one board on one
machine. A shared or remote installation should use Mosquitto (docs/mqtt.md).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import threading
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 1883


class BrokerStartError(RuntimeError):
    """The embedded broker could not start (most often: the port is taken)."""


class _StartupTraceback(logging.Filter):
    """Drops amqtt's own traceback of a failed start: :class:`BrokerStartError` says what
    went wrong in one line, and a traceback on stderr reads as a crash."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Broker startup failed")


def broker_config(host: str, port: int) -> dict[str, Any]:
    """amqtt 0.12's configuration: one TCP listener, anonymous clients, no topic checks,
    no $SYS publishing and no packet logging."""
    return {
        "listeners": {"default": {"type": "tcp", "bind": f"{host}:{port}", "max_connections": 0}},
        "timeout_disconnect_delay": 0,
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }


def _broker_class() -> type:
    """amqtt's Broker with two repairs, imported lazily (only a daemon without a broker
    needs amqtt):

    - retained messages go only to the receiving client's own subscriptions: amqtt 0.12.1
      offers a client that connects the retained messages matching every filter *any* client
      has subscribed, so a display would get each retained topic twice, or topics it never
      subscribed to;
    - the client connections are kept, so that stopping can drop them: amqtt's own shutdown
      can wait forever on a connection whose reader does not end.
    """
    from amqtt.broker import Broker

    class ArbiterBroker(Broker):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.connections: set[asyncio.StreamWriter] = set()

        async def stream_connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                                   listener_name: str) -> None:
            self.connections.add(writer)
            try:
                await super().stream_connected(reader, writer, listener_name)
            finally:
                self.connections.discard(writer)

        async def _publish_retained_messages_for_subscription(self, subscription: tuple[str, int],
                                                              session: Any) -> None:
            holders = getattr(self, "_subscriptions", {}).get(subscription[0], [])
            if any(held is session or held.client_id == session.client_id for held, _ in holders):
                await super()._publish_retained_messages_for_subscription(subscription, session)

    return ArbiterBroker


async def _delivered(broker: Any, timeout: float, settle: int = 3) -> None:
    """Wait (at most ``timeout``) until amqtt has handed every accepted message to its
    subscribers' connections: no session holds an incoming message, the broadcast queue is
    empty and the delivery tasks are done, ``settle`` times in a row (a message moves from
    one to the next across a few loop turns)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    quiet = 0
    while quiet < settle and loop.time() < deadline:
        sessions = [entry[0] for entry in getattr(broker, "_sessions", {}).values()]
        incoming = [getattr(session, "delivered_message_queue", None) for session in sessions]
        broadcast = getattr(broker, "_broadcast_queue", None)
        tasks = list(getattr(broker, "_tasks_queue", ()))
        idle = (all(q is None or q.empty() for q in incoming) and (broadcast is None or broadcast.empty())
                and all(t.done() for t in tasks))
        quiet = quiet + 1 if idle else 0
        await asyncio.sleep(0.01)


class EmbeddedBroker:
    """An amqtt broker on ``host:port`` served by a private event loop thread.

    ``start()`` returns once the listener is bound, or raises :class:`BrokerStartError`
    saying why; ``stop()`` frees the port at once, drops every client connection and ends
    the thread, within ``timeout`` whatever amqtt does.
    """

    def __init__(self, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                 start_timeout: float = 10.0) -> None:
        if not 1 <= port <= 65535:
            raise ValueError(f"embedded broker port must be 1..65535, not {port}")
        self.host = host
        self.port = port
        self._start_timeout = start_timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker: Any = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.running:
            raise BrokerStartError(f"the embedded broker on {self.host}:{self.port} is already running")
        loop = asyncio.new_event_loop()
        ready = threading.Event()
        failure: list[BaseException] = []
        thread = threading.Thread(target=self._serve, args=(loop, ready, failure),
                                  name=f"mqtt-broker-{self.port}", daemon=True)
        self._loop, self._thread = loop, thread
        thread.start()
        if not ready.wait(self._start_timeout):
            self.stop()
            raise BrokerStartError(f"the embedded broker on {self.host}:{self.port} did not start "
                                   f"within {self._start_timeout:g} s")
        if failure:
            thread.join(self._start_timeout)
            self._loop = self._thread = self._broker = None
            raise BrokerStartError(self._explain(failure[0])) from failure[0]
        log.info("embedded MQTT broker listening on %s:%d", self.host, self.port)

    def stop(self, timeout: float = 5.0) -> None:
        """Shut the broker down (idempotent)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if thread.is_alive() and self._broker is not None:
            future = asyncio.run_coroutine_threadsafe(self._shutdown(self._broker, timeout / 2), loop)
            try:
                future.result(timeout)
            except Exception as exc:  # a broken shutdown must not keep the daemon from exiting
                log.warning("embedded MQTT broker: shutdown failed (%s)", exc or type(exc).__name__)
        if thread.is_alive():
            try:
                loop.call_soon_threadsafe(loop.stop)
            except RuntimeError:  # the loop closed meanwhile: the thread is ending by itself
                pass
        thread.join(timeout)
        self._loop = self._thread = self._broker = None
        log.info("embedded MQTT broker on %s:%d stopped", self.host, self.port)

    def __enter__(self) -> "EmbeddedBroker":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the broker's own thread

    def _serve(self, loop: asyncio.AbstractEventLoop, ready: threading.Event,
               failure: list[BaseException]) -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._start_broker())
        except BaseException as exc:  # reported to start() in the caller's thread
            failure.append(exc)
            ready.set()
            self._finish(loop)
            return
        ready.set()
        try:
            loop.run_forever()
        finally:
            self._finish(loop)

    async def _start_broker(self) -> None:
        self._broker = _broker_class()(broker_config(self.host, self.port))
        quiet = _StartupTraceback()
        amqtt_log = logging.getLogger("amqtt.broker")
        amqtt_log.addFilter(quiet)
        try:
            await self._broker.start()
        finally:
            amqtt_log.removeFilter(quiet)

    @staticmethod
    async def _shutdown(broker: Any, timeout: float) -> None:
        """Free the port, pass on what was already accepted (the daemon's ``offline``), close
        the client connections (clients see the connection end and reconnect later), then
        give amqtt's own shutdown ``timeout`` to finish; connections left are cut."""
        for server in getattr(broker, "_servers", {}).values():
            instance = getattr(server, "instance", None)
            if instance is not None:
                instance.close()
        await _delivered(broker, min(1.0, timeout))
        for writer in list(broker.connections):
            writer.close()  # sends what is buffered, then closes
        task = asyncio.ensure_future(broker.shutdown())
        done, _ = await asyncio.wait({task}, timeout=timeout)
        if not done:
            log.warning("embedded MQTT broker: amqtt's shutdown did not finish within %g s; "
                        "its remaining tasks are cancelled", timeout)
        elif task.exception() is not None:
            log.warning("embedded MQTT broker: shutdown failed (%s)", task.exception())
        for writer in list(broker.connections):
            writer.transport.abort()
        loop = asyncio.get_running_loop()
        loop.call_soon(loop.stop)

    @staticmethod
    def _finish(loop: asyncio.AbstractEventLoop, timeout: float = 2.0) -> None:
        """Let the tasks amqtt leaves behind (client handlers, its broadcast loop) end before
        the loop closes, so none is destroyed while pending."""
        try:
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.wait(pending, timeout=timeout))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()

    def _explain(self, exc: BaseException) -> str:
        cause: BaseException | None = exc
        while cause is not None:
            if isinstance(cause, OSError):
                if cause.errno == errno.EADDRINUSE:
                    return (f"cannot start the embedded MQTT broker: port {self.port} on {self.host} "
                            f"is already in use (another broker running? give the embedded broker "
                            f"another port, or connect to that broker with an mqtt url)")
                return f"cannot start the embedded MQTT broker on {self.host}:{self.port}: {cause}"
            cause = cause.__cause__ or cause.__context__
        return f"cannot start the embedded MQTT broker on {self.host}:{self.port}: {exc}"
