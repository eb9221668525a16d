"""Who is busy during a bench phase: CPU and memory of every process of the stack, by role, and how the
sockets spread over the web processes (psutil; Linux).

Roles: ``web`` (each uvicorn worker process, by pid), ``celery`` (worker and beat, with their children),
``postgres`` (every process of the cluster: the server is shared, so a busy neighbour's database would
count too), ``redis`` (the server behind the bench's Redis URL) and ``load`` (this process: the clients).
CPU is user + system seconds; memory is each process's PSS (a shared page counted once across processes,
so the roles add up to the whole stack's memory without counting the forked workers' shared pages twice),
but for PostgreSQL's shared memory: the cluster holds its segment (shared buffers and the rest) from its
start, while a backend's PSS counts a page of it only once that backend has touched it, so new backends
reading the buffers look like growth. There each process counts its PSS without its shared-memory part
(``Pss_Shmem``), and the segment counts once at its size (:func:`_pg_segment_bytes`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import psutil


def _pss(proc: psutil.Process) -> int:
    """Proportional set size in bytes (falls back to RSS where smaps is unreadable)."""
    try:
        return proc.memory_full_info().pss
    except (AttributeError, psutil.AccessDenied):
        return proc.memory_info().rss


def _smaps_rollup(pid: int) -> dict[str, int]:
    """``/proc/<pid>/smaps_rollup``'s kB fields in bytes (empty where it is unreadable)."""
    out = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if rest.strip().endswith("kB"):
                    out[key] = int(rest.split()[0]) * 1024
    except OSError:
        pass
    return out


def _pg_segment_bytes(postmaster: psutil.Process) -> int:
    """The size of the cluster's shared memory: the postmaster's shared writable mappings (``rw-s``: the
    main segment of ``shared_memory_type = mmap``, the small System V one), in bytes."""
    total, shared = 0, False
    try:
        with open(f"/proc/{postmaster.pid}/smaps") as f:
            for line in f:
                head = line.split(maxsplit=2)
                if len(head) >= 2 and "-" in head[0] and len(head[1]) == 4:  # a mapping's first line
                    shared = head[1] == "rw-s"
                elif shared and line.startswith("Size:"):
                    total += int(line.split()[1]) * 1024
    except OSError:
        return 0
    return total


def _pg_memory(procs: list[psutil.Process]) -> dict[int, int]:
    """pid -> bytes for the cluster's processes (PSS less ``Pss_Shmem``), and ``-1`` -> its shared segment
    (:func:`_pg_segment_bytes` of the postmaster, the process whose parent is not PostgreSQL)."""
    pids = {p.pid for p in procs}
    out = {}
    for proc in procs:
        try:
            rollup = _smaps_rollup(proc.pid)
            out[proc.pid] = rollup["Pss"] - rollup.get("Pss_Shmem", 0) if "Pss" in rollup else _pss(proc)
            if proc.ppid() not in pids:
                out[-1] = out.get(-1, 0) + _pg_segment_bytes(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):  # a backend that ended meanwhile
            out.pop(proc.pid, None)
    return out


def redis_pid(port: int) -> int | None:
    """The pid of the process listening on ``port`` on loopback (the bench's Redis)."""
    for conn in psutil.net_connections(kind="tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
            return conn.pid
    return None


@dataclass
class Roles:
    """How to find the processes of each role now (the web and Celery groups may fork)."""

    web_groups: list[int]  # process groups of the uvicorn servers (their supervisors' pids)
    celery_groups: list[int]  # process groups of the Celery workers and beat
    redis_port: int
    load_pid: int = field(default_factory=os.getpid)

    def processes(self) -> dict[str, list[psutil.Process]]:
        web, celery, postgres = [], [], []
        for proc in psutil.process_iter(["name"]):
            try:
                pgid = os.getpgid(proc.pid)
            except (ProcessLookupError, PermissionError):
                continue
            if pgid in self.web_groups:  # uvicorn's workers and their supervisor (which only waits)
                web.append(proc)
            elif pgid in self.celery_groups:
                celery.append(proc)
            elif (proc.info.get("name") or "").startswith("postgres"):
                postgres.append(proc)
        redis = [psutil.Process(pid)] if (pid := redis_pid(self.redis_port)) else []
        return {"web": web, "celery": celery, "postgres": postgres, "redis": redis,
                "load": [psutil.Process(self.load_pid)]}


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has been busy since boot, every process and the kernel (not idle, not
    waiting for I/O): the ``machine`` role, to tell a busy machine from a queue."""
    t = psutil.cpu_times()
    return sum(t) - t.idle - getattr(t, "iowait", 0.0)


def snapshot(roles: Roles, memory: bool = True) -> dict[str, dict[int, tuple[float, int]]]:
    """``{role: {pid: (cpu seconds so far, memory bytes or 0)}}`` (memory: see the module docstring; the
    ``postgres`` role's shared segment under pid ``-1``); role ``machine``: ``{0: (busy seconds of the whole
    machine, 0)}``."""
    out: dict[str, dict[int, tuple[float, int]]] = {"machine": {0: (machine_busy_seconds(), 0)}}
    for role, procs in roles.processes().items():
        got = {}
        pg = _pg_memory(procs) if memory and role == "postgres" else {}
        for proc in procs:
            try:
                with proc.oneshot():
                    t = proc.cpu_times()
                    mem = (pg[proc.pid] if proc.pid in pg else _pss(proc)) if memory else 0
                    got[proc.pid] = (t.user + t.system, mem)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        if -1 in pg:
            got[-1] = (0.0, pg[-1])  # the shared segment: no CPU of its own
        out[role] = got
    return out


def usage(before: dict, after: dict, seconds: float) -> dict:
    """Per role: ``cores`` (CPU seconds used ÷ ``seconds``), ``mb_before``/``mb_after`` (MB, as
    :func:`snapshot` counts it) and, for ``web``, the same per process (``per_process``: pid -> {cores,
    mb})."""
    report = {}
    for role in after:
        a, b = after[role], before.get(role, {})
        cpu = sum(t - b.get(pid, (0.0, 0))[0] for pid, (t, _m) in a.items() if pid in b)
        report[role] = {"cores": cpu / seconds if seconds > 0 else float("nan"),
                        "mb_before": sum(m for _t, m in b.values()) / 1e6,
                        "mb_after": sum(m for _t, m in a.values()) / 1e6}
        if role == "web":
            report[role]["per_process"] = {
                pid: {"cores": (t - b[pid][0]) / seconds if seconds > 0 else float("nan"), "mb": m / 1e6}
                for pid, (t, m) in sorted(a.items()) if pid in b}
    report["stack_mb_before"] = sum(r["mb_before"] for k, r in report.items() if k != "load")
    report["stack_mb_after"] = sum(r["mb_after"] for k, r in report.items() if isinstance(r, dict) and k != "load")
    return report


def socket_spread(roles: Roles, ports: list[int]) -> dict[int, int]:
    """pid -> established connections on the servers' ``ports``, for each web process (sockets and
    keep-alive HTTP connections alike: the seats hold both)."""
    spread = {}
    for proc in roles.processes()["web"]:
        try:
            conns = proc.net_connections(kind="tcp")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        spread[proc.pid] = sum(1 for c in conns if c.status == psutil.CONN_ESTABLISHED and c.laddr
                               and c.laddr.port in ports)
    return spread
