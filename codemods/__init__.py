"""distfix rules: one module per rule, one package per family (``placement``, ``api``...)."""
