# SPDX-License-Identifier: BSD-2-Clause
"""replay from Python: ctypes over libreplay.so.0 (see libreplay(3) and replay(1)).

    from replay import Replay
    stats = Replay(["dns.pcap"], interface="eth1", pps=100, loop=2).run()
    print(stats.packets_sent, stats.bytes_sent)

Keyword arguments are replay(1)'s long options, "_" for "-": ``pps=100`` is
``--pps 100``, ``stats_json="s.json"`` is ``--stats-json s.json``, ``True``
gives a flag, ``None`` or ``False`` leaves the option out, and a list or
tuple repeats it.  Nothing is printed: the summary is ``stats.summary`` and
a failure raises :class:`ReplayError` with the engine's message.  The
library is found as libreplay.so.0 (or at the path in $LIBREPLAY).

Progress while it runs, every ``interval`` seconds::

    for s in Replay("big.pcap", interface="eth1", pps=1000).progress(interval=0.5):
        print(s.packets_sent)     # the last one is the end's, as run() returns it

and a receiver's, the frames it captured so far::

    rx = Receiver("eth2", reference="big.pcap", timeout=30)
    for p in rx.progress(interval=0.5):
        print(p.frames, p.bytes)  # the last one (p.done) is the report's count
    print(rx.report["lost"])
"""
from __future__ import annotations

import ctypes
import errno
import json
import os
import queue
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Union

__all__ = ["Receiver", "Replay", "ReplayError", "RxProgress", "Stats", "library_version"]

PathLike = Union[str, "os.PathLike[str]"]


class ReplayError(Exception):
    """A run refused or failed: ``errno`` (EINVAL bad options, EIO the run failed), the
    engine's message, and for a failed run its ``stats``."""

    def __init__(self, err: int, message: str, stats: Optional["Stats"] = None):
        super().__init__(message or os.strerror(err))
        self.errno = err
        self.message = message
        self.stats = stats


class _CStats(ctypes.Structure):
    _fields_ = [
        ("packets_read", ctypes.c_uint64),
        ("packets_sent", ctypes.c_uint64),
        ("packets_failed", ctypes.c_uint64),
        ("packets_filtered", ctypes.c_uint64),
        ("bytes_sent", ctypes.c_uint64),
        ("duration_ns", ctypes.c_uint64),
        ("stopped", ctypes.c_int),
        ("exit_status", ctypes.c_int),
    ]


# int (*fn)(void *user, const struct replay_stats *st): libreplay(3)'s progress callback.
_ProgressFn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_CStats))


class _CRxProgress(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_uint64), ("bytes", ctypes.c_uint64),
                ("elapsed_ns", ctypes.c_uint64), ("done", ctypes.c_int)]


# int (*fn)(void *user): replay_run_set_ready()'s and replay_rx_set_ready()'s callback.
_ReadyFn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)


def _ready_cb(ready: Callable[[], Any], raised: list) -> Any:
    def call(_user: Any) -> int:
        try:
            return 1 if ready() else 0
        except BaseException as e:  # a callback of C's cannot raise: stop, and raise it after
            raised.append(e)
            return 1
    return _ReadyFn(call)


# int (*fn)(void *user, const struct replay_rx_progress *p): the receiver's progress callback.
# replay_line_fn: (user, stream, line); stream 1 stdout, 2 stderr, 3 replay's status line.
_LineFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)
_STREAMS = {1: "stdout", 2: "stderr", 3: "status"}


def _line_cb(output: Callable[[str, str], Any], raised: list) -> Any:
    def call(_user: Any, stream: int, line: bytes) -> None:
        if raised:
            return
        try:
            output(_STREAMS.get(stream, "stdout"), line.decode(errors="replace"))
        except BaseException as e:  # a callback of C's cannot raise: raise it after
            raised.append(e)
    return _LineFn(call)


_RxProgressFn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_CRxProgress))


