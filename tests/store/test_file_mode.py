"""The SQLite store holds token hashes, the audit log and encrypted secrets: its file, and the
``-wal`` and ``-shm`` files SQLite makes beside it, are readable by their owner only (0600),
like the key file, whatever the process umask lets through. A store file that already exists
keeps the mode its owner gave it."""

from __future__ import annotations

import stat
from pathlib import Path

from toolpool.store import SecretKey, Store


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _write_something(store: Store) -> None:
    store.audit.audit("test", "test.write", "store", {"n": 1})


def test_a_new_sqlite_store_and_its_wal_and_shm_files_are_readable_by_their_owner_only(
    tmp_path: Path,
) -> None:
    database = tmp_path / "toolpool.db"
    store = Store.open(f"sqlite:///{database}", key=SecretKey.generate())
    try:
        _write_something(store)
        files = [database, tmp_path / "toolpool.db-wal", tmp_path / "toolpool.db-shm"]
        modes = {path.name: _mode(path) for path in files}
    finally:
        store.close()
    assert modes == dict.fromkeys(modes, 0o600), {name: oct(mode) for name, mode in modes.items()}


def test_an_existing_store_file_keeps_the_mode_its_owner_chose(tmp_path: Path) -> None:
    database = tmp_path / "toolpool.db"
    Store.open(f"sqlite:///{database}").close()
    database.chmod(0o640)  # e.g. readable by a backup group
    store = Store.open(f"sqlite:///{database}")
    try:
        _write_something(store)
        wal = _mode(tmp_path / "toolpool.db-wal")
    finally:
        store.close()
    assert (_mode(database), wal) == (0o640, 0o640)
