"""Files only the service's user may read: `var/` (the SQLite database, keys, the demo
tenant's credentials, Temporal's dev database) is a 0700 directory, the database file 0600
(SQLite gives its -wal and -shm files the database file's mode), keys are created 0600
in one atomic step. An existing `var/` or database file of an older install is tightened
the next time the service starts."""

from __future__ import annotations

import os
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path, tighten: bool = True) -> Path:
    """Create `path` (and any missing parents) 0700; with `tighten`, an existing `path` is
    made 0700 too (its parents are left as they are)."""
    missing = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=DIR_MODE)
        except FileExistsError:  # another process made it meanwhile
            pass
        os.chmod(directory, DIR_MODE)  # mkdir's mode is filtered by the umask
    if tighten and path.is_dir() and path not in missing and _ours(path):
        os.chmod(path, DIR_MODE)
    return path


def _ours(path: Path) -> bool:
    """Only the service's own files are tightened (a directory mounted from elsewhere is the
    operator's to set)."""
    return path.stat().st_uid == os.geteuid()


def private_file(path: Path) -> Path:
    """Make sure `path` exists and is 0600 (created empty if missing, without a moment of a
    wider mode); its SQLite -wal and -shm companions too, if they exist."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        pass
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if file.exists() and _ours(file):
            os.chmod(file, FILE_MODE)
    return path


def create_once(path: Path, data: bytes) -> bool:
    """Write `data` to `path`, mode 0600, unless it exists: written to a temporary file and
    linked into place (atomic, and never over a file another process made first). True if
    this call created it."""
    private_dir(path.parent, tighten=False)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    try:
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    finally:
        tmp.unlink(missing_ok=True)
