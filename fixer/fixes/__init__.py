"""Fix recipes shared by rules: the edits that carry out a plan the analysis layer (fixer/tf) made.

The analysis layer says what a fix must do (which statements, placed where); the modules here turn
that into edits of the rule's text. fixer/tf never imports this package (tests/test_fixes_layer.py).
"""
