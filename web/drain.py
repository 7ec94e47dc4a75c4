"""The one loop of the app's background writers: wake every interval, take what is queued, write it in one go.

Both writers (the row writer, web/recording.py, and the invocation log's
line writer, web/observability.py) take what requests leave behind off the
request thread. A writer blocked on its queue would be woken by every item,
which costs the request that queued it a thread switch; polling costs one
wake-up per interval, and items are written together, at most that much
later. `wake()` (a flush, a close) makes the writer look at once, so a
waiting caller never waits the interval out.
"""

from __future__ import annotations

import queue
import threading
import time

STOP = object()  # queued to end the writer once everything queued before it is taken


class Drain:
    """A queue's items in batches for one writer thread, looked at every `linger` seconds."""

    def __init__(self, items: queue.Queue | queue.SimpleQueue, limit: int | None = None) -> None:
        self.queue = items
        self.limit = limit  # items per batch at most (None: all that are queued)
        self._wake = threading.Event()

    def wake(self) -> None:
        """Make the writer look now (a request's put never calls this)."""
        self._wake.set()

    def stop(self) -> None:
        """Queue STOP and wake the writer; raises queue.Full when a bounded queue is full."""
        self.queue.put_nowait(STOP)
        self.wake()

    def next_batch(self, linger: float, idle_seconds: float | None = None) -> tuple[list, bool]:
        """The next items, looking every `linger` seconds, and whether the writer may end.

        It may end when it took STOP, or after `idle_seconds` without an item.
        """
        idle_until = None if idle_seconds is None else time.monotonic() + idle_seconds
        while True:
            batch, stop = self._take()
            if batch or stop:
                return batch, stop
            if idle_until is not None and time.monotonic() >= idle_until:
                return [], True
            self._wake.wait(max(linger, 0.01))
            self._wake.clear()

    def _take(self) -> tuple[list, bool]:
        batch: list = []
        while self.limit is None or len(batch) < self.limit:
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                break
            if item is STOP:
                if isinstance(self.queue, queue.Queue):
                    self.queue.task_done()  # STOP is done once taken; the writer marks the items it writes
                return batch, True
            batch.append(item)
        return batch, False
