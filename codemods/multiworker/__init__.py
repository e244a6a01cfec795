"""Multi-worker training (TFD5xx)."""
