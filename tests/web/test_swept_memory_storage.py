"""The one library internal the rate limits still override: `limits`' memory storage's expiry hook.

`web.limits.SweptMemoryStorage` overrides `MemoryStorage`'s private, name-mangled
`__schedule_expiry` (called from every hit) so that expired counters are swept
at most once per SWEEP_SECONDS on one daemon timer, instead of a new timer
thread 10 ms after every hit (measured: ~15% of a warm pricing.json request;
docs/performance.md). Kept by issue 31's rule (a library way ≥ 10% slower
stays, pinned): these tests fail the day the library renames or stops calling
the hook, so an upgrade cannot silently bring the per-hit threads back.
"""

from __future__ import annotations

import threading

import limits
from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from web.limits import SweptMemoryStorage, storage_uri


def test_the_library_still_has_the_hook_we_override():
    assert limits.__version__.split(".")[0] == "5"
    assert callable(getattr(MemoryStorage, "_MemoryStorage__schedule_expiry", None))
    assert callable(getattr(MemoryStorage, "_MemoryStorage__expire_events", None))


def test_every_hit_goes_through_our_hook_and_starts_at_most_one_timer():
    storage = storage_from_string(storage_uri("memory://"))
    assert isinstance(storage, SweptMemoryStorage)
    limiter = MovingWindowRateLimiter(storage)
    storage.timer.join(1)  # the base class's own first sweep, 10 ms after it was made
    before = threading.active_count()
    for n in range(200):
        assert limiter.hit(RateLimitItemPerMinute(1000), "client", str(n % 7))
    assert storage._next_sweep > 0  # the override ran (the base class's hook never sets it)
    assert storage.timer.daemon and storage.timer.interval == SweptMemoryStorage.SWEEP_SECONDS
    assert threading.active_count() <= before + 1
