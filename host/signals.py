"""Ctrl-C and SIGTERM as a :class:`threading.Event`: the long-running commands (``arbiter
leds``, ``display``, ``demo``) wait on it, stop what they started and exit cleanly, instead
of dying mid-write with a traceback."""

from __future__ import annotations

import signal
import threading


def stop_on_signals() -> threading.Event:
    """An event set by SIGINT or SIGTERM (installed for the main thread's process)."""
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop
