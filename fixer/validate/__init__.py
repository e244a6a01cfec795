"""``distfix validate``: run a script (and its fixed version) under real distribution strategies.

The parent process never imports TensorFlow: every run is a child process started from
``bootstrap.py`` (which loads ``child/``), in a temporary copy of the script's folder, with a
hard timeout that kills its whole process group. ``runner`` starts the runs, ``checks`` judges
what they dumped, ``session`` puts one validation together and ``report`` renders it.
``ray_backend`` runs the same children on a Ray cluster (``--backend ray``).
"""
