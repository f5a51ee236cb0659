"""The process among the others on the machine, its dealings with the operating system in one
place: the memory and the cores it may use (and how many cores the rest of the machine leaves
it), Ctrl-C and ``kill`` held over a write or turned into a clean stop, and worker processes
that never outlive the command that started them.

Training and evaluation spread games over worker processes. Two things must hold however the
command ends: Ctrl-C reaches only the command (which saves what it has and closes its workers;
a worker stopped in mid-message would only print a traceback), and a worker never outlives its
parent (not even after ``kill -9`` of the trainer). Every worker calls :func:`serve_parent`
first.
"""

from __future__ import annotations

import _thread
import contextlib
import ctypes
import functools
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def machine_memory() -> int:
    """The bytes of this machine's memory: what bounds a batch, a run's games or an
    evaluation's records, checked before they are allocated."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def usable_cores() -> int:
    """The cores this process may run on (``taskset`` or a container can give fewer than the
    machine has)."""
    return len(os.sched_getaffinity(0))


class CoreShare:
    """How many of this process's cores the rest of the machine leaves it, measured over the
    time since the last look: the machine's busy time on those cores (``/proc/stat``) less this
    process's own. Work at a lower priority (a higher ``nice``) counts as busy too: it still
    gets its slices, and a torch thread waiting for a descheduled one spins meanwhile.

    torch's threads wait for one another at every step of a matrix product: one of them sharing
    a core with another program holds up all of them, and a run beside one busy core took over
    twice as long on two threads as on one. Training picks its threads from ``free()`` before
    each phase that computes in torch (``train.ppo``, ``train.imitation``)."""

    WINDOW = 0.25  # seconds: a shorter look says nothing

    def __init__(self) -> None:
        self.cores = sorted(os.sched_getaffinity(0))
        self._last = self._sample()
        self._free: int | None = None  # the last look's answer

    def _sample(self) -> tuple[float, float, float] | None:
        """(busy jiffies, all jiffies, own jiffies), or None where /proc/stat cannot be read
        (then every core counts as free)."""
        try:
            with open("/proc/stat") as f:
                lines = [line.split() for line in f if line.startswith("cpu")]
        except OSError:
            return None
        busy = total = 0.0
        for fields in lines:
            if fields[0][3:] and int(fields[0][3:]) in self.cores:
                user, nice, system, idle, iowait, irq, softirq, steal = map(int, fields[1:9])
                busy += user + nice + system + irq + softirq + steal
                total += user + nice + system + idle + iowait + irq + softirq + steal
        return busy, total, own_cpu_seconds() * os.sysconf("SC_CLK_TCK")

    def free(self, keep: int = 0) -> int:
        """The cores left free since the last look (at least 1), less ``keep`` for other work
        of this process (game workers). A look right after the last one gives its answer."""
        cores = len(self.cores)
        window = self.WINDOW * os.sysconf("SC_CLK_TCK") * cores
        now, last = self._sample(), self._last
        if now is None or last is None:
            return max(1, cores - keep)
        if now[1] - last[1] < window:
            if self._free is not None:
                return max(1, self._free - keep)
            time.sleep(self.WINDOW)  # the first look: measure a moment
            now = self._sample() or now
        self._last = now
        elapsed = max(now[1] - last[1], 1) / cores  # jiffies of one core
        others = max(0.0, (now[0] - last[0]) - (now[2] - last[2])) / elapsed
        taken = math.floor(others + 0.5)  # a core others keep busy half the time or more
        self._free = max(1, cores - taken)
        return max(1, self._free - keep)


@functools.cache
def core_share() -> CoreShare:
    """The process's one watch of the machine's cores (each look measures since the last)."""
    return CoreShare()


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """Ctrl-C and ``kill`` (SIGTERM) wait for the end of the block, then land as they would
    have: the file is written whole first. (A KeyboardInterrupt inside zipfile's writer, as
    numpy saves, leaves the archive half-closed, and closing it raises a ValueError that takes
    the stop's place.) Signals reach only the main thread's handlers, so elsewhere it holds
    nothing; nor where a handler was set outside Python, which could not be put back."""
    stops = (signal.SIGINT, signal.SIGTERM)
    handlers = {signum: signal.getsignal(signum) for signum in stops}
    if threading.current_thread() is not threading.main_thread() or None in handlers.values():
        yield
        return
    held: list[int] = []
    for signum in stops:
        signal.signal(signum, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        if held:
            signal.raise_signal(held[0])


def serve_parent() -> None:
    """Ignore Ctrl-C (the parent handles it) and end when the parent process ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    started_by = multiprocessing.parent_process()
    parent = started_by.pid if started_by is not None else os.getppid()
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)  # the kernel signals us
    else:
        threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the watch was set
        os._exit(0)


