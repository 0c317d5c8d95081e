"""Loopback stand-in for the Anthropic API: records each `POST /v1/messages` body and answers 400.

Usage: stub.py PORT_FILE RECORD_DIR. Binds 127.0.0.1 on a free port, writes the port to
PORT_FILE, and stores the Nth request body as RECORD_DIR/N.json. Every request gets a 400 in
the Anthropic error shape, so the client stops after sending the history it resumed.
"""

import http.server
import json
import pathlib
import sys

PORT_FILE = pathlib.Path(sys.argv[1])
RECORD_DIR = pathlib.Path(sys.argv[2])
RECORD_DIR.mkdir(parents=True, exist_ok=True)
ERROR = {
    "type": "error",
    "error": {"type": "invalid_request_error", "message": "toolmend stub: request recorded"},
}


class Handler(http.server.BaseHTTPRequestHandler):
    def _reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        if self.path.split("?")[0].endswith("/v1/messages"):
            n = len(list(RECORD_DIR.glob("*.json")))
            (RECORD_DIR / f"{n}.json").write_bytes(body)
        self._reply(400, ERROR)

    def do_GET(self):
        self._reply(404, ERROR)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
PORT_FILE.write_text(str(server.server_address[1]))
server.serve_forever()
