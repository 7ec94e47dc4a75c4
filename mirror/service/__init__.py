"""The mirror as a running service: the handles the app, CLI and tests share, and the scheduler.

- `context`: `Mirror`, the engines, sessions, gate watcher and upstream client of one process;
- `scheduler`: scheduled incremental syncs (APScheduler), one at a time through the sync's lock.

The top of `mirror/`: it may import every package below it; nothing in `mirror/` imports it.
"""
