"""What an extraction child can reach. A parser exploit runs as the child, so the child holds no
secret and has no network:

- Environment: the fork server the children come from starts with an allow-listed environment
  (child.py), so no child has the database URL, the secrets key, the NATS token or a model's API
  key, in os.environ or in /proc/self/environ; each child clears os.environ to the list again.
- Network, in layers, each where the kernel allows it: a network namespace of the child's own
  (in a new user namespace, so a root child holds no capability over the machine's network),
  where no interface is up; then a seccomp filter that refuses socket() and socketpair()
  (EPERM), which also closes Unix sockets reached by path. Where neither is possible (another
  OS, a container that forbids both), creating a socket in Python raises: a guard against a
  parser's accidental network use, not a security boundary (native code goes around it).
"""

import ctypes
import errno
import os
import platform
import socket
import struct
from collections.abc import Mapping
from typing import Any, NoReturn

# what a child needs to start Python and read files: no secret ever goes in these
ALLOWED_NAMES = frozenset({"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR"})
ALLOWED_PREFIXES = ("LC_", "PYTHON")
PROTECTIONS: list[str] = []  # what enter() put in place, for the start-up log line

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
# per architecture: the seccomp audit value and the numbers of socket, socketpair, io_uring_setup
# (io_uring can open sockets without the socket system call)
_SYSCALLS = {
    "x86_64": (0xC000003E, (41, 53, 425)),
    "aarch64": (0xC00000B7, (198, 199, 425)),
}
_X32_SYSCALL_BIT = 0x40000000  # x86_64's other ABI: its numbers are refused wholesale


def allowed_environment(environment: Mapping[str, str]) -> dict[str, str]:
    return {
        name: value
        for name, value in environment.items()
        if name in ALLOWED_NAMES or name.startswith(ALLOWED_PREFIXES)
    }


def enter() -> None:
    """In the child, before it reads a byte of the file: no secrets, no network."""
    kept = allowed_environment(os.environ)
    os.environ.clear()
    os.environ.update(kept)
    PROTECTIONS[:] = ["environment allow-listed"]
    if own_network_namespace():
        PROTECTIONS.append("own network namespace")
    if refuse_new_sockets():
        PROTECTIONS.append("seccomp filter refusing sockets")
    if len(PROTECTIONS) == 1:
        guard_socket_creation()
        PROTECTIONS.append("in-process socket guard only (neither namespace nor seccomp allowed)")


def own_network_namespace() -> bool:
    """A network namespace with nothing in it; as an unprivileged user inside a user namespace
    of its own, else (user namespaces forbidden, CAP_SYS_ADMIN held) alone."""
    libc = _libc()
    if libc is None:
        return False
    return any(libc.unshare(flags) == 0 for flags in (CLONE_NEWUSER | CLONE_NEWNET, CLONE_NEWNET))


def refuse_new_sockets() -> bool:
    """A seccomp filter on this process (and whatever it starts): creating a socket fails with
    EPERM, every other system call is allowed. False where the kernel or libc cannot."""
    known = _SYSCALLS.get(platform.machine())
    libc = _libc()
    if known is None or libc is None:
        return False
    program = _socket_filter(*known)
    instructions = ctypes.create_string_buffer(program, len(program))

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = Program(len(program) // 8, ctypes.addressof(instructions))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0


def _socket_filter(arch: int, refused: tuple[int, ...]) -> bytes:
    """Classic BPF over struct seccomp_data (nr at offset 0, arch at 4)."""
    ld_abs, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, refuse = 0x7FFF0000, 0x00050000 | errno.EPERM
    code = [
        (ld_abs, 0, 0, 4),  # A = arch
        (jeq, 1, 0, arch),  # ours: go on; another ABI (32-bit calls): refused
        (ret, 0, 0, refuse),
        (ld_abs, 0, 0, 0),  # A = system call number
        (jge, len(refused) + 1, 0, _X32_SYSCALL_BIT),
        *[(jeq, len(refused) - i, 0, number) for i, number in enumerate(refused)],
        (ret, 0, 0, allow),
        (ret, 0, 0, refuse),
    ]
    return b"".join(struct.pack("HBBI", *instruction) for instruction in code)


def guard_socket_creation() -> None:
    """Python code that opens a socket gets an error, not a connection."""

    def refuse(*_args: Any, **_kwargs: Any) -> NoReturn:
        raise PermissionError(errno.EPERM, "an extraction child may not open sockets")

    socket.socket = refuse  # type: ignore[assignment, misc]
    socket.socketpair = refuse
    socket.create_connection = refuse


def _libc() -> Any:
    if platform.system() != "Linux":
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
