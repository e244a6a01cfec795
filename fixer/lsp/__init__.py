"""``distfix lsp``: a Language Server that shows findings and offers their fixes in any editor."""