def one_thread_worker() -> None:
    """A pool's worker process: :func:`serve_parent`, and OpenMP (torch's kernels on the CPU) on
    one thread unless the environment says otherwise (workers that each take every core for a
    network's forward pass fight over the cores, and all of them crawl). Ray sets its tasks'
    threads itself."""
    serve_parent()
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Within the block Ctrl-C and ``kill`` (SIGTERM) stop the command alike, which cleans
    up, saves, says so and exits 130 (Python's default for SIGTERM ends it on the spot, workers
    and all), and neither is lost: one that lands while numba compiles a kernel is raised in a
    ctypes callback of the compiler, which drops it, so the hook on dropped exceptions sends it
    again. A Ctrl-C that the shell that started the command ignores stays ignored."""
    stops = [signal.SIGTERM]
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        stops.append(signal.SIGINT)
    previous = {signum: signal.signal(signum, _interrupt) for signum in stops}
    hook = sys.unraisablehook
    sys.unraisablehook = functools.partial(_raise_dropped_stop, hook)
    try:
        yield
    finally:
        sys.unraisablehook = hook
        for signum, handler in previous.items():
            signal.signal(signum, handler)


RESEND_AFTER = 0.05  # seconds: a dropped stop's resending waits for the hook to return


class Stopped(KeyboardInterrupt):
    """Ctrl-C or kill (``signum``) stops the command. Its own class, not KeyboardInterrupt
    itself: CPython marks a bare KeyboardInterrupt that passes through code run from a string
    (numba's compiler runs such) as never handled, and after the command's exit 130 ends the
    process by SIGINT."""

    def __init__(self, signum: int) -> None:
        super().__init__()
        self.signum = signum


def _interrupt(signum, frame) -> None:
    raise Stopped(signum)


def _raise_dropped_stop(hook: Callable[[Any], None], unraisable: Any) -> None:
    """Send a dropped Ctrl-C or kill again, a moment later from another thread: the main
    thread handles it anew in its Python code by then, past this hook (armed at once it would
    raise here, where it is dropped too; dropped again, it comes back again). Other dropped
    exceptions go to ``hook``."""
    stop = unraisable.exc_value
    if isinstance(stop, KeyboardInterrupt):
        signum = getattr(stop, "signum", signal.SIGINT)
        resend = threading.Timer(RESEND_AFTER, _thread.interrupt_main, args=(signum,))
        resend.daemon = True
        resend.start()
    else:
        hook(unraisable)


@contextlib.contextmanager
def sigterm_kept() -> Iterator[None]:
    """This process's SIGTERM handler as it was after the block, whatever a library in it
    installed (Ray's aborts the process with a stack dump, where the command saves and says
    so). Only the main thread can set one back."""
    handler = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        if handler is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, handler)


def own_cpu_seconds() -> float:
    """CPU-seconds (user and system) of this process and of the children it has waited for."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def cpu_seconds() -> float:
    """CPU-seconds (user and system) this process has used since it started, with its worker
    processes: those it has waited for (``own_cpu_seconds``) and those still running, with
    theirs (``/proc``; where it cannot be read, the running ones are left out)."""
    return own_cpu_seconds() + sum(_proc_cpu_seconds(pid) for pid in _live_children(os.getpid()))


def _live_children(pid: int) -> list[int]:
    """The processes ``pid`` started that still run (``/proc/<pid>/task/*/children``)."""
    children = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                children += [int(child) for child in f.read().split()]
    except OSError:  # no /proc, or the process has just ended
        return []
    return children


def _proc_cpu_seconds(pid: int) -> float:
    """A running process's CPU-seconds with those of its own children, dead or alive."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            # the fields after the command's name, which may hold spaces, closed by ")"
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):  # it has just ended: its parent's os.times counts it now
        return 0.0
    # utime, stime, cutime, cstime: fields 14-17 of proc(5), 12-15 after the name
    ticks = sum(int(field) for field in fields[11:15])
    alive = sum(_proc_cpu_seconds(child) for child in _live_children(pid))
    return ticks / os.sysconf("SC_CLK_TCK") + alive
