"""Tabletop Arbiter vision: board calibration and recognition (arrives with the vision issue)."""
