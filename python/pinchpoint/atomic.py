"""Writing a directory whole or not at all, and recovering from a writer that was killed.

A writer of ``DIR`` works in siblings named after its process id:

1. ``.DIR.tmp-PID-X``  : being filled (deleted by recovery: it may be incomplete);
2. ``.DIR.ready-PID-X``: complete (renamed from ``tmp`` in one step once filled);
3. ``DIR`` is renamed to ``.DIR.old-PID-X``, ``ready`` is renamed to ``DIR`` and ``old`` is
   deleted.

A kill at any point leaves either the previous ``DIR`` or the new one, plus siblings that the
next write or read of ``DIR`` (:func:`recover`) resolves, for siblings whose process is gone:
``tmp`` is deleted; the newest ``ready`` becomes ``DIR`` (the write had finished, so its result
wins); if ``DIR`` is still missing, the newest ``old`` is renamed back to ``DIR``; the remaining
``old`` and ``ready`` are deleted. Siblings of a live process (another writer at work) are left
alone. A normal exit or an exception removes the writer's own temporary directory at once (and
``atexit`` catches any left by an interrupted interpreter). To recover by hand: if ``DIR`` is
missing, rename the newest ``.DIR.ready-*`` (else ``.DIR.old-*``) to ``DIR``.

Directories are created with ``os.mkdir``, so they get the permissions of the process umask
(like the files in them), not the 0700 of ``tempfile.mkdtemp``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

_OWN_TEMPS: set[Path] = set()


def _cleanup_own() -> None:
    for p in list(_OWN_TEMPS):
        shutil.rmtree(p, ignore_errors=True)
        _OWN_TEMPS.discard(p)


atexit.register(_cleanup_own)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _siblings(out: Path, kind: str) -> list[Path]:
    """Leftover siblings of ``out`` of one kind (tmp, ready, old) whose writer has gone, oldest first."""
    prefix = f".{out.name}.{kind}-"
    found = []
    try:
        entries = list(out.parent.iterdir())
    except FileNotFoundError:
        return []
    for p in entries:
        if not p.name.startswith(prefix):
            continue
        try:
            pid = int(p.name[len(prefix):].split("-", 1)[0])
        except ValueError:
            continue
        if pid != os.getpid() and _alive(pid):
            continue
        found.append(p)
    return sorted(found, key=lambda p: p.stat().st_mtime)


def _name(out: Path, kind: str) -> Path:
    return out.with_name(f".{out.name}.{kind}-{os.getpid()}-{uuid.uuid4().hex[:8]}")


def recover(out: Path) -> Path:
    """Resolves what killed writers of ``out`` left behind (see the module docstring); returns ``out``."""
    out = Path(out)
    for tmp in _siblings(out, "tmp"):
        if tmp not in _OWN_TEMPS:
            shutil.rmtree(tmp, ignore_errors=True)
    ready = _siblings(out, "ready")
    if ready:
        newest = ready.pop()
        if out.exists():
            old = _name(out, "old")
            os.replace(out, old)
            os.replace(newest, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(newest, out)
    for p in ready:
        shutil.rmtree(p, ignore_errors=True)
    olds = _siblings(out, "old")
    if olds and not out.exists():
        os.replace(olds.pop(), out)
    for p in olds:
        shutil.rmtree(p, ignore_errors=True)
    return out


def file_in_the_way(path: str | Path) -> Path | None:
    """The nearest existing ancestor of ``path`` if it is not a directory (``path`` cannot be
    created under it: NotADirectoryError), else None."""
    for parent in Path(path).absolute().parents:
        if parent.exists():
            return None if parent.is_dir() else parent
        if parent.is_symlink():  # a dangling link: mkdir would fail on it too
            return parent
    return None


def refuse_to_replace(out: str | Path, replaces: Callable[[Path], bool] | None = None, what: str = "") -> None:
    """Raises :class:`FileExistsError` if ``out`` exists and :func:`write_dir` must not replace
    it: a file (only directories are replaced), or a directory for which ``replaces(out)`` is
    false (``what`` says what it was expected to be). Replacing deletes the old directory, so a
    wrong ``--out`` (a project folder, a home directory) must be refused, not emptied."""
    out = Path(out)
    if not out.exists():
        return
    if not out.is_dir():
        raise FileExistsError(f"{out}: exists and is not a directory: not replaced; choose another path or remove it")
    if replaces is not None and not replaces(out):
        raise FileExistsError(f"{out}: exists and is not {what}: not replaced; choose another directory or remove it")


def write_dir(out_dir: str | Path, fill: Callable[[Path], None], replaces: Callable[[Path], bool] | None = None,
              what: str = "") -> Path:
    """Creates ``out_dir`` with the files ``fill(tmp)`` writes into an empty directory,
    replacing any previous ``out_dir`` only once the new one is complete. An existing
    ``out_dir`` is replaced only if it is a directory and ``replaces(out_dir)`` (when given)
    holds; otherwise :class:`FileExistsError` (see :func:`refuse_to_replace`) and nothing is
    written."""
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    recover(out)
    refuse_to_replace(out, replaces, what)
    tmp = _name(out, "tmp")
    os.mkdir(tmp)
    _OWN_TEMPS.add(tmp)
    try:
        fill(tmp)
        ready = _name(out, "ready")
        os.replace(tmp, ready)
        _OWN_TEMPS.discard(tmp)
        _OWN_TEMPS.add(ready)
        if out.exists():
            old = _name(out, "old")
            os.replace(out, old)
            os.replace(ready, out)
            _OWN_TEMPS.discard(ready)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(ready, out)
            _OWN_TEMPS.discard(ready)
    except BaseException:
        for p in (tmp, ready if "ready" in locals() else None):
            if p is not None and p in _OWN_TEMPS:
                shutil.rmtree(p, ignore_errors=True)
                _OWN_TEMPS.discard(p)
        raise
    return out


def write_text(path: str | Path, text: str) -> Path:
    """Writes ``text`` to the file ``path`` as :func:`write_file` does: whole or not at all."""
    return write_file(path, lambda tmp: tmp.write_text(text))


def write_file(path: str | Path, fill: Callable[[Path], None]) -> Path:
    """Creates the file ``path`` from what ``fill(tmp)`` writes to a sibling ``.NAME.tmp-PID-X``,
    renamed over ``path`` in one step once ``fill`` returns: a reader sees the previous file or
    the new one, never a partial one. If ``fill`` raises, the sibling is deleted and ``path`` is
    left as it was."""
    out = Path(path)
    tmp = _name(out, "tmp")
    try:
        fill(tmp)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return out
