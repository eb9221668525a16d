"""Where a socket action's time goes inside the server: a timing probe for the bench (never imported by the
service). Put this directory on ``PYTHONPATH`` with ``PROBE_DIR`` set, and every Python process started
with that environment (the bench's web workers, Celery, the load generator) loads it; it patches, as they
are imported, ``config.asyncdb.db_call``, psycopg's pool, ``config.groups`` and the room consumer.

Every process appends JSON lines to ``$PROBE_DIR/<pid>.jsonl`` (times: ``time.monotonic()`` seconds, one
clock for every process of the machine):

- ``act``: a socket action: ``t0`` received, ``t1``/``t2`` its database call started/ended on a socket
  thread, ``pw`` seconds waiting for a pooled connection, ``t3`` the consumer resumed, ``pub`` broadcast
  handed to the loop, ``b0``/``b1`` built;
- ``snd``: the batch that carried that action's ``game.update`` (``t0``): ``s0``/``s1`` sent to Redis;
- ``dlv``: a socket's handler of that ``game.update``: ``d`` started, ``e`` frame handed to the socket;
- ``lag``: the event loop woke ``late`` s after a 20 ms sleep (only > 5 ms);
- ``gc``: a collection of generation ``gen`` that took ``dur`` s of wall time and ``cpu`` s of its thread's
  CPU time, and freed ``collected`` objects (generation 0: only > 5 ms);
- ``garbage`` (``PROBE_GARBAGE=N``): what every Nth collection found unreachable (``n`` objects; ``kinds``:
  the 40 commonest types, functions and coroutines with their code's file and name; ``holders``: the
  40 commonest "type -> list|dict|tuple" links from a garbage object to a plain container), kept for the
  count by ``gc.DEBUG_SAVEALL`` and then let go; the collections after it see those objects again;
- ``db``: any other socket database call (``f``), with ``t0``..``t3`` as above;
- ``stall`` (``PROBE_WATCHDOG=1``): the loop thread's stack when its loop has not turned for 100 ms. It
  samples only when the GIL is free, and slows the process a lot: for a look, not for figures.

``PROBE_SWITCH=S`` sets ``sys.setswitchinterval(S)``, ``PROBE_GC=a,b,c`` ``gc.set_threshold`` and
``PROBE_THREADS=N`` the socket threads a process (``config.asyncdb.SOCKET_DB_THREADS``) in the web workers. ``bench/stageprobe/report.py DIR [SECONDS]`` summarises a run.
"""
import contextvars
import gc
import importlib.abc
import importlib.util
import json
import os
import sys
import threading
import time

DIR = os.environ.get("PROBE_DIR")
now = time.monotonic
REC = contextvars.ContextVar("probe_rec", default=None)
_out: list = []
_out_lock = threading.RLock()  # a collection's callback may emit while this thread holds it


def emit(rec):
    with _out_lock:
        _out.append(rec)


def _dumper():
    path = os.path.join(DIR, f"{os.getpid()}.jsonl")
    while True:
        time.sleep(3)
        with _out_lock:
            batch = _out[:]
            _out.clear()
        if batch:
            with open(path, "a") as f:
                for r in batch:
                    f.write(json.dumps(r) + "\n")


_gc_start = [0.0, 0.0]  # wall (monotonic) and this thread's CPU time at a collection's start
_gc_seen = [0]
GARBAGE_EVERY = int(os.environ.get("PROBE_GARBAGE") or 0)  # every Nth collection: what it freed, by type


def _gc_cb(phase, info):
    if phase == "start":
        _gc_seen[0] += 1
        if GARBAGE_EVERY and _gc_seen[0] % GARBAGE_EVERY == 0:
            gc.set_debug(gc.DEBUG_SAVEALL)  # this collection keeps what it finds in gc.garbage
        _gc_start[0], _gc_start[1] = now(), time.thread_time()
    else:
        d = now() - _gc_start[0]
        if info.get("generation", 0) >= 1 or d > 0.005:
            emit({"k": "gc", "t": _gc_start[0], "gen": info.get("generation"), "dur": d,
                  "cpu": time.thread_time() - _gc_start[1], "collected": info.get("collected")})
        if gc.get_debug() & gc.DEBUG_SAVEALL:
            gc.set_debug(0)
            kinds = {}
            for o in gc.garbage:
                t = type(o)
                name = f"{t.__module__}.{t.__qualname__}"
                if t is type(_gc_cb) or t.__name__ in ("frame", "coroutine", "cell"):
                    code = getattr(o, "__code__", None) or getattr(o, "f_code", None) or getattr(o, "cr_code", None)
                    if code is not None:
                        name += f":{code.co_filename.rsplit('/', 2)[-2:]}:{code.co_name}"
                kinds[name] = kinds.get(name, 0) + 1
            holders = {}  # "holder type -> list|dict|tuple": who, in the garbage, holds its plain containers
            plain = (list, dict, tuple)
            for o in gc.garbage:
                if type(o) in plain:
                    continue
                owner = f"{type(o).__module__}.{type(o).__qualname__}"
                for r in gc.get_referents(o):
                    if type(r) in plain:
                        key = f"{owner} -> {type(r).__name__}"
                        holders[key] = holders.get(key, 0) + 1
            gc.garbage.clear()
            emit({"k": "garbage", "t": _gc_start[0], "gen": info.get("generation"), "n": sum(kinds.values()),
                  "kinds": sorted(kinds.items(), key=lambda kv: -kv[1])[:40],
                  "holders": sorted(holders.items(), key=lambda kv: -kv[1])[:40]})


def patch_asyncdb(mod):
    if os.environ.get("PROBE_THREADS"):
        mod.SOCKET_DB_THREADS = int(os.environ["PROBE_THREADS"])
    orig = mod.db_call

    def db_call(func):
        def timed(*a, **k):
            r = REC.get()
            if r is not None:
                r["t1"] = now()
            try:
                return func(*a, **k)
            finally:
                if r is not None:
                    r["t2"] = now()

        timed.__name__ = getattr(func, "__name__", "f")
        wrapped = orig(timed)

        async def call(*a, **k):
            r = {"k": "db", "f": timed.__name__, "t0": now()}
            parent = REC.get()
            if parent is not None and parent.get("k") == "act" and "t1" not in parent:
                r = parent
            tok = REC.set(r)
            try:
                return await wrapped(*a, **k)
            finally:
                r["t3"] = now()
                REC.reset(tok)
                if r.get("k") == "db":
                    emit(r)

        return call

    mod.db_call = db_call


def patch_pool():
    import psycopg_pool

    orig = psycopg_pool.ConnectionPool.getconn

    def getconn(self, *a, **k):
        t = now()
        try:
            return orig(self, *a, **k)
        finally:
            r = REC.get()
            if r is not None:
                r["pw"] = r.get("pw", 0) + now() - t

    psycopg_pool.ConnectionPool.getconn = getconn


def patch_groups(mod):
    orig_publish = mod.publish
    orig_send_all = mod._send_batches

    def publish(build, send_many=None):
        r = REC.get()
        if r is None or r.get("k") != "act":
            return orig_publish(build, send_many)
        r["pub"] = now()
        t0 = r["t0"]

        def build2():
            r["b0"] = now()
            msgs = build()
            for _g, m in msgs:
                if isinstance(m, dict) and m.get("type") == "game.update":
                    m["_pt"] = t0
            r["b1"] = now()
            return msgs

        return orig_publish(build2, send_many)

    async def _send_all(batches):
        t0s = {m.get("_pt") for b in batches for _g, m in b if isinstance(m, dict) and "_pt" in m}
        s0 = now()
        try:
            return await orig_send_all(batches)
        finally:
            s1 = now()
            for t0 in t0s:
                emit({"k": "snd", "t0": t0, "s0": s0, "s1": s1, "n": len(batches)})

    mod.publish = publish
    mod._send_batches = _send_all


_lag_started = [False]


_beat = [0.0, None]


def _watchdog():
    import traceback
    last_stall = 0.0
    while True:
        time.sleep(0.02)
        hb, tid = _beat
        if tid is None:
            continue
        t = now()
        if t - hb > 0.1 and hb != last_stall:
            frame = sys._current_frames().get(tid)
            stack = traceback.format_stack(frame, limit=25) if frame else []
            emit({"k": "stall", "t": t, "hb": hb, "stack": "".join(stack[-14:])})
            if t - hb > 0.3:
                last_stall = hb


async def _lag_task():
    import asyncio
    _beat[1] = threading.get_ident()
    if os.environ.get("PROBE_WATCHDOG"):
        threading.Thread(target=_watchdog, daemon=True).start()

    def tick():
        _beat[0] = now()
        asyncio.get_running_loop().call_later(0.01, tick)

    tick()
    while True:
        t = now()
        await asyncio.sleep(0.02)
        late = now() - t - 0.02
        if late > 0.005:
            emit({"k": "lag", "t": t, "late": late})


def patch_consumers(mod):
    cls = mod.RoomConsumer
    orig_recv = cls.receive_json
    orig_update = cls.game_update

    async def receive_json(self, content, **kwargs):
        if not _lag_started[0]:
            import asyncio
            _lag_started[0] = True
            asyncio.get_running_loop().create_task(_lag_task())
        if isinstance(content, dict) and content.get("type") == "action":
            r = {"k": "act", "t0": now()}
            tok = REC.set(r)
            try:
                return await orig_recv(self, content, **kwargs)
            finally:
                r["t4"] = now()
                REC.reset(tok)
                emit(r)
        return await orig_recv(self, content, **kwargs)

    async def game_update(self, event):
        d = now()
        try:
            return await orig_update(self, event)
        finally:
            t0 = event.get("_pt")
            if t0 is not None:
                emit({"k": "dlv", "t0": t0, "d": d, "e": now()})

    cls.receive_json = receive_json
    cls.game_update = game_update


def patch_asgi(_mod):
    if os.environ.get("PROBE_SWITCH"):
        sys.setswitchinterval(float(os.environ["PROBE_SWITCH"]))
    if os.environ.get("PROBE_GC"):
        gc.set_threshold(*map(int, os.environ["PROBE_GC"].split(",")))


PATCHES = {"config.asgi": patch_asgi, "config.asyncdb": patch_asyncdb, "config.groups": patch_groups, "rooms.consumers": patch_consumers}


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in PATCHES:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None:
            return None
        loader = spec.loader
        orig_exec = loader.exec_module

        def exec_module(module):
            orig_exec(module)
            PATCHES[name](module)
            if name == "config.asyncdb":
                patch_pool()

        loader.exec_module = exec_module
        return spec


if DIR and not os.environ.get("PROBE_OFF"):
    os.makedirs(DIR, exist_ok=True)
    sys.meta_path.insert(0, _Finder())
    gc.callbacks.append(_gc_cb)
    threading.Thread(target=_dumper, daemon=True).start()
    os.register_at_fork(after_in_child=lambda: threading.Thread(target=_dumper, daemon=True).start())
