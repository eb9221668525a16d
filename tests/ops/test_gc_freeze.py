"""A web process freezes the heap it starts with (``config.asgi.settle_heap``): the cyclic garbage
collector's full collections then walk only what the process made since (bench/README.md "Garbage
collection")."""

import gc
import sys
import weakref


def test_importing_the_asgi_application_freezes_the_startup_heap_with_every_routed_module_loaded():
    import config.asgi  # noqa: F401 - the import settles the heap

    assert gc.get_freeze_count() > 10_000  # Django, DRF, Channels and the project: about 120,000 objects
    assert {"games.apis", "rooms.apis", "rooms.consumers", "ranking.apis"} <= set(sys.modules)
    assert gc.get_threshold() == (50_000, 20, 10)  # young collections every 50,000 objects, not 700


def test_settle_heap_collects_then_freezes_what_is_alive():
    from config.asgi import settle_heap

    class Cycle:
        pass

    a, b = Cycle(), Cycle()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b  # garbage, in a cycle: collected before the freeze, not kept for ever
    kept = Cycle()
    kept.self = kept  # alive: frozen
    before = gc.get_freeze_count()
    frozen = settle_heap()
    assert gone() is None
    assert frozen == gc.get_freeze_count() > before
    assert not gc.is_tracked(kept) or all(o is not kept for o in gc.get_objects())  # out of the collector's reach
