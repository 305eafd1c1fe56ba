"""The sandbox child: the code that runs inside the isolated interpreter.

It imports only the standard library and its own modules (relatively), because inside the
sandbox it is mounted as a top-level package named ``child``, with the rest of ``ralph_tui``
out of sight. ``framing`` is shared with the host.

The compiled copy the child runs (``ralph_tui.sandbox.bytecode``) also holds ``BUNDLE``: the
code of every module of the package in one file. Where it is present the package loads its
modules from it (``BundledModules``): searching the package folder and reading each
module's byte-code file through the import system would cost every child start about 50 µs
a module. Elsewhere (the host, or a child run from the sources) imports work as usual.
"""

from __future__ import annotations

import _imp
import marshal
import sys

BUNDLE = "modules.marshal"
"""In a compiled copy: ``marshal`` of ``{module name: code}`` for each module but this one."""

TYPE_CHECKING = False  # ``typing`` costs every child start milliseconds; only mypy needs it
if TYPE_CHECKING:
    from types import CodeType, ModuleType
    from typing import Any


class BundledModules:
    """An import finder and loader for the package's modules, from the code in ``BUNDLE``."""

    def __init__(self, folder: str, codes: dict[str, CodeType]) -> None:
        self._folder = folder
        self._codes = codes

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in self._codes:
            return None
        # A loader by protocol: ``importlib.abc`` would cost the start what this saves.
        spec = type(__spec__)(name, self, origin=self._source(name))  # type: ignore[arg-type]
        spec.has_location = True  # so the module's ``__file__`` names its source, as usual
        return spec

    def create_module(self, spec: Any) -> None:
        return None  # the default module

    def exec_module(self, module: ModuleType) -> None:
        code = self._codes[module.__name__]
        # Tracebacks then name the source where the child sees it, as a file import would.
        _imp._fix_co_filename(code, self._source(module.__name__))  # type: ignore[attr-defined]
        exec(code, module.__dict__)

    def _source(self, name: str) -> str:
        return f"{self._folder}/{name.rpartition('.')[2]}.py"


def _load_bundle() -> None:
    folder = __path__[0]
    try:
        with open(f"{folder}/{BUNDLE}", "rb") as file:
            codes = marshal.loads(file.read())
    except OSError:
        return  # not a compiled copy
    sys.meta_path.insert(0, BundledModules(folder, codes))


_load_bundle()
