"""The bench's count of PostgreSQL's memory (bench/procstats.py): its shared segment once, at its size,
and each process without its share of that segment, so that backends reading the shared buffers do not
look like growth."""

import importlib.util
import sys

import psutil
import pytest
from django.db import connection

from tests.live import ROOT

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def _procstats(monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_procstats", ROOT / "bench" / "procstats.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


def test_the_clusters_shared_segment_counts_once_and_holds_its_buffers(monkeypatch):
    procstats = _procstats(monkeypatch)
    with connection.cursor() as cursor:
        cursor.execute("SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'")
        (buffers,) = cursor.fetchone()
        cursor.execute("SELECT pg_backend_pid()")
        (backend,) = cursor.fetchone()
    procs = [p for p in psutil.process_iter(["name"]) if (p.info["name"] or "").startswith("postgres")]
    memory = procstats._pg_memory(procs)

    assert buffers <= memory[-1] < 4 * buffers  # one entry for the segment, at least the shared buffers
    rollup = procstats._smaps_rollup(backend)  # this test's own backend has read shared buffers
    assert rollup["Pss_Shmem"] > 0
    assert abs(memory[backend] - (rollup["Pss"] - rollup["Pss_Shmem"])) < 1 << 20  # read a moment apart
