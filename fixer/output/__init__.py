"""Renderers of findings: text, concise, json, sarif, github, junit, and unified diffs."""