@dataclass(frozen=True)
class RxProgress:
    """A receiver's counts while it captures: frames and their bytes so far,
    the time since the capture began; ``done`` on the last one, whose counts
    are the report's ``received`` and ``bytes``."""
    frames: int
    bytes: int
    elapsed_ns: int
    done: bool


@dataclass
class Stats:
    """A run's account, as replay(1)'s --stats-json totals; during a run (a
    progress snapshot) ``exit_status`` is -1 and ``duration_ns`` the time so far."""

    packets_read: int
    packets_sent: int
    packets_failed: int
    packets_filtered: int
    bytes_sent: int
    duration_ns: int
    stopped: bool
    exit_status: int
    json: dict = field(default_factory=dict, repr=False)  # the whole --stats-json document
    summary: str = field(default="", repr=False)  # what replay(1) prints after a run


_lib = None
_lib_lock = threading.Lock()


def _load() -> ctypes.CDLL:
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        lib = ctypes.CDLL(os.environ.get("LIBREPLAY") or "libreplay.so.0")
        run_p = ctypes.c_void_p
        sigs = {
            "replay_version": (ctypes.c_char_p, []),
            "replay_run_new_argv": (ctypes.c_int, [ctypes.POINTER(run_p), ctypes.c_int,
                                                   ctypes.POINTER(ctypes.c_char_p),
                                                   ctypes.POINTER(ctypes.c_void_p)]),
            "replay_run_exec": (ctypes.c_int, [run_p]),
            "replay_run_set_progress": (ctypes.c_int, [run_p, ctypes.c_uint64, ctypes.c_void_p,
                                                       ctypes.c_void_p]),
            "replay_run_stop": (ctypes.c_int, [run_p]),
            "replay_run_pause_toggle": (ctypes.c_int, [run_p]),
            "replay_run_stats": (ctypes.c_int, [run_p, ctypes.POINTER(_CStats), ctypes.c_size_t]),
            "replay_run_stats_json": (ctypes.c_char_p, [run_p]),
            "replay_run_summary": (ctypes.c_char_p, [run_p]),
            "replay_run_error": (ctypes.c_char_p, [run_p]),
            "replay_run_free": (None, [run_p]),
            "replay_rx_new_argv": (ctypes.c_int, [ctypes.POINTER(run_p), ctypes.c_int,
                                                  ctypes.POINTER(ctypes.c_char_p),
                                                  ctypes.POINTER(ctypes.c_void_p)]),
            "replay_rx_start": (ctypes.c_int, [run_p]),
            "replay_rx_stop": (ctypes.c_int, [run_p]),
            "replay_rx_wait": (ctypes.c_int, [run_p]),
            "replay_run_set_ready": (ctypes.c_int, [run_p, ctypes.c_void_p, ctypes.c_void_p]),
            "replay_run_set_lines": (ctypes.c_int, [run_p, ctypes.c_void_p, ctypes.c_void_p]),
            "replay_rx_set_lines": (ctypes.c_int, [run_p, ctypes.c_void_p, ctypes.c_void_p]),
            "replay_rx_interrupt": (ctypes.c_int, [run_p, ctypes.c_int]),
            "replay_rx_set_ready": (ctypes.c_int, [run_p, ctypes.c_void_p, ctypes.c_void_p]),
            "replay_rx_set_progress": (ctypes.c_int, [run_p, ctypes.c_uint64, ctypes.c_void_p,
                                                      ctypes.c_void_p]),
            "replay_rx_exit_status": (ctypes.c_int, [run_p]),
            "replay_rx_report_json": (ctypes.c_char_p, [run_p]),
            "replay_rx_report": (ctypes.c_char_p, [run_p]),
            "replay_rx_error": (ctypes.c_char_p, [run_p]),
            "replay_rx_free": (None, [run_p]),
        }
        for name, (res, args) in sigs.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        _lib = lib
        return lib


def library_version() -> str:
    """The version of the libreplay.so loaded."""
    return _load().replay_version().decode()


