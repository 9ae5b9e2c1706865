"""The local origin the Python tools serve their corpus from: bin/crashstates (CrashStates/workload.py) and
bin/powercut (PowerCut/powercut.py, on the host and in the guest) import it from this folder.

One handler answers GET and HEAD for a name in `files` with a strong ETag, `Accept-Ranges` and a single range
(`bytes=A-` or `bytes=A-B`, a 206 with its `Content-Range`; a range that starts past the end gets the whole
file). A tool subclasses it for what it adds: which name maps to which bytes (`data_for`), a 304 for a matching
If-None-Match (`answers_not_modified`), and how the body is sent (`send_body`: slowly, rate-limited, logged).
"""
import hashlib
import http.server
import re

RANGE = re.compile(r"bytes=(\d+)-(\d*)$")


class RangeOrigin(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    files = {}
    # Whether a request whose If-None-Match is the file's ETag gets a 304: farm sync revalidates that way.
    answers_not_modified = False

    def log_message(self, *args):
        pass

    def data_for(self, name):
        """The bytes served at /name, or None for a 404."""
        return self.files.get(name)

    def send_body(self, name, data, start, end):
        """Writes data[start:end]; the client going away is not an error."""
        try:
            self.wfile.write(data[start:end])
        except OSError:
            pass

    def do_HEAD(self):
        self.do_GET(body=False)

    def do_GET(self, body=True):
        name = self.path.lstrip("/").split("?")[0]
        data = self.data_for(name)
        if data is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
        if self.answers_not_modified and self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        start, end = 0, len(data)
        match = RANGE.match(self.headers.get("Range", ""))
        if match and int(match.group(1)) < len(data):
            start = int(match.group(1))
            end = min(len(data), int(match.group(2)) + 1) if match.group(2) else len(data)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
        else:
            self.send_response(200)
        self.send_header("ETag", etag)
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(end - start))
        self.end_headers()
        if body:
            self.send_body(name, data, start, end)
