"""``python -m fixer`` runs the distfix command line."""

from fixer.cli import main

main()
