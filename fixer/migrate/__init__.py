"""``distfix migrate``: batch migration of many folders and git repositories, with a report."""
