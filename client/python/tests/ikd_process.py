"""A real ikd process for the tests: started, its port read, stopped."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
_LISTENING = re.compile(r"^ikd: listening on (\S+) ")


def ikd_binary() -> str:
    """The ikd under test: $IKD (tests/run_tests.sh passes it), else the
    repository's build/server/ikd."""
    binary = os.environ.get("IKD") or str(REPO / "build" / "server" / "ikd")
    if not os.path.exists(binary):
        raise RuntimeError(f"no ikd binary at {binary}: build it (scripts/build.sh) or set IKD")
    return binary


class IkdProcess:
    """``ikd --listen=127.0.0.1:0`` serving the example rigs and terrains,
    plus ``flags``; :attr:`target` is the address from its
    ``ikd: listening on HOST:PORT`` line."""

    def __init__(self, *flags: str, start_timeout: float = 120.0) -> None:
        command = [
            ikd_binary(),
            "--listen=127.0.0.1:0",
            f"--rig_dir={REPO / 'examples' / 'rigs'}",
            f"--terrain_dir={REPO / 'examples' / 'terrains'}",
            *flags,
        ]
        self.log: list[str] = []
        self._listening = threading.Event()
        self.target = ""
        self._process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True,
        )
        # Read stderr to its end, so that the pipe never fills.
        self._reader = threading.Thread(target=self._read_log, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + start_timeout
        while not self._listening.wait(0.1):
            if self._process.poll() is not None or time.monotonic() > deadline:
                self._process.kill()
                self._process.wait()
                self._reader.join(5)
                raise RuntimeError("ikd did not start listening:\n" + "".join(self.log))

    def _read_log(self) -> None:
        assert self._process.stderr is not None
        for line in self._process.stderr:
            self.log.append(line)
            match = _LISTENING.match(line)
            if match and not self._listening.is_set():
                self.target = match.group(1)
                self._listening.set()

    def wait_for_line(self, prefix: str, timeout: float = 30.0) -> bool:
        """Whether ikd logs a line starting with ``prefix`` within ``timeout``."""
        deadline = time.monotonic() + timeout
        while not any(line.startswith(prefix) for line in list(self.log)):
            if time.monotonic() > deadline or not self._reader.is_alive():
                return False
            time.sleep(0.05)
        return True

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM, then waits for ikd to exit; returns its exit status
        (killed if it does not exit within ``timeout``)."""
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._reader.join(5)
        return self._process.returncode

    def stop_cleanly(self) -> None:
        """Stops ikd; AssertionError (with its log) unless it exits 0 after
        logging that it stopped."""
        code = self.stop()
        if code != 0 or not self.wait_for_line("ikd: stopped", timeout=5.0):
            raise AssertionError(f"ikd exited with {code} after SIGTERM:\n" + "".join(self.log))
