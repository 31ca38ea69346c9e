"""A Hugging Face Hub stand-in on loopback: the endpoints ``HfApi.create_repo`` and ``HfApi.upload_folder`` use.

huggingface_hub 2.4 talks to these (read in its source: ``hf_api.py``, ``_commit_api.py``, ``lfs.py``,
``_upload_pipeline.py``):

* ``POST /api/repos/create``: ``{name, organization, type, visibility}``; 409 when the repo exists;
* ``GET /api/{type}s/{repo}/tree/{revision}``: the file list (``upload_folder`` with ``delete_patterns``);
* ``POST /api/validate-yaml``: the README's metadata (``create_commit`` checks it first);
* ``POST /api/{type}s/{repo}/preupload/{revision}``: which files go as ``regular`` (inline in the commit) and which
  as ``lfs``; files whose name ends with one of ``lfs_suffixes`` are ``lfs``, as the Hub does for binary files;
* ``POST /{type}s/{repo}.git/info/lfs/objects/batch``, ``PUT`` to the returned ``href``, ``POST`` verify: the
  legacy LFS transfer (basic, single part);
* ``POST /api/{type}s/{repo}/commit/{revision}``: the ndjson commit (``header``, ``file`` base64, ``lfsFile``
  by sha256, ``deletedFile``).

Not served: the Xet storage protocol (a content-addressed chunk store spoken by the Rust ``hf_xet`` client).
With ``hf_xet`` installed, ``upload_folder`` sends ``lfs`` files through Xet, so a test either answers
``regular`` for every file (``lfs_suffixes=()``) or disables Xet in the client (``HF_HUB_DISABLE_XET=1``).

Every request is recorded (method, path, whether it carried an ``Authorization`` header, that header's value) so
a test can check what reached the "Hub"; the repos' files are kept in memory, byte for byte.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit


@dataclass
class Repo:
    repo_type: str
    private: bool
    files: dict[str, bytes] = field(default_factory=lambda: {".gitattributes": b"*.parquet filter=lfs\n"})
    lfs_paths: set[str] = field(default_factory=set)
    commits: list[dict] = field(default_factory=list)


@dataclass
class Request:
    method: str
    path: str
    authorization: str | None


def _git_oid(blob: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(blob) + blob).hexdigest()


class LoopbackHub:
    """``with LoopbackHub() as hub:`` serves on ``hub.endpoint`` (``http://127.0.0.1:<port>``) until the block ends."""

    def __init__(self, *, lfs_suffixes: tuple[str, ...] = (".parquet",), token: str | None = None):
        self.lfs_suffixes = lfs_suffixes
        self.token = token  # when set, write endpoints answer 401 to any other bearer token
        self.repos: dict[tuple[str, str], Repo] = {}
        self.lfs: dict[str, bytes] = {}
        self.requests: list[Request] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> LoopbackHub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    # ------------------------------------------------------------------ the endpoints

    def _authorized(self, auth: str | None) -> bool:
        return auth is not None and (self.token is None or auth == f"Bearer {self.token}")

    def create_repo(self, body: dict) -> tuple[int, Any]:
        repo_id = f"{body['organization']}/{body['name']}" if body.get("organization") else body["name"]
        key = (body.get("type") or "model", repo_id)
        if key in self.repos:
            return 409, {"error": "You already created this repo", "url": self._repo_url(*key)}
        self.repos[key] = Repo(key[0], private=body.get("visibility") == "private")
        return 200, {"url": self._repo_url(*key), "name": repo_id}

    def tree(self, repo: Repo) -> tuple[int, Any]:
        out = []
        for path, blob in sorted(repo.files.items()):
            info: dict[str, Any] = {"type": "file", "path": path, "size": len(blob), "oid": _git_oid(blob)}
            if path in repo.lfs_paths:
                info["lfs"] = {"oid": hashlib.sha256(blob).hexdigest(), "size": len(blob), "pointerSize": 134}
            out.append(info)
        return 200, out

    def preupload(self, repo: Repo, body: dict) -> tuple[int, Any]:
        files = []
        for f in body.get("files", []):
            path = f["path"]
            lfs = path.endswith(self.lfs_suffixes)
            old = repo.files.get(path)
            oid = None if old is None else (hashlib.sha256(old).hexdigest() if lfs else _git_oid(old))
            files.append({"path": path, "uploadMode": "lfs" if lfs else "regular", "shouldIgnore": False, "oid": oid})
        return 200, {"files": files, "commitOid": "0" * 40}

    def lfs_batch(self, body: dict) -> tuple[int, Any]:
        objects = []
        for obj in body.get("objects", []):
            oid, size = obj["oid"], obj["size"]
            entry: dict[str, Any] = {"oid": oid, "size": size, "authenticated": True}
            if oid not in self.lfs:
                entry["actions"] = {
                    "upload": {"href": f"{self.endpoint}/lfs-upload/{oid}", "header": {}},
                    "verify": {"href": f"{self.endpoint}/lfs-verify", "header": {}},
                }
            objects.append(entry)
        return 200, {"transfer": "basic", "objects": objects}

    def lfs_upload(self, oid: str, blob: bytes) -> tuple[int, Any]:
        if hashlib.sha256(blob).hexdigest() != oid:
            return 400, {"error": f"content does not hash to {oid}"}
        self.lfs[oid] = blob
        return 200, {}

    def commit(self, key: tuple[str, str], repo: Repo, body: bytes) -> tuple[int, Any]:
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        if not lines or lines[0].get("key") != "header":
            return 400, {"error": "the first line of a commit must be its header"}
        changes: dict[str, bytes | None] = {}
        lfs_paths = set()
        for line in lines[1:]:
            value = line["value"]
            if line["key"] == "file":
                changes[value["path"]] = base64.b64decode(value["content"])
            elif line["key"] == "lfsFile":
                if value["oid"] not in self.lfs:
                    return 422, {"error": f"LFS object {value['oid']} of {value['path']} was never uploaded"}
                changes[value["path"]] = self.lfs[value["oid"]]
                lfs_paths.add(value["path"])
            elif line["key"] == "deletedFile":
                if value["path"] not in repo.files:
                    return 404, {"error": f"A file with this name doesn't exist: {value['path']}"}
                changes[value["path"]] = None
            else:
                return 400, {"error": f"unsupported commit operation {line['key']!r}"}
        for path, blob in changes.items():
            if blob is None:
                repo.files.pop(path, None)
                repo.lfs_paths.discard(path)
            else:
                repo.files[path] = blob
                repo.lfs_paths.discard(path)
        repo.lfs_paths |= lfs_paths
        oid = hashlib.sha1(body).hexdigest()
        repo.commits.append({"oid": oid, "summary": lines[0]["value"].get("summary"), "changes": sorted(changes)})
        return 200, {"commitUrl": f"{self._repo_url(*key)}/commit/{oid}", "commitOid": oid, "pullRequestUrl": None}

    def _repo_url(self, repo_type: str, repo_id: str) -> str:
        prefix = "" if repo_type == "model" else f"{repo_type}s/"
        return f"{self.endpoint}/{prefix}{repo_id}"

    # ------------------------------------------------------------------ routing

    def route(self, method: str, path: str, auth: str | None, body: bytes) -> tuple[int, Any]:
        parts = [unquote(p) for p in urlsplit(path).path.strip("/").split("/")]
        if method == "PUT" and parts[0] == "lfs-upload":
            return self.lfs_upload(parts[1], body)
        if method == "POST" and parts == ["lfs-verify"]:
            oid = json.loads(body)["oid"]
            return (200, {}) if oid in self.lfs else (404, {"error": f"LFS object {oid} not found"})
        if method == "POST" and parts == ["api", "validate-yaml"]:
            return self.validate_yaml(json.loads(body))
        if parts[:1] != ["api"] and len(parts) >= 6 and parts[-4:] == ["info", "lfs", "objects", "batch"]:
            if not self._authorized(auth):
                return 401, {"error": "Invalid credentials"}
            return self.lfs_batch(json.loads(body))
        if method == "POST" and parts == ["api", "repos", "create"]:
            if not self._authorized(auth):
                return 401, {"error": "Invalid credentials in Authorization header"}
            return self.create_repo(json.loads(body))
        if parts[:1] == ["api"] and len(parts) >= 5 and parts[1].endswith("s"):
            key = (parts[1][:-1], f"{parts[2]}/{parts[3]}")
            repo = self.repos.get(key)
            if repo is None:
                return 404, {"error": "Repository not found"}
            if repo.private and not self._authorized(auth):
                return 404, {"error": "Repository not found"}
            if method == "GET" and parts[4] == "tree":
                return self.tree(repo)
            if not self._authorized(auth):
                return 401, {"error": "Invalid credentials in Authorization header"}
            if method == "POST" and parts[4] == "preupload":
                return self.preupload(repo, json.loads(body))
            if method == "POST" and parts[4] == "commit":
                return self.commit(key, repo, body)
        return 404, {"error": f"not served by the loopback hub: {method} {path}"}

    @staticmethod
    def validate_yaml(body: dict) -> tuple[int, Any]:
        import yaml

        text = body.get("content", "")
        if not text.startswith("---\n"):
            return 200, {"errors": [], "warnings": [{"message": "empty or missing yaml metadata in repo card"}]}
        try:
            yaml.safe_load(text[4:].split("\n---\n", 1)[0])
        except yaml.YAMLError as exc:
            return 400, {"errors": [{"message": f"YAML does not parse: {exc}"}], "warnings": []}
        return 200, {"errors": [], "warnings": []}

    def _handler(self):
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    chunks = []
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                        if size == 0:
                            self.rfile.readline()
                            return b"".join(chunks)
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def _serve(self) -> None:
                body = self._body()
                auth = self.headers.get("Authorization")
                with hub.lock:
                    hub.requests.append(Request(self.command, self.path, auth))
                    try:
                        status, payload = hub.route(self.command, self.path, auth, body)
                    except (KeyError, ValueError, IndexError) as exc:
                        status, payload = 400, {"error": f"bad request: {type(exc).__name__}: {exc}"}
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 404 and "Repository not found" in str(payload):
                    self.send_header("X-Error-Code", "RepoNotFound")
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

            def log_message(self, format: str, *args) -> None:  # quiet: the test reads hub.requests
                pass

        return Handler


__all__ = ["LoopbackHub", "Repo", "Request"]
