"""The project-target model: which TensorFlow and Keras a project runs, read from its files
(requirements, pyproject, setup files, Pipfile, conda environments, Dockerfiles, job configs).

Pure Python: nothing here imports TensorFlow or executes a project file.
"""

from fixer.target.model import Target, target_for

__all__ = ["Target", "target_for"]