def _from_c(c: _CStats, doc: Any = None, summary: Any = None) -> Stats:
    return Stats(c.packets_read, c.packets_sent, c.packets_failed, c.packets_filtered,
                 c.bytes_sent, c.duration_ns, bool(c.stopped), c.exit_status,
                 json.loads(doc) if doc else {}, summary.decode(errors="replace") if summary else "")


def _new(lib: ctypes.CDLL, fn: str, argv: list) -> ctypes.c_void_p:
    words = [a.encode() for a in argv]
    arr = (ctypes.c_char_p * len(words))(*words)
    handle = ctypes.c_void_p()
    err = ctypes.c_void_p()
    rc = getattr(lib, fn)(ctypes.byref(handle), len(words), arr, ctypes.byref(err))
    if rc < 0:
        msg = ctypes.string_at(err.value).decode(errors="replace") if err.value else ""
        if err.value:
            libc = ctypes.CDLL(None)
            libc.free.argtypes = [ctypes.c_void_p]
            libc.free(err)
        raise ReplayError(-rc, msg)
    return handle


def _options(prog: str, options: dict) -> list:
    argv = [prog]
    for name, value in options.items():
        opt = "--" + name.replace("_", "-")
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            if v is None or v is False:
                continue
            if v is True:
                argv.append(opt)
            else:
                argv += [opt, os.fspath(v) if isinstance(v, os.PathLike) else str(v)]
    return argv


def _argv(files: Iterable[PathLike], options: dict) -> list:
    return _options("replay", options) + ["--"] + [os.fspath(f) for f in files]


