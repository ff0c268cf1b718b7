"""Isolating the process that reads a submission (Linux): no network, bounded memory and CPU time.

Called first thing in the sandbox's child process (geosite.review.sandbox), before GDAL, PROJ or any
thread starts:

- :func:`enter_network_namespace`: ``unshare(CLONE_NEWNET)``: the process gets a network of its own
  holding only a loopback interface that is down, so no connection leaves it (not even to 127.0.0.1 of
  the machine). Needs CAP_SYS_ADMIN (root, or a user namespace).
- :func:`block_sockets`: a seccomp filter (no library needed: a classic-BPF program installed with
  ``prctl``) making ``socket()`` fail with EPERM for every address family but AF_UNIX, and
  ``io_uring_setup`` fail too (io_uring can open sockets without ``socket()``); and refusing every new
  process (``fork``, ``vfork``, a ``clone`` without ``CLONE_THREAD``: EPERM; ``clone3``, whose flags a
  filter cannot read: ENOSYS, so the C library falls back to ``clone`` for its threads), so the process's
  own limits bound everything it runs; x86-64 only. It holds for the process and every thread it starts
  after, and cannot be lifted.
- :func:`set_limits`: RLIMIT_AS (address space, bytes) and RLIMIT_CPU (seconds; the kernel kills the
  process past it).

:func:`network_probe` tries a TCP connection and says what stopped it, for the report.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource
import socket
import struct

CLONE_NEWNET = 0x40000000
_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_AUDIT_ARCH_X86_64 = 0xC000003E
_NR_SOCKET = 41
_NR_CLONE, _NR_FORK, _NR_VFORK, _NR_CLONE3 = 56, 57, 58, 435
_NR_IO_URING_SETUP = 425
_CLONE_THREAD = 0x00010000
_X32_BIT = 0x40000000
_RET_ALLOW = 0x7FFF0000
_RET_EPERM = 0x00050000 | errno.EPERM
_RET_ENOSYS = 0x00050000 | errno.ENOSYS


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def enter_network_namespace() -> tuple[bool, str]:
    """Move this process into a new, empty network namespace. Returns (held, why not)."""
    unshare = getattr(os, "unshare", None)
    try:
        if unshare is not None:
            unshare(CLONE_NEWNET)
        elif _libc().unshare(CLONE_NEWNET) != 0:
            e = ctypes.get_errno()
            return False, os.strerror(e)
    except (OSError, AttributeError) as exc:
        return False, str(exc)
    return True, ""


def _filter() -> bytes:
    """The seccomp program: (code, jt, jf, k) per instruction, relative jumps."""
    ld_abs, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    prog = [
        (ld_abs, 0, 0, 4),  # 0: A = arch
        (jeq, 0, 12, _AUDIT_ARCH_X86_64),  # 1: not x86-64 -> allow (the filter is installed on x86-64 only)
        (ld_abs, 0, 0, 0),  # 2: A = syscall number
        (jge, 11, 0, _X32_BIT),  # 3: x32 ABI -> EPERM
        (jeq, 0, 2, _NR_SOCKET),  # 4: socket() ?
        (ld_abs, 0, 0, 16),  # 5: A = args[0] (address family, low word)
        (jeq, 7, 8, socket.AF_UNIX),  # 6: AF_UNIX -> allow, else EPERM
        (jeq, 7, 0, _NR_IO_URING_SETUP),  # 7: io_uring_setup -> EPERM
        (jeq, 6, 0, _NR_FORK),  # 8: fork -> EPERM
        (jeq, 5, 0, _NR_VFORK),  # 9: vfork -> EPERM
        (jeq, 5, 0, _NR_CLONE3),  # 10: clone3 -> ENOSYS (its flags are behind a pointer)
        (jeq, 0, 2, _NR_CLONE),  # 11: clone ?
        (ld_abs, 0, 0, 16),  # 12: A = args[0] (the clone flags, low word)
        (jset, 0, 1, _CLONE_THREAD),  # 13: a thread -> allow, a process -> EPERM
        (ret, 0, 0, _RET_ALLOW),  # 14
        (ret, 0, 0, _RET_EPERM),  # 15
        (ret, 0, 0, _RET_ENOSYS),  # 16
    ]
    return b"".join(struct.pack("HBBI", *ins) for ins in prog)


def block_sockets() -> tuple[bool, str]:
    """Install the seccomp filter (sockets but AF_UNIX refused, no new process) in this process. Returns
    (held, why not).
    """
    if platform.machine() not in ("x86_64", "AMD64"):
        return False, f"seccomp filter written for x86-64, this is {platform.machine()}"
    code = _filter()
    buf = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        """The kernel's struct sock_fprog: the filter's length in instructions, and where it is."""

        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = SockFprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    libc = _libc()
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0:
        return False, os.strerror(ctypes.get_errno())
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0) != 0:
        return False, os.strerror(ctypes.get_errno())
    return True, ""


def die_with_parent() -> bool:
    """Have the kernel SIGKILL this process when the process that started it ends (PR_SET_PDEATHSIG),
    so a killed ``check`` leaves no child running. Returns whether it held.
    """
    libc = _libc()
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    held = libc.prctl(_PR_SET_PDEATHSIG, 9, None, 0, 0) == 0  # SIGKILL
    return held and os.getppid() != 1  # the parent may have ended before the call


def set_limits(*, memory_bytes: int | None, cpu_seconds: int | None) -> None:
    """RLIMIT_AS to ``memory_bytes`` (bytes of address space) and RLIMIT_CPU to ``cpu_seconds`` (s)."""
    if memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    if cpu_seconds:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))


def network_probe(host: str = "127.0.0.1", port: int = 9) -> str:
    """Try a TCP connection to ``host:port``; say what happened (``"socket refused (EPERM)"``,
    ``"unreachable"``, ``"connection refused"`` ...): anything but a connection.
    """
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    except OSError as exc:
        return f"no socket ({errno.errorcode.get(exc.errno or 0, exc.errno)})"
    try:
        s.settimeout(1.0)
        s.connect((host, port))
        return "CONNECTED"
    except OSError as exc:
        return f"connect failed ({errno.errorcode.get(exc.errno or 0, exc.errno)})"
    finally:
        s.close()


# ------------------------------------------------------------------------------------------ Landlock

_NR_LANDLOCK_CREATE_RULESET, _NR_LANDLOCK_ADD_RULE, _NR_LANDLOCK_RESTRICT_SELF = 444, 445, 446
_LL_EXECUTE, _LL_WRITE_FILE, _LL_READ_FILE, _LL_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_LL_FS_ABI1 = (1 << 13) - 1  # execute ... make_sym: every right of ABI 1
_LL_REFER, _LL_TRUNCATE = 1 << 13, 1 << 14
_LL_NET_BIND_TCP, _LL_NET_CONNECT_TCP = 1, 2
_FILE_RIGHTS = _LL_EXECUTE | _LL_WRITE_FILE | _LL_READ_FILE | _LL_TRUNCATE


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none)."""
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    v = libc.syscall(_NR_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return int(v) if v > 0 else 0


def restrict_files(read: list[str], write: list[str]) -> tuple[bool, str]:
    """Landlock: from now on this process (and its threads and children) may read only beneath the
    paths in ``read`` and write only beneath those in ``write``; with Landlock ABI 4 or later, no TCP
    connection or bind either. Paths that do not exist are skipped. Returns (held, why not).
    """
    abi = landlock_abi()
    if abi < 1:
        return False, "Landlock not available in this kernel"
    fs = _LL_FS_ABI1 | (_LL_REFER if abi >= 2 else 0) | (_LL_TRUNCATE if abi >= 3 else 0)
    net = (_LL_NET_BIND_TCP | _LL_NET_CONNECT_TCP) if abi >= 4 else 0
    attr = struct.pack("QQ", fs, net) if abi >= 4 else struct.pack("Q", fs)
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(
        _NR_LANDLOCK_CREATE_RULESET, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)
    )
    if fd < 0:
        return False, f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}"
    try:
        reads = _LL_EXECUTE | _LL_READ_FILE | _LL_READ_DIR
        writes = fs & ~_LL_EXECUTE
        for paths, rights in ((read, reads), (write, writes)):
            for p in paths:
                _add_rule(libc, fd, p, rights, fs)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0:
            return False, os.strerror(ctypes.get_errno())
        if libc.syscall(_NR_LANDLOCK_RESTRICT_SELF, ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            return False, f"landlock_restrict_self: {os.strerror(ctypes.get_errno())}"
    finally:
        os.close(fd)
    return True, ""


def _add_rule(libc: ctypes.CDLL, ruleset: int, path: str, rights: int, handled: int) -> None:
    try:
        pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rule = struct.pack("=Qi", rights & handled, pfd)
        libc.syscall(
            _NR_LANDLOCK_ADD_RULE,
            ctypes.c_int(ruleset),
            ctypes.c_int(1),
            ctypes.c_char_p(rule),
            ctypes.c_uint32(0),
        )
    finally:
        os.close(pfd)
