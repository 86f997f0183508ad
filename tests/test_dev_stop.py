"""`parametric dev` stops the Temporal dev server after the processes that report to it
(tried as a new user, issue 33: at Ctrl-C the documents worker logged "Network error while
completing activity": the server had been terminated together with the workers, so the
results of the activities they drained were lost)."""

from __future__ import annotations

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
