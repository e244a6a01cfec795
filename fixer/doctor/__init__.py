"""``distfix doctor``: check a cluster before launch (TF_CONFIG, addresses, ports, environments)."""