class Replay:
    """One replay of trace files, described by replay(1)'s options.

    ``interface`` is -i; ``write`` (-w) writes a file instead; every other
    keyword is the long option of that name.  The options are checked here:
    a bad one raises :class:`ReplayError` (errno EINVAL).
    """

    def __init__(self, files: Union[PathLike, Sequence[PathLike]], interface: Optional[str] = None,
                 **options: Any):
        self._lib = _load()
        if isinstance(files, (str, os.PathLike)):
            files = [files]
        opts = {"intf1": interface, **options}
        self.argv = _argv(files, opts)
        self._run = _new(self._lib, "replay_run_new_argv", self.argv)
        self._thread: Optional[threading.Thread] = None
        self._result: Optional[Stats] = None
        self._error: Optional[ReplayError] = None

    def __del__(self) -> None:
        run = getattr(self, "_run", None)
        if run and (self._thread is None or not self._thread.is_alive()):
            self._lib.replay_run_free(run)
            self._run = None

    def _stats(self) -> Stats:
        c = _CStats()
        self._lib.replay_run_stats(self._run, ctypes.byref(c), ctypes.sizeof(c))
        return _from_c(c, self._lib.replay_run_stats_json(self._run), self._lib.replay_run_summary(self._run))

    def run(self, progress: Optional[Callable[[Stats], Any]] = None, interval: float = 0.1,
            ready: Optional[Callable[[], Any]] = None,
            output: Optional[Callable[[str, str], Any]] = None) -> Stats:
        """Send, on this thread, until the run ends (or :meth:`stop`); the statistics.

        With ``progress``, it is called on this thread with a :class:`Stats`
        snapshot at most once every ``interval`` seconds while the run goes
        on (between packets; with ``threads`` > 1 the threads' sum, each
        thread's counts at most 10 ms old); a true return stops
        the run, and an exception it raises stops it and is raised here.
        With ``ready``, it is called once on this thread when set-up is over
        (every socket open, no packet sent: where replay(1) drops its
        capabilities); a true return (or an exception) ends the run unsent.
        Raises :class:`ReplayError` when replay(1) would have exited non-zero
        (its ``stats`` are the account so far).
        With ``output``, it is called on this thread as ``output(stream,
        line)`` with each line replay(1) would print of its own (the
        ``stats`` lines, the summary), ``stream`` "stdout" or "stderr" as
        replay(1) would have chosen, or "status" for the status line it
        draws on a terminal (each replaces the last; "" erases it),
        ``line`` without its newline; an
        exception it raises is raised here once the run has ended."""
        if output is None:
            return self._run_ready(progress, interval, ready)
        raised: list = []
        lcb = _line_cb(output, raised)
        if self._lib.replay_run_set_lines(self._run, ctypes.cast(lcb, ctypes.c_void_p), None) == -errno.EBUSY:
            raise ReplayError(errno.EBUSY, "this replay is already running")
        try:
            stats = self._run_ready(progress, interval, ready)
        finally:
            self._lib.replay_run_set_lines(self._run, None, None)
        if raised:
            raise raised[0]
        return stats

    def _run_ready(self, progress: Optional[Callable[[Stats], Any]], interval: float,
                   ready: Optional[Callable[[], Any]]) -> Stats:
        if ready is None:
            return self._run_progress(progress, interval)
        raised: list = []
        rcb = _ready_cb(ready, raised)
        if self._lib.replay_run_set_ready(self._run, ctypes.cast(rcb, ctypes.c_void_p), None) == -errno.EBUSY:
            raise ReplayError(errno.EBUSY, "this replay is already running")
        try:
            stats = self._run_progress(progress, interval)
        finally:
            self._lib.replay_run_set_ready(self._run, None, None)
        if raised:
            raise raised[0]
        return stats

    def _run_progress(self, progress: Optional[Callable[[Stats], Any]], interval: float) -> Stats:
        if progress is None:
            return self._exec()
        interval_ns = int(interval * 1e9)
        if interval_ns <= 0:
            raise ValueError("interval must be positive")
        raised: list = []

        def call(_user: Any, st: Any) -> int:
            try:
                c = st.contents
                if c.exit_status >= 0:
                    return 0  # the end's: returned whole below
                return 1 if progress(_from_c(c)) else 0
            except BaseException as e:  # a callback of C's cannot raise: stop, and raise it after
                raised.append(e)
                return 1

        # Kept alive here until the library has forgotten it.
        cb = _ProgressFn(call)
        rc = self._lib.replay_run_set_progress(self._run, interval_ns, ctypes.cast(cb, ctypes.c_void_p), None)
        if rc == -errno.EBUSY:
            raise ReplayError(errno.EBUSY, "this replay is already running")
        try:
            stats = self._exec()
        finally:
            self._lib.replay_run_set_progress(self._run, 0, None, None)
        if raised:
            raise raised[0]
        return stats

    def _exec(self) -> Stats:
        rc = self._lib.replay_run_exec(self._run)
        if rc == -errno.EBUSY:
            raise ReplayError(errno.EBUSY, "this replay is already running")
        if rc < 0:
            msg = self._lib.replay_run_error(self._run).decode(errors="replace")
            raise ReplayError(-rc, msg, self._stats() if rc == -errno.EIO else None)
        return self._stats()

    def start(self, progress: Optional[Callable[[Stats], Any]] = None, interval: float = 0.1,
              _ended: Optional[Callable[[], None]] = None,
              output: Optional[Callable[[str, str], Any]] = None) -> "Replay":
        """Run in a background thread (``progress`` and ``output`` as :meth:`run`'s, called on it); :meth:`wait` or :meth:`stop` end it."""
        if self._thread is not None and self._thread.is_alive():
            raise ReplayError(errno.EBUSY, "this replay is already running")
        self._result, self._error = None, None

        def body() -> None:
            try:
                self._result = self.run(progress, interval, output=output)
            except BaseException as e:
                self._error = e
            finally:
                if _ended:
                    _ended()

        self._thread = threading.Thread(target=body, name="replay", daemon=True)
        self._thread.start()
        return self

    def wait(self, timeout: Optional[float] = None) -> Stats:
        """The background run's statistics once it ended (raises its error)."""
        if self._thread is None:
            raise ReplayError(errno.EINVAL, "not started")
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError("the replay is still running")
        if self._error:
            raise self._error
        assert self._result is not None
        return self._result

    def progress(self, interval: float = 0.1) -> Iterator[Stats]:
        """Run in the background and yield a :class:`Stats` snapshot at most once
        every ``interval`` seconds (``exit_status`` -1), then the end's, as
        :meth:`wait` returns it (raising the run's error instead).  Leaving
        the loop early stops the run."""
        end = object()
        snaps: queue.Queue = queue.Queue()
        self.start(progress=snaps.put, interval=interval, _ended=lambda: snaps.put(end))
        try:
            while True:
                s = snaps.get()
                if s is end:
                    break
                yield s
            yield self.wait()
        finally:
            if self._thread is not None and self._thread.is_alive():
                self._lib.replay_run_stop(self._run)
                self._thread.join()

    def pause_toggle(self) -> None:
        """Suspend the run, or resume it if suspended, as replay(1)'s SIGUSR1."""
        self._lib.replay_run_pause_toggle(self._run)

    def stop(self, timeout: Optional[float] = None) -> Stats:
        """End the run after the packet being sent; its statistics (``stopped`` True)."""
        if self._thread is not None and self._thread.is_alive():
            self._lib.replay_run_stop(self._run)
        return self.wait(timeout)

    def __enter__(self) -> "Replay":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        if self._thread is not None and self._thread.is_alive():
            self._lib.replay_run_stop(self._run)
            self._thread.join()


