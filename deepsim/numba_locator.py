"""The numba cache locator of deepsim's functions (loaded by numba, see :mod:`deepsim.jitcache`).

numba's ``UserProvidedCacheLocator`` files a function's cache under ``NUMBA_CACHE_DIR`` in a
folder named after the absolute path of its source file, so every checkout or installed
copy of the same code has its own entries. :class:`SourceKeyedLocator` files a function of
the ``deepsim`` package under its module name instead (``<NUMBA_CACHE_DIR>/deepsim.rulesets.
deepfall.kernel/``); ``NUMBA_CACHE_DIR`` is already named by the hash of all compiled sources
(:func:`deepsim.jitcache.source_key`), and the index stays stamped with the content hash of
the function's own file (numba's ``_SourceFileBackedLocatorMixin``). Two copies of the same
sources therefore read and write the same entries. Functions of other packages return None
here, and numba tries its own locators next.

This module imports numba; numba imports it (through ``NUMBA_CACHE_LOCATOR_CLASSES``) when
it first sets up a cache, never earlier.
"""

from __future__ import annotations

import os

from numba.core import config
from numba.core.caching import _CacheLocator, _SourceFileBackedLocatorMixin

_PACKAGE = "deepsim"


class SourceKeyedLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """Cache folder ``<NUMBA_CACHE_DIR>/<module name>`` for functions of the deepsim package.

    The source stamp is the SHA-256 of the function's file content (not its path or
    modification time), the disambiguator its first line number, as numba's own locators.
    """

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(config.CACHE_DIR, py_func.__module__)

    def get_cache_path(self):
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        module = getattr(py_func, "__module__", None) or ""
        if not config.CACHE_DIR or not (module == _PACKAGE
                                        or module.startswith(_PACKAGE + ".")):
            return None
        return super().from_function(py_func, py_file)
