"""The HTTP load generator's client (benchmarks/client.py): clients made with ``sharing``
send their own keys over one keep-alive connection, so the benchmark's health checks can use
the very connections its rounds use."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from benchmarks.client import Client


class Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    seen: list[tuple[int, str | None]] = []

    def do_GET(self):  # noqa: N802 - the standard library's name
        Echo.seen.append((self.client_address[1], self.headers.get("Authorization")))
        body = json.dumps({"ok": True}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_sharing_clients_use_one_connection_each_with_its_own_key_and_latencies():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = Client(f"http://127.0.0.1:{server.server_port}")
        dealer, player = base.sharing("dealer-key"), base.sharing("player-key")
        apart = Client(f"http://127.0.0.1:{server.server_port}", "other-key")
        for client in (base, dealer, player, dealer, apart):
            assert client.get("/health") == {"ok": True}
        ports = [port for port, _ in Echo.seen]
        assert len(set(ports[:4])) == 1 and ports[4] != ports[0]
        assert [key for _, key in Echo.seen] == [
            None,
            "Bearer dealer-key",
            "Bearer player-key",
            "Bearer dealer-key",
            "Bearer other-key",
        ]
        assert (len(base.latencies), len(dealer.latencies), len(player.latencies)) == (1, 2, 1)
        base.close()
        assert dealer.line.conn is None  # closing one closes the shared connection
        apart.close()
    finally:
        server.shutdown()
        server.server_close()
