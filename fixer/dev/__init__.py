"""Developer commands (``distfix dev``): regenerate the files derived from the rule registry, and
scaffold a new rule."""
