"""Resource limits for every stdio server, and the optional bubblewrap sandbox (R14).

Both are applied by wrapping the argument list, never by code running between ``fork`` and
``exec`` (anyio has no ``preexec_fn``, and one is unsafe in a threaded process anyway)::

    limits only:   [setpriv --bounding-set -sys_resource ...] prlimit --data --cpu --nofile -- COMMAND
    sandboxed:     bwrap <namespaces> <mounts> -- env -u PWD prlimit ... -- COMMAND

``prlimit`` and ``setpriv`` (util-linux) and ``env`` (coreutils) are small C programs that
change nothing but their own limits, capabilities or environment and then ``exec``: the
server's first instruction already runs under the limits, and so does everything it forks.
Each adds about 1 ms to a start (a Python wrapper would add 17 ms). ``setpriv`` is used only
when toolpool itself holds ``CAP_SYS_RESOURCE`` (as root on most hosts), which would let the
server raise its own hard limits. ``env -u PWD`` is there because bwrap always sets ``PWD``
after its options are read, and the child must get exactly the configured environment.

The memory limit is ``RLIMIT_DATA`` (private writable memory: heap, anonymous mappings,
thread stacks), not ``RLIMIT_AS``: V8 and the JVM reserve many GiB of address space they never
touch, and node cannot even create a one-page ``WebAssembly.Memory`` under a 4 GiB
``RLIMIT_AS``. The CPU limit's soft and hard values are equal, so the kernel sends SIGKILL
when it is reached. Limits are per process, not per server: a server that forks gets them
again in each child.

The sandbox sees a read-only system (``/usr`` and its top-level links, a short list of
``/etc`` entries — never ``/etc/shadow`` or host keys), this interpreter and its import path
when the command is this interpreter, the command itself, the configured read-only paths,
the server's ``cwd`` read-write, and a private ``/tmp``, ``/proc`` and ``/dev``; everything
else, the host's ``/tmp`` and ``$HOME`` included, does not exist inside. It has its own user
(no capabilities, no further user namespaces), pid, ipc, uts, cgroup and — unless the alias
allows the network — network namespace, and dies with its parent (the reaper shim that
starts it). No ``--new-session``: bwrap leads a process group of its own in the shim's session,
which has no terminal, so there is no tty to inject into. Ending bwrap ends its pid namespace
and so everything inside; the shim's sweep (R13) reaches every process in there anyway.
"""

from __future__ import annotations

import errno
import functools
import os
import shutil
import site
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from toolpool.errors import SandboxUnavailable

__all__ = ["BWRAP", "Bwrap", "Limits", "bwrap_problem", "require_sandbox", "wrap_argv"]

