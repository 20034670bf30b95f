"""Secrets at rest: the Fernet key and its file (redaction lives in ``toolpool.redaction``).

The key never comes from the environment here (the CLI reads ``TOOLPOOL_SECRET_KEY`` and
passes it in). A key file is created with mode 0600 and never overwritten, and one that group
or others could read is refused: a readable key would make the encryption decorative.
"""

from __future__ import annotations

import binascii
import os
import stat
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from toolpool.errors import UsageError

__all__ = ["SecretKey"]


class SecretKey:
    """A Fernet key for the secret store. ``repr`` and ``str`` never show it."""

    __slots__ = ("_fernet", "_key")

    def __init__(self, key: bytes) -> None:
        try:
            self._fernet = Fernet(key)
        except (ValueError, binascii.Error) as exc:
            raise UsageError(
                "not a valid secret key: expected 32 bytes in URL-safe base64 (44 characters)"
            ) from exc
        self._key = key

    @classmethod
    def generate(cls) -> SecretKey:
        return cls(Fernet.generate_key())

    @classmethod
    def from_text(cls, text: str) -> SecretKey:
        """A key from its text form (what ``to_text`` returns and key files hold).

        Raises:
            UsageError: the text is not a Fernet key (the message does not repeat it).
        """
        return cls(text.strip().encode("ascii", "replace"))

    @classmethod
    def read_file(cls, path: str | Path) -> SecretKey:
        """Read a key file that only its owner can read.

        Raises:
            UsageError: the file is missing, readable or writable by group or others, or holds
                no valid key.
        """
        path = Path(path)
        try:
            mode = path.stat().st_mode
            if not stat.S_ISREG(mode):
                raise UsageError(f"secret key file {path} is not a regular file")
            if mode & 0o077:
                raise UsageError(
                    f"secret key file {path} is accessible to group or others "
                    f"(mode {stat.S_IMODE(mode):04o}); run: chmod 600 {path}"
                )
            text = path.read_text(encoding="ascii")
        except OSError as exc:
            raise UsageError(f"cannot read secret key file {path}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise UsageError(f"secret key file {path} does not hold a key") from exc
        return cls.from_text(text)

    def write_file(self, path: str | Path) -> None:
        """Create ``path`` holding this key, readable by its owner only (mode 0600).

        Raises:
            UsageError: the file already exists (it is never overwritten) or cannot be created.
        """
        path = Path(path)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError as exc:
            raise UsageError(f"secret key file {path} already exists; it is never overwritten") from exc
        except OSError as exc:
            raise UsageError(f"cannot create secret key file {path}: {exc.strerror or exc}") from exc
        with os.fdopen(fd, "w", encoding="ascii") as file:
            os.fchmod(file.fileno(), 0o600)  # whatever the umask allowed
            file.write(self.to_text() + "\n")

    def to_text(self) -> str:
        """The key itself, for a key file or ``TOOLPOOL_SECRET_KEY``: handle with care."""
        return self._key.decode("ascii")

    def encrypt(self, value: str) -> str:
        return self._fernet.encrypt(value.encode("utf-8")).decode("ascii")

    def decrypt(self, token: str, name: str) -> str:
        try:
            return self._fernet.decrypt(token.encode("ascii")).decode("utf-8")
        except InvalidToken as exc:
            raise UsageError(f"secret {name!r} cannot be decrypted with this secret key") from exc

    def __repr__(self) -> str:
        return "SecretKey(<hidden>)"

    __str__ = __repr__
