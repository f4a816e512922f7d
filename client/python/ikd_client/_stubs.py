"""Finding and importing the generated modules of the ikd API.

The modules are generated, never checked in: ``client/python/generate.sh``
writes them into this package's ``_gen/`` directory, or
``examples/python/generate_stubs.sh DIR`` into any directory named by
:func:`load_stubs` or the ``IKD_CLIENT_STUBS`` environment variable. They
import each other as top-level packages (``ik.v1``, ``google.rpc``), so the
directory is put on ``sys.path``.
"""
from __future__ import annotations

import importlib
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

#: The environment variable naming the stubs directory.
STUBS_ENV = "IKD_CLIENT_STUBS"

_DEFAULT_DIR = Path(__file__).resolve().parent / "_gen"


@dataclass(frozen=True)
class Stubs:
    """The generated modules the client uses."""

    #: ``ik.v1.ik_pb2``: every message of the API (ik.proto imports the
    #: other files publicly).
    pb: ModuleType
    #: ``ik.v1.ik_pb2_grpc``: ``IkServiceStub``.
    pb_grpc: ModuleType
    #: ``google.rpc.status_pb2`` and ``google.rpc.error_details_pb2``: the
    #: status details ikd's errors carry.
    status_pb2: ModuleType
    error_details_pb2: ModuleType
    #: Where they were loaded from.
    directory: Path


_lock = threading.Lock()
_loaded: Stubs | None = None


def stubs_directory(directory: str | os.PathLike[str] | None = None) -> Path:
    """The directory stubs are loaded from: ``directory`` if given, else
    ``$IKD_CLIENT_STUBS`` if set, else the package's ``_gen/``."""
    if directory is None:
        directory = os.environ.get(STUBS_ENV) or _DEFAULT_DIR
    return Path(directory).resolve()


def load_stubs(directory: str | os.PathLike[str] | None = None) -> Stubs:
    """Imports the generated modules (once per process) and returns them.

    ``directory`` as in :func:`stubs_directory`. The first successful load
    wins: Python holds one ``ik.v1`` package per process, so a later call
    naming another directory gets the modules already loaded.

    Raises:
        ImportError: the directory does not hold the generated modules.
    """
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        path = stubs_directory(directory)
        if not (path / "ik" / "v1" / "ik_pb2.py").is_file():
            raise ImportError(
                f"ikd_client: no generated stubs in {path} (ik/v1/ik_pb2.py); run "
                f"client/python/generate.sh, or examples/python/generate_stubs.sh DIR "
                f"and set {STUBS_ENV}=DIR"
            )
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
        _loaded = Stubs(
            pb=importlib.import_module("ik.v1.ik_pb2"),
            pb_grpc=importlib.import_module("ik.v1.ik_pb2_grpc"),
            status_pb2=importlib.import_module("google.rpc.status_pb2"),
            error_details_pb2=importlib.import_module("google.rpc.error_details_pb2"),
            directory=path,
        )
        return _loaded
