"""Input pipelines (TFD2xx)."""
