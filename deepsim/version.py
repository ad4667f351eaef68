"""deepsim's version (``deepsim --version``, recorded in every run's ``run.json``).

Its own module, so code below the package's face reads it without importing the package
root (whose lazy Python API sits above every layer).
"""

__version__ = "0.1.0"
