"""API migration (TFD4xx)."""
