"""Placement and replica context (TFD1xx)."""