class Receiver:
    """replay-rx's capture on ``interface`` (in this thread's network namespace).

    Keywords are replay-rx(1)'s long options (``reference="t.pcap"``,
    ``count=100``, ``filter="udp"``).  :meth:`start` returns once frames are
    being captured; :meth:`stop` ends the capture and returns the report,
    replay-rx's --json document as a dict (``report["received"]``...).  Also
    a context manager: ``with Receiver(...) as rx: ...; rx.report``.
    Progress while it captures: :meth:`start`'s ``progress``, or iterate
    :meth:`progress` (or the receiver itself, every 0.1 s).
    """

    def __init__(self, interface: Optional[str] = None, **options: Any):
        self._lib = _load()
        self.argv = _options("replay-rx", {"interface": interface, **options})
        self._rx = _new(self._lib, "replay_rx_new_argv", self.argv)
        self.report: Optional[dict] = None
        self.table = ""
        self.exit_status = -1
        self._cb: Any = None
        self._ready_cb: Any = None
        self._line_cb: Any = None
        self._raised: list = []

    def __del__(self) -> None:
        rx = getattr(self, "_rx", None)
        if rx:
            self._lib.replay_rx_free(rx)
            self._rx = None

    def start(self, progress: Optional[Callable[[RxProgress], Any]] = None,
              interval: float = 0.1, ready: Optional[Callable[[], Any]] = None,
              output: Optional[Callable[[str, str], Any]] = None) -> "Receiver":
        """Open the capture and receive in the background; raises :class:`ReplayError` on a set-up failure.

        With ``progress``, it is called on the receiver's thread with an
        :class:`RxProgress` at most once every ``interval`` seconds while it
        captures, then once with ``done`` True when the capture has ended; a
        true return ends the capture (the report follows), and an exception
        it raises ends it and is raised by :meth:`stop` or :meth:`wait`.
        With ``ready``, it is called once on the receiver's thread when the
        capture is open and nothing read yet, before this returns (a program
        may drop its capabilities there); a true return ends the capture.
        With ``output``, it is called on the receiver's thread as
        ``output(stream, line)`` with each line replay-rx(1) would print of
        its own (the "listening on" line, the report table as ``quiet``
        chooses, ``json="-"``'s report), ``stream`` "stdout" or "stderr";
        an exception it raises is raised by :meth:`stop` or :meth:`wait`."""
        interval_ns = int(interval * 1e9)
        if progress is not None and interval_ns <= 0:
            raise ValueError("interval must be positive")
        self._raised = []
        rcb = None if ready is None else _ready_cb(ready, self._raised)
        if self._lib.replay_rx_set_ready(self._rx, rcb and ctypes.cast(rcb, ctypes.c_void_p), None) == -errno.EBUSY:
            raise ReplayError(errno.EBUSY, "this receiver is already running")
        self._ready_cb = rcb
        lcb = None if output is None else _line_cb(output, self._raised)
        self._lib.replay_rx_set_lines(self._rx, lcb and ctypes.cast(lcb, ctypes.c_void_p), None)
        self._line_cb = lcb
        if progress is None:
            cb, rc = None, self._lib.replay_rx_set_progress(self._rx, 0, None, None)
        else:
            raised = self._raised

            def call(_user: Any, p: Any) -> int:
                try:
                    c = p.contents
                    snap = RxProgress(c.frames, c.bytes, c.elapsed_ns, bool(c.done))
                    return 1 if progress(snap) else 0
                except BaseException as e:  # a callback of C's cannot raise: stop, and raise it after
                    raised.append(e)
                    return 1

            cb = _RxProgressFn(call)
            rc = self._lib.replay_rx_set_progress(self._rx, interval_ns, ctypes.cast(cb, ctypes.c_void_p), None)
        if rc == -errno.EBUSY:
            raise ReplayError(errno.EBUSY, "this receiver is already running")
        # Kept alive until the capture has ended.
        self._cb = cb
        rc = self._lib.replay_rx_start(self._rx)
        if rc < 0:
            self._forget()
            raise ReplayError(-rc, self._lib.replay_rx_error(self._rx).decode(errors="replace"))
        return self

    def _forget(self) -> None:
        self._lib.replay_rx_set_progress(self._rx, 0, None, None)
        self._lib.replay_rx_set_ready(self._rx, None, None)
        self._lib.replay_rx_set_lines(self._rx, None, None)
        self._cb = self._ready_cb = self._line_cb = None

    def _end(self, rc: int) -> dict:
        if self._cb is not None or self._ready_cb is not None or self._line_cb is not None:
            self._forget()
        if rc < 0:
            raise ReplayError(-rc, self._lib.replay_rx_error(self._rx).decode(errors="replace"))
        doc = self._lib.replay_rx_report_json(self._rx)
        table = self._lib.replay_rx_report(self._rx)
        self.report = json.loads(doc) if doc else {}
        self.table = table.decode(errors="replace") if table else ""
        self.exit_status = self._lib.replay_rx_exit_status(self._rx)
        if self._raised:
            raise self._raised[0]
        return self.report

    def stop(self) -> dict:
        """End the capture (within 100 ms); the report.  ``exit_status`` is replay-rx's (3: a mismatch)."""
        return self._end(self._lib.replay_rx_stop(self._rx))

    def wait(self) -> dict:
        """As :meth:`stop`, for a capture that ends itself (count, timeout, idle)."""
        return self._end(self._lib.replay_rx_wait(self._rx))

    def progress(self, interval: float = 0.1) -> Iterator[RxProgress]:
        """Start the capture now (a sender may begin once this returns) and
        give an iterator over its :class:`RxProgress`, at most one every
        ``interval`` seconds; the last (``done``) comes once the capture has
        ended (count, timeout, idle, or :meth:`stop` from another thread),
        with :attr:`report` then filled in (the capture's error is raised
        instead).  Leaving the loop early ends the capture."""
        snaps: queue.Queue = queue.Queue()
        self.start(progress=snaps.put, interval=interval)
        return self._snapshots(snaps)

    def _snapshots(self, snaps: "queue.Queue[RxProgress]") -> Iterator[RxProgress]:
        ended = False
        try:
            while True:
                p = snaps.get()
                if p.done:
                    ended = True
                    self.wait()
                    yield p
                    return
                yield p
        finally:
            if not ended:
                self.stop()

    def __iter__(self) -> Iterator[RxProgress]:
        return self.progress()

    def __enter__(self) -> "Receiver":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
