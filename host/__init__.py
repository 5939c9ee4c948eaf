"""Tabletop Arbiter host software: rules engines, records, referee and command line."""

__version__ = "0.1.0"
