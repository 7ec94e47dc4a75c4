"""gunicorn.conf.py: with GUNICORN_REUSE_PORT, a listening socket per worker on TCP binds; otherwise,
and always on a Unix-socket bind, one shared socket.

With one shared socket, whichever worker wakes first takes a burst of
keep-alive connections and keeps them (one core idles); with a socket per
worker (SO_REUSEPORT) the kernel spreads connections over them. A Unix
socket path cannot be bound once per worker (each would unlink the one
before), so there the shared socket stays. Both are read off /proc: which
listening sockets each worker process holds.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests import REPO_ROOT
from tests.ops_helpers import process_env, running_gunicorn

pytestmark = pytest.mark.slow  # each test starts gunicorn or a Python process of its own


def _processes_with(argument: str) -> dict[int, int]:
    """{pid: parent pid} of every process whose command line holds `argument`."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if argument.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                found[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue  # gone meanwhile
    return found


def _workers(argument: str) -> list[int]:
    processes = _processes_with(argument)
    return sorted(pid for pid, parent in processes.items() if parent in processes)


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    return inodes


def _tcp_listeners(port: int) -> set[str]:
    """Inodes of the sockets listening on 127.0.0.1:`port`."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1].endswith(f":{port:04X}") and fields[3] == "0A":  # 0A: LISTEN
            found.add(fields[9])
    return found


def _unix_listeners(path: Path) -> set[str]:
    found = set()
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 8 and fields[7] == str(path) and fields[5] == "01":  # 01: listening
            found.add(fields[6])
    return found


def _until(predicate, seconds: float = 15.0):
    deadline = time.time() + seconds
    while True:
        value = predicate()
        if value or time.time() > deadline:
            return value
        time.sleep(0.1)


@pytest.mark.parametrize("reuse_port", [True, False], ids=["reuse-port", "default"])
def test_each_worker_listens_on_a_socket_of_its_own_with_reuse_port(reuse_port, database_url, upstream, mirror):
    env = process_env(database_url, upstream, GUNICORN_REUSE_PORT=str(reuse_port).lower())
    with running_gunicorn(env, 3) as base:
        bind = base.removeprefix("http://")
        port = int(bind.rsplit(":", 1)[1])
        workers = _until(lambda: (w := _workers(bind)) and len(w) == 3 and w)
        expected = 3 if reuse_port else 1
        listeners = _until(lambda: (found := _tcp_listeners(port)) and len(found) == expected and found)
        assert workers and listeners, (workers, listeners)
        held = [_socket_inodes(pid) & listeners for pid in workers]
        assert all(len(mine) == 1 for mine in held), held
        assert len(set().union(*held)) == expected  # three sockets, or the one all three share


def test_a_unix_socket_bind_keeps_one_shared_socket(database_url, upstream, mirror):
    path = Path(tempfile.mkdtemp(prefix="mirror-gunicorn-")) / "web.sock"
    bind = f"unix:{path}"
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "2", "--bind", bind, "wsgi:create_app()"],
        cwd=REPO_ROOT,
        env=process_env(database_url, upstream, GUNICORN_REUSE_PORT="true"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        workers = _until(lambda: (w := _workers(bind)) and len(w) == 2 and w)
        assert workers
        assert _until(lambda: _answers(path)), "no answer on the Unix socket"
        listeners = _unix_listeners(path)
        held = [_socket_inodes(pid) & listeners for pid in workers]
        assert len(listeners) == 1 and held == [listeners, listeners], (listeners, held)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(20)


def _answers(path: Path) -> bool:
    try:
        with socket.socket(socket.AF_UNIX) as client:
            client.settimeout(5)
            client.connect(str(path))
            client.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            return client.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def test_a_worker_freezes_what_start_up_built_out_of_the_cyclic_gc(database_url, upstream):
    """post_worker_init: after the app is loaded, its objects sit in the GC's permanent generation.

    Frozen objects are still freed by reference counting once released (the
    render cache evicts entries all the time), which the child checks too.
    """
    script = (
        "import gc, runpy, weakref\n"
        "from wsgi import create_app\n"
        "config = runpy.run_path('gunicorn.conf.py')\n"
        "class Entry: pass\n"
        "app, entry = create_app(), Entry()\n"
        "gone = weakref.ref(entry)\n"
        "config['post_worker_init'](None)\n"
        "frozen = gc.get_freeze_count()\n"
        "del entry\n"
        "print(frozen, gone() is None)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        env=process_env(database_url, upstream),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    frozen, freed = done.stdout.split()[-2:]
    assert int(frozen) > 50_000  # the modules, the app and its declarations
    assert freed == "True"


def test_two_gunicorns_of_one_user_share_no_control_socket(database_url, upstream, mirror, tmp_path):
    """gunicorn >= 25.1 binds a control socket at one path per user (~/.gunicorn/gunicorn.ctl) unless told not to.

    Two servers of one user on one host (the demo and production, or two
    tests) would share it: the second takes the path over, and `gunicornc`
    steers the wrong server. gunicorn.conf.py turns it off, so neither
    master listens on any Unix socket and nothing is made under HOME.
    """
    env = process_env(database_url, upstream, HOME=str(tmp_path))
    with running_gunicorn(env, 1) as first, running_gunicorn(env, 1) as second:
        masters = [min(_processes_with(base.removeprefix("http://"))) for base in (first, second)]
        unix = {
            line.split()[6] for line in Path("/proc/net/unix").read_text().splitlines()[1:] if len(line.split()) >= 8
        }
        held = [_socket_inodes(pid) & unix for pid in masters]
        assert held == [set(), set()], held
    assert not list(tmp_path.rglob("*.ctl")) and not (tmp_path / ".gunicorn").exists()
