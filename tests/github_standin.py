"""A stand-in for GitHub's repository contents API on 127.0.0.1, for the sync tests.

It answers what the site's sync (overrides/assets/qa/study-sync.js) sends, the way api.github.com
does: `GET` and `PUT /repos/{owner}/{repo}/contents/{path}` with a bearer token, base64 content
wrapped at 60 characters, the file's git blob `sha`, 409 when a write names a `sha` that is no longer
the file's, 422 when it names none for a file that exists, 401 for a wrong token, and CORS headers
(the site is on another origin). A test can make "another device" write between a read and a write.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.server
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from tests.sitekit import serving


@dataclass
class Request:
    """One request the stand-in received."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None = None


@dataclass
class ContentsAPI:
    """State of the stand-in: one repository, its files, and hooks a test can set."""

    owner: str = "reader"
    repo: str = "study-sync"
    token: str = "github_pat_test_0123456789"
    files: dict[str, bytes] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    before_put: list[Callable[[ContentsAPI], None]] = field(default_factory=list)
    """Run (and removed) one per PUT, before the PUT is checked: another device's write goes here."""
    inline_limit: int = 1024 * 1024
    """Files larger than this come without content (encoding "none"), as GitHub's do above 1 MB;
    the raw media type (`Accept: application/vnd.github.raw+json`) still returns them."""
    fail_next: list[int] = field(default_factory=list)
    """Statuses to answer the next requests with (one each), e.g. [500]."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def write(self, path: str, text: str) -> str:
        """Write a file as another device would; returns its new sha."""
        with self.lock:
            self.files[path] = text.encode("utf-8")
            return blob_sha(self.files[path])

    def read_json(self, path: str) -> Any:
        with self.lock:
            return json.loads(self.files[path].decode("utf-8"))

    def calls(self, method: str) -> list[Request]:
        return [r for r in self.requests if r.method == method]


def blob_sha(data: bytes) -> str:
    """Git's blob id, which the contents API reports as a file's `sha`."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # git's object id, not a security hash


@contextlib.contextmanager
def contents_api(api: ContentsAPI | None = None) -> Iterator[tuple[str, ContentsAPI]]:
    """Serve the stand-in on a free port; yields (base URL without a trailing slash, state)."""
    state = api or ContentsAPI()
    with serving(_handler(state)) as origin:
        yield origin, state


def _handler(state: ContentsAPI) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_OPTIONS(self) -> None:  # CORS preflight: the browser asks before sending Authorization
            self._record(None)
            self.send_response(204)
            self._cors()
            self.send_header("Access-Control-Allow-Methods", "GET, PUT, OPTIONS")
            self.send_header(
                "Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, X-GitHub-Api-Version"
            )
            self.send_header("Access-Control-Max-Age", "0")
            self.end_headers()

        def do_GET(self) -> None:
            self._record(None)
            path = self._file_path()
            if path is None or self._refused():
                return
            with state.lock:
                data = state.files.get(path)
            if data is None:
                self._json(404, {"message": "Not Found", "status": "404"})
                return
            if "raw" in (self.headers.get("Accept") or ""):
                self.send_response(200)
                self._cors()
                self.send_header("Content-Type", "application/vnd.github.raw+json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("ETag", f'"{blob_sha(data)}"')
                self.end_headers()
                self.wfile.write(data)
                return
            encoded = base64.b64encode(data).decode("ascii")
            wrapped = "\n".join(encoded[i : i + 60] for i in range(0, len(encoded), 60)) + "\n"
            large = len(data) > state.inline_limit
            self._json(
                200,
                {
                    "type": "file",
                    "encoding": "none" if large else "base64",
                    "size": len(data),
                    "name": path.rsplit("/", 1)[-1],
                    "path": path,
                    "content": "" if large else wrapped,
                    "sha": blob_sha(data),
                },
            )

        def do_PUT(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = None
            self._record(body)
            path = self._file_path()
            if path is None or self._refused():
                return
            if not isinstance(body, dict) or not isinstance(body.get("content"), str) or not body.get("message"):
                self._json(422, {"message": "Invalid request.", "status": "422"})
                return
            if state.before_put:
                state.before_put.pop(0)(state)
            with state.lock:
                current = state.files.get(path)
                if current is not None and not body.get("sha"):
                    self._json(422, {"message": 'Invalid request.\n\n"sha" wasn\'t supplied.', "status": "422"})
                    return
                if current is not None and body["sha"] != blob_sha(current):
                    self._json(409, {"message": f"{path} does not match {body['sha']}", "status": "409"})
                    return
                try:
                    data = base64.b64decode(body["content"], validate=True)
                except ValueError:
                    self._json(422, {"message": "content is not valid Base64", "status": "422"})
                    return
                state.files[path] = data
            sha = blob_sha(data)
            self._json(201 if current is None else 200, {"content": {"path": path, "sha": sha}, "commit": {"sha": sha}})

        def _record(self, body: dict[str, Any] | None) -> None:
            with state.lock:
                state.requests.append(Request(self.command, self.path, dict(self.headers.items()), body))

        def _file_path(self) -> str | None:
            parts = urlsplit(self.path).path.split("/", 5)
            if len(parts) < 6 or parts[1] != "repos" or parts[4] != "contents":
                self._json(404, {"message": "Not Found", "status": "404"})
                return None
            if (parts[2], parts[3]) != (state.owner, state.repo):
                self._json(404, {"message": "Not Found", "status": "404"})
                return None
            return unquote(parts[5])

        def _refused(self) -> bool:
            with state.lock:
                forced = state.fail_next.pop(0) if state.fail_next else None
            if forced is not None:
                self._json(forced, {"message": f"forced {forced}", "status": str(forced)})
                return True
            if self.headers.get("Authorization") != f"Bearer {state.token}":
                self._json(401, {"message": "Bad credentials", "status": "401"})
                return True
            return False

        def _cors(self) -> None:
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Access-Control-Expose-Headers", "ETag")

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self._cors()
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "private, max-age=60")  # as GitHub's: the client must not cache
            self.end_headers()
            self.wfile.write(data)

    return Handler
