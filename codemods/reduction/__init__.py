"""Gradients, losses and reductions (TFD3xx)."""
