"""``deepsim studio``: a local web page where a designer changes a number and sees balance
move (docs/guide/studio.md).

The page plays a scenario of a folder, then variants of it (``--set`` numbers) on the same
games (common random numbers), and shows the paired change per faction. Everything it
computes comes from the Python API and the runner; the studio adds the page, the shared
queue of runs, the access token and the history on disk.
"""

from deepsim.studio.server import StudioConfig, serve

__all__ = ["StudioConfig", "serve"]
