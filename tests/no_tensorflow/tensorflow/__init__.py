"""A stand-in for TensorFlow that refuses to import: `make test-fast` puts it first on the path,
so a test that starts TensorFlow without the `tensorflow` marker fails there instead of making
the fast run slow."""

raise ImportError("`make test-fast` runs no TensorFlow: mark this test @pytest.mark.tensorflow")
