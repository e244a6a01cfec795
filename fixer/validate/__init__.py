"""``distfix validate``: run a script (and its fixed version) under real distribution strategies.

The parent process never imports TensorFlow: every run is a child process started from
``bootstrap.py``, in a temporary copy of the script's folder, with a hard timeout that kills
its whole process group.
"""
