"""Loopback stand-in for the Gemini API: records each generateContent request body, answers 400.

Standalone: `stub.py PORT_FILE RECORD_DIR` binds 127.0.0.1 on a free port, writes the port to
PORT_FILE and stores the Nth generateContent body as RECORD_DIR/N.json. check.py imports
`serve()` instead. A 400 is not retried by Gemini CLI, so the run ends after one request.
"""

import http.server
import json
import pathlib
import sys
import threading

ERROR = {"error": {"code": 400, "message": "recorded by the toolmend stub", "status": "INVALID_ARGUMENT"}}


class Recorder(http.server.BaseHTTPRequestHandler):
    bodies = []  # (path, body bytes) of every generateContent request, in arrival order
    others = []  # paths of any other request (there should be none)
    record_dir = None

    def _reply(self, status):
        data = json.dumps(ERROR).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        if "generatecontent" in self.path.lower():  # :generateContent and :streamGenerateContent
            Recorder.bodies.append((self.path, body))
            if Recorder.record_dir:
                (Recorder.record_dir / f"{len(Recorder.bodies) - 1}.json").write_bytes(body)
        else:
            Recorder.others.append(self.path)
        self._reply(400)

    def do_GET(self):
        Recorder.others.append(self.path)
        self._reply(404)

    def log_message(self, *args):
        pass


def serve():
    """Start the stub in a daemon thread; returns (server, port)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


if __name__ == "__main__":
    Recorder.record_dir = pathlib.Path(sys.argv[2])
    Recorder.record_dir.mkdir(parents=True, exist_ok=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    pathlib.Path(sys.argv[1]).write_text(str(server.server_address[1]))
    server.serve_forever()
