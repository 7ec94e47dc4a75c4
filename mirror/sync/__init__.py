"""The incremental (and full) sync of the upstream catalog into the mirror.

A run happens in ONE database transaction: every company, product, offer
group, watermark and clock it writes becomes visible at its commit, or not at
all. Pages are streamed and applied in batches as they arrive, so memory stays
flat however large the catalog is; an incremental run touches only what changed.

Walk order (docs/contracts/upstream.md):
1. `/v1/companies` since the companies watermark (everything on a full run).
2. Incremental runs: each company new to the mirror gets its whole catalog
   from `/v1/companies/{key}/products`, then `/v1/products` is read since the
   products watermark. Full (and first) runs read `/v1/products` whole, which
   covers every company's catalog, then remove what the walks did not return.
3. Offer groups, content versions and feed state are rebuilt for the
   companies the run touched; watermarks and the success time are written.

The package, by what each part does:
- `run`: one run under the lock, its transaction and its sync_runs entry;
- `walk`: which upstream lists are read, in which order (step 1 and 2);
- `apply`: records into rows, only what changed, one bad record alone;
- `rebuild`: offer groups, versions, generations, feed state (step 3);
- `bulk`: COPY / set-wise UPDATE / executemany, isolating refused rows;
- `runstate`: the run's counts, result and summary of skipped records.
"""

from mirror.sync.run import run_sync
from mirror.sync.runstate import SyncCounts, SyncResult, utcnow

__all__ = ["run_sync", "SyncCounts", "SyncResult", "utcnow"]