# Where bubblewrap lives on Debian; `Bwrap(executable=...)` points elsewhere (read when a
# `Bwrap` is made, so tests can point every sandbox at a broken one).
BWRAP = "/usr/bin/bwrap"
# The helper programs are looked up here, never in the host's PATH (the library does not
# read the environment); inside the sandbox these folders are visible at the same paths.
_SYSTEM_BIN = "/usr/bin:/bin"
# Bound on the one-off probe of whether bwrap can create its namespaces here.
_PROBE_TIMEOUT_S = 10.0
_MIB = 1024 * 1024
_CAP_SETPCAP = 8
_CAP_SYS_RESOURCE = 24
_TMP = "/tmp"  # noqa: S108 - the sandbox's own empty tmpfs, not the host's /tmp
_SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
# What of /etc a program may need: the loader, names, time zone, DNS, TLS roots, MIME types.
_ETC = (
    "alternatives",
    "ca-certificates",
    "ca-certificates.conf",
    "gai.conf",
    "group",
    "host.conf",
    "hosts",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "locale.alias",
    "localtime",
    "mime.types",
    "nsswitch.conf",
    "os-release",
    "passwd",
    "pki",
    "protocols",
    "resolv.conf",
    "services",
    "ssl",
    "timezone",
)
# Namespaces and privileges; `--share-net` is added after them when the alias allows it.
_ISOLATION = (
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
)


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-process resource limits; ``None`` leaves that resource unlimited."""

    memory_mb: int | None = 4096
    cpu_s: int | None = 3600
    open_files: int | None = 1024

    def prlimit_options(self) -> list[str]:
        options = []
        if self.memory_mb is not None:
            options.append(f"--data={self.memory_mb * _MIB}")
        if self.cpu_s is not None:
            options.append(f"--cpu={self.cpu_s}")
        if self.open_files is not None:
            options.append(f"--nofile={self.open_files}")
        return options


def _default_bwrap() -> str:
    return BWRAP


@dataclass(frozen=True, slots=True)
class Bwrap:
    """Run the server under bubblewrap.

    ``read_only`` paths (absolute) are visible read-only at the same place; a server that is
    not this interpreter needs its own code listed there (a ``node_modules``, a venv).
    """

    allow_network: bool = False
    read_only: tuple[Path, ...] = ()
    executable: str = field(default_factory=_default_bwrap)


def wrap_argv(
    command: str,
    args: Sequence[str],
    env: Mapping[str, str],
    cwd: Path | None,
    limits: Limits,
    sandbox: Bwrap | None,
) -> list[str]:
    """The argument list to spawn: ``command`` (already resolved) under limits and sandbox.

    Raises:
        FileNotFoundError: a helper program (prlimit, setpriv, env) is not installed.
    """
    argv = [command, *args]
    options = limits.prlimit_options()
    if options or sandbox is not None:
        argv = [_helper("prlimit"), *options, "--", *argv]
    if sandbox is None:
        return [*_no_raising_limits(), *argv] if options and _holds_sys_resource() else argv
    pwd = ["-u", "PWD"] if "PWD" not in env else [f"PWD={env['PWD']}"]
    mounts = _mounts(sandbox, command, cwd)
    network = ["--share-net"] if sandbox.allow_network else []
    chdir = ["--chdir", str(cwd) if cwd is not None else "/"]
    return [sandbox.executable, *_ISOLATION, *network, *mounts, *chdir, "--", _helper("env"), *pwd, *argv]


async def bwrap_problem(executable: str = BWRAP) -> str | None:
    """Why bubblewrap cannot run here, in its own words, or None if it can.

    Probed once per executable with the namespaces a sandbox uses; the answer is cached.
    """
    if executable not in _probed:
        _probed[executable] = await _probe(executable)
    return _probed[executable]


async def require_sandbox(alias: str, sandbox: Bwrap | None) -> None:
    """Check, before anything is started, that ``alias``'s sandbox can run.

    Raises:
        SandboxUnavailable: bwrap is missing or cannot create its namespaces here.
    """
    if sandbox is None:
        return
    problem = await bwrap_problem(sandbox.executable)
    if problem is not None:
        raise SandboxUnavailable(alias, problem)


_probed: dict[str, str | None] = {}


async def _probe(executable: str) -> str | None:
    probe = [executable, *_ISOLATION, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"]
    try:
        with anyio.fail_after(_PROBE_TIMEOUT_S):
            done = await anyio.run_process(probe, env={"PATH": _SYSTEM_BIN}, check=False)
    except OSError as exc:
        return f"cannot execute {executable}: {exc.strerror or exc}"
    except TimeoutError:
        return f"{executable} did not finish a trial run within {_PROBE_TIMEOUT_S:g} s"
    if done.returncode == 0:
        return None
    said = done.stderr.decode("utf-8", "replace").strip()
    return said or f"{executable} exited with status {done.returncode} on a trial run"


@functools.cache
def _helper(name: str) -> str:
    found = shutil.which(name, path=_SYSTEM_BIN)
    if found is None:
        raise FileNotFoundError(errno.ENOENT, f"{name} is needed to start stdio servers (util-linux)", name)
    return found


@functools.cache
def _holds_sys_resource() -> bool:
    """Whether a server started as is could raise its own hard limits, and we can prevent it.

    Root's children get every capability in the bounding set, ``CAP_SYS_RESOURCE`` included;
    dropping it from that set takes ``CAP_SETPCAP``. Other users' servers get no capabilities.
    """
    if os.geteuid() != 0:
        return False
    masks = {}
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in ("CapBnd", "CapEff"):
                    masks[key] = int(value, 16)
    except (OSError, ValueError):
        return False
    return bool(
        masks.get("CapBnd", 0) >> _CAP_SYS_RESOURCE & 1 and masks.get("CapEff", 0) >> _CAP_SETPCAP & 1
    )


def _no_raising_limits() -> list[str]:
    drop = "-sys_resource"
    return [_helper("setpriv"), "--bounding-set", drop, "--inh-caps", drop, "--ambient-caps", drop, "--"]


def _mounts(sandbox: Bwrap, command: str, cwd: Path | None) -> list[str]:
    # bwrap mounts in order, so a path is mounted after its parents: the most specific wins
    # (a read-only venv inside the read-write cwd stays read-only, and the other way round).
    planned: dict[str, list[str]] = {}
    root = Path("/")
    for name in _SYSTEM_DIRS:
        path = root / name
        if path.is_symlink():
            planned[str(path)] = ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            planned[str(path)] = ["--ro-bind", str(path), str(path)]
    for name in _ETC:
        if (root / "etc" / name).exists():
            planned[f"/etc/{name}"] = ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    planned |= {"/proc": ["--proc", "/proc"], "/dev": ["--dev", "/dev"], _TMP: ["--tmpfs", _TMP]}
    visible = [*sandbox.read_only, *(_interpreter_paths() if _is_this_python(command) else ())]
    if os.path.isabs(command):
        visible.append(Path(command))
    for path in visible:
        if not _covered(path, planned):
            planned[str(path)] = ["--ro-bind", str(path), str(path)]
    if cwd is not None:
        planned[str(cwd)] = ["--bind", str(cwd), str(cwd)]
    ordered = sorted(planned.items(), key=lambda item: len(Path(item[0]).parts))
    return [word for _, words in ordered for word in words] + ["--remount-ro", "/"]


def _covered(path: Path, planned: Mapping[str, list[str]]) -> bool:
    """Whether a read-only mount already planned shows ``path`` unchanged."""
    return any(words[0] == "--ro-bind" and path.is_relative_to(at) for at, words in planned.items())


def _is_this_python(command: str) -> bool:
    return os.path.realpath(command) == os.path.realpath(sys.executable)


@functools.cache
def _interpreter_paths() -> tuple[Path, ...]:
    """What this interpreter reads when it starts afresh, as a server does.

    Its prefixes (standard library, site-packages), the folders its ``.pth`` files add (an
    editable install), and toolpool's own package root (the demo servers). Not this
    process's ``sys.path``: that also holds whatever the caller put there.
    """
    paths = {Path(prefix) for prefix in (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix)}
    for site_dir in site.getsitepackages():
        paths.update(_pth_folders(Path(site_dir)))
    paths.add(Path(__file__).resolve().parents[2])
    found: list[Path] = []
    for path in sorted((path for path in paths if path.exists()), key=lambda path: len(path.parts)):
        if not any(path.is_relative_to(parent) for parent in found):
            found.append(path)
    return tuple(found)


def _pth_folders(site_dir: Path) -> list[Path]:
    """The folders ``site`` adds to the path from the ``.pth`` files in ``site_dir``."""
    folders = []
    for pth in sorted(site_dir.glob("*.pth")):
        try:
            lines = pth.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for line in (line.strip() for line in lines):
            if line and not line.startswith(("#", "import ", "import\t")):
                folders.append(Path(os.path.abspath(site_dir / line)))
    return folders
