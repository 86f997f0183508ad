"""`parametric dev` stops the Temporal dev server after the processes that report to it
(tried as a new user, issue 33: at Ctrl-C the documents worker logged "Network error while
completing activity": the server had been terminated together with the workers, so the
results of the activities they drained were lost)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

from api.dev import stop_children
from tests.conftest import free_port

# A stand-in server: accepts connections on the port it is given until terminated.
SERVER = textwrap.dedent(
    """
    import socket, sys
    s = socket.create_server(("127.0.0.1", int(sys.argv[1])))
    while True:
        s.accept()[0].close()
    """
)
# A stand-in worker: on SIGTERM it drains for half a second, then reports its results to the
# server (connects to it) and writes whether that worked.
WORKER = textwrap.dedent(
    """
    import signal, socket, sys, time
    port, out = int(sys.argv[1]), sys.argv[2]
    def drain(*_):
        time.sleep(0.5)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            reported = "alive"
        except OSError:
            reported = "gone"
        open(out, "w").write(reported)
        sys.exit(0)
    signal.signal(signal.SIGINT, lambda *_: None)  # the group's Ctrl-C: dev's SIGTERM follows
    signal.signal(signal.SIGTERM, drain)
    open(out + ".ready", "w").write("")
    while True:
        time.sleep(0.1)
    """
)


def test_the_server_outlives_the_workers_draining(tmp_path):
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port)])
    out = tmp_path / "report"
    worker = subprocess.Popen([sys.executable, "-c", WORKER, str(port), str(out)])
    try:
        ready = out.with_name("report.ready")
        for _ in range(200):
            if ready.exists() and _listening(port):
                break
            time.sleep(0.05)
        stop_children([server, worker], server, grace=10)
        assert out.read_text() == "alive"
        assert server.poll() is not None and worker.poll() is not None
    finally:
        for proc in (server, worker):
            if proc.poll() is None:
                proc.kill()


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


# `parametric dev` in miniature: the server started as dev starts it, a worker, and stop on
# SIGINT (dev's handler raises KeyboardInterrupt, whose `finally` calls stop).
DRIVER = textwrap.dedent(
    """
    import signal, subprocess, sys, time
    from api.dev import SERVER_POPEN, stop_children
    port, out, server_code, worker_code = sys.argv[1:5]
    server = subprocess.Popen([sys.executable, "-c", server_code, port], **SERVER_POPEN)
    worker = subprocess.Popen([sys.executable, "-c", worker_code, port, out])
    def on_int(*_):
        stop_children([server, worker], server, 10)
        sys.exit(0)
    signal.signal(signal.SIGINT, on_int)
    print(server.pid, flush=True)
    while True:
        time.sleep(0.1)
    """
)


def _driver(port: int, out) -> subprocess.Popen:
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(port), str(out), SERVER, WORKER],
                              stdout=subprocess.PIPE, text=True, process_group=0)
    int(driver.stdout.readline())
    for _ in range(200):
        if out.with_name(out.name + ".ready").exists() and _listening(port):
            return driver
        time.sleep(0.05)
    raise AssertionError("the stand-ins did not come up")


def test_ctrl_c_reaches_the_workers_not_the_server(tmp_path):
    """Ctrl-C is SIGINT to the terminal's whole foreground process group: it reached the
    Temporal dev server too, which died while the workers drained."""
    port, out = free_port(), tmp_path / "report"
    driver = _driver(port, out)
    try:
        os.killpg(driver.pid, signal.SIGINT)  # what the terminal does
        driver.wait(timeout=20)
        assert out.read_text() == "alive"
        assert not _listening(port)  # and the server was stopped after
    finally:
        if driver.poll() is None:
            driver.kill()


def test_the_server_dies_with_a_killed_dev(tmp_path):
    """Its own process group keeps the server from a group's signals, not alive for ever:
    `parametric dev` killed outright takes it along (no orphan holding the port)."""
    port, out = free_port(), tmp_path / "report"
    driver = _driver(port, out)
    driver.kill()
    driver.wait()
    for _ in range(100):
        if not _listening(port):
            break
        time.sleep(0.05)
    assert not _listening(port)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(driver.pid, signal.SIGKILL)  # the stand-in worker, left in the driver's group
