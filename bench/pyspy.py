"""Sampling an app worker with py-spy during one bench/serve.py row (`--profile ROW`).

Only the thread holding the GIL is sampled (`--gil`), so the shares say
where the worker's CPU went, not where its threads waited.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def start_profile(master_pid: int, seconds: float, out: str) -> subprocess.Popen:
    """Start py-spy on the first worker of a gunicorn master, for `seconds`."""
    worker = int(Path(f"/proc/{master_pid}/task/{master_pid}/children").read_text().split()[0])
    return subprocess.Popen(
        [
            str(ROOT / ".venv" / "bin" / "py-spy"),
            "record",
            "--gil",
            "--nonblocking",
            "-p",
            str(worker),
            "-d",
            str(int(seconds) - 1),
            "-f",
            "raw",
            "-o",
            out,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def print_profile(profiler: subprocess.Popen, out: str, top: int = 25) -> None:
    """Where the GIL was held: the share of samples in which each function was on the stack."""
    profiler.wait(60)
    inclusive: dict[str, int] = {}
    total = 0
    for line in Path(out).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        total += int(count)
        for frame in set(stack.split(";")):
            inclusive[frame] = inclusive.get(frame, 0) + int(count)
    print(f"  profile ({total} samples with the GIL held):")
    for frame, count in sorted(inclusive.items(), key=lambda item: -item[1])[:top]:
        print(f"    {count / total:6.1%}  {frame}")
