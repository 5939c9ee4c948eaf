"""Shared pieces of the GPIO tests: gpiozero's MockFactory passed in explicitly (never left
as the global pin factory), a clock the test sets, and waiting on gpiozero's own threads.
Test modules import what they use: ``from gpio_mock import Clock, factory, wait_pins``."""

from __future__ import annotations

import time
from typing import Callable, Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin


class Clock:
    """A clock the test sets: no sleeping to get past a debounce."""

    def __init__(self, t: float = 0.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    assert Device.pin_factory is None, "a test before this one left a global pin factory"
    mock = MockFactory(pin_class=MockPWMPin)  # PWM pins for the RGB LED
    yield mock
    mock.reset()
    mock.close()
    assert Device.pin_factory is None, "gpiozero's global pin factory was set"


def wait_pins(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    """For gpiozero's own blink and beep threads, and a daemon thread driving the pins:
    waits for a pin to change."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True
