"""The cost-bound rows of bench/serve.py: the worst questions, and a quiet client's pricing.json beside a flood.

A question's cost must not grow with the catalog times its words (docs/operations.md, "Request bounds"):

- the directory's worst question: every trade at once, near a ZIP most
  businesses serve, over all 10,000 businesses of the benchmark catalog, by
  NLWeb `/ask` and by the provider's `search_businesses`;
- the worst misspelled question: 200 characters of random four-letter words
  (every one unknown, so the spelling lookup runs for each it may spend a
  correction on) on one company with 100,000 products;
- a quiet client's cold pricing.json, at half its peak rate, while one other
  client sends those questions at the rate one client is allowed
  (RATE_LIMIT_PER_CLIENT's default, 600 a minute: 10 a second) over 8
  connections. Its p99 is held to its quiet row's.

The questions are generated here from a seed, never from the code under test.
"""

from __future__ import annotations

import itertools
import json
import queue
import random
import threading
import time
from collections import Counter
from contextlib import contextmanager

LARGE_KEY = "bench-large-catalog"
LARGE_PRODUCTS = 100_000
TRADES = ("plumbing", "hvac", "electrical", "roofing")
FLOOD_RATE = 10.0  # requests a second: one client's default RATE_LIMIT_PER_CLIENT (600/minute)
FLOOD_CONNECTIONS = 8
MISSPELLED_LENGTH = 200  # MCP's query cap: the longest question one call may ask
SEED = 30


def directory_questions(postal_codes: list[str]) -> list[str]:
    """Every order of the four trades, near each ZIP: the same worst question, never twice the same text."""
    return [f"{' '.join(order)} near {code}" for code in postal_codes for order in itertools.permutations(TRADES)]


def misspelled_questions(count: int, seed: int = SEED) -> list[str]:
    """`count` distinct questions of random four-letter words, MISSPELLED_LENGTH characters each."""
    generator = random.Random(seed)
    questions = []
    for _ in range(count):
        words = []
        while len(" ".join(words)) < MISSPELLED_LENGTH - 5:
            words.append("".join(generator.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(4)))
        questions.append(" ".join(words))
    return questions


def ask_request(question: str) -> dict:
    """An NLWeb `/ask` of the directory, for wrk."""
    body = {"query": {"text": question}, "prefer": {"mode": "summarize"}}
    return {"method": "POST", "path": "/ask", "headers": {"Content-Type": "application/json"}, "body": json.dumps(body)}


def tool_request(path: str, tool: str, arguments: dict, request_id: int, headers: dict) -> dict:
    """An MCP tools/call, for wrk."""
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    return {"method": "POST", "path": path, "headers": headers, "body": json.dumps(body)}


@contextmanager
def flood(base: str, requests: list[dict], http):
    """One client sending `requests` in turn at FLOOD_RATE over FLOOD_CONNECTIONS while the block runs.

    Yields a Counter of the statuses it got (filled as answers come back; 0 for a failed connection).
    """
    statuses: Counter = Counter()
    tickets: queue.Queue = queue.Queue()
    stop = threading.Event()
    cycle = itertools.cycle(requests)

    def ticker() -> None:
        started, sent = time.monotonic(), 0
        while not stop.is_set():
            due = started + sent / FLOOD_RATE
            time.sleep(max(0.0, due - time.monotonic()))
            tickets.put(next(cycle))
            sent += 1

    def sender() -> None:
        while not stop.is_set():
            try:
                request = tickets.get(timeout=0.2)
            except queue.Empty:
                continue
            try:
                status, _, _ = http(
                    base + request["path"], request["method"], request["headers"], request["body"].encode()
                )
            except OSError:
                status = 0
            statuses[status] += 1

    threads = [threading.Thread(target=ticker, daemon=True)]
    threads += [threading.Thread(target=sender, daemon=True) for _ in range(FLOOD_CONNECTIONS)]
    for thread in threads:
        thread.start()
    try:
        yield statuses
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
