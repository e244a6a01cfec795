"""distfix's version, in a module of its own so that parts of distfix that need it (the cache's
keys) do not import the package's public face, which names the engine."""

__version__ = "0.1.0"
