"""``ambi push DIR --repo OWNER/NAME``: upload a built folder (validated first) to the HF Hub as a dataset repo.

What is uploaded is exactly :func:`upload_files`: the card (``README.md``), ``data/**/*.parquet``,
``build_info.json`` and ``load_report.json`` when present. ``--to-folder DIR2`` writes those files instead of
uploading; ``datasets.load_dataset(DIR2)`` loads it as users load the repo.

The token comes from ``huggingface_hub`` (``$HF_TOKEN`` or ``hf auth login``); it is handed to ``HfApi`` and never
printed, logged or written.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

log = logging.getLogger("ambi_plugin.push")

UPLOAD_PATTERNS = ("README.md", "data/**/*.parquet", "build_info.json", "load_report.json")


class PushError(ValueError):
    """The folder cannot be pushed (invalid, no token, bad repo name)."""


def upload_files(folder: str | Path) -> list[str]:
    """The files (relative, sorted) an upload of ``folder`` sends."""
    folder = Path(folder)
    out = [n for n in ("README.md", "build_info.json", "load_report.json") if (folder / n).is_file()]
    out += [str(p.relative_to(folder)) for p in sorted((folder / "data").rglob("*.parquet"))]
    return sorted(out)


def _checked(folder: Path) -> list[str]:
    from ambi_plugin.data.hub.validate import validate_folder

    problems = validate_folder(folder)
    if problems:
        shown = "\n".join(problems[:20])
        raise PushError(f"{folder} does not validate ({len(problems)} problem(s)); fix and rebuild first:\n{shown}")
    return upload_files(folder)


def write_push_folder(folder: str | Path, dest: str | Path) -> list[str]:
    """Write exactly what would be uploaded into ``dest`` (replaced atomically); returns the file list."""
    from ambi_plugin.paths import replace_dir_atomically

    folder = Path(folder)
    files = _checked(folder)

    def copy(tmp: Path) -> None:
        for rel in files:
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(folder / rel, tmp / rel)

    replace_dir_atomically(dest, copy)
    return files


def push(folder: str | Path, repo: str, *, private: bool = False, token: str | None = None) -> str:
    """Create (or reuse) the dataset repo and upload the folder; returns the commit URL.

    The Hub is ``huggingface_hub``'s endpoint (``$HF_ENDPOINT``, default https://huggingface.co).
    """
    from huggingface_hub import HfApi

    folder = Path(folder)
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise PushError(f"--repo must be OWNER/NAME, got {repo!r}")
    files = _checked(folder)
    if token is None:
        from huggingface_hub import get_token

        token = get_token()
    if not token:
        raise PushError("no Hugging Face token: set HF_TOKEN or run `hf auth login`, then push again")
    api = HfApi(token=token)
    log.info("ambi push: %d file(s) from %s to dataset repo %s (private=%s)", len(files), folder, repo, private)
    try:
        api.create_repo(repo_id=repo, repo_type="dataset", private=private, exist_ok=True)
        info = api.upload_folder(
            folder_path=str(folder),
            repo_id=repo,
            repo_type="dataset",
            allow_patterns=list(UPLOAD_PATTERNS),
            delete_patterns=["data/**/*.parquet"],  # shards of an earlier push that this build no longer has
            commit_message=f"ambi push: {', '.join(sorted({f.split('/')[0] for f in files}))}",
        )
    except Exception as exc:  # noqa: BLE001 - the Hub client's errors (HTTP, connection, offline) in one line
        from huggingface_hub import constants

        reason = " ".join(str(exc).split())[:300].replace(token, "***")
        raise PushError(
            f"cannot push {folder} to the dataset repo {repo} at {constants.ENDPOINT} ({type(exc).__name__}: "
            f"{reason}); check the network, HF_ENDPOINT and HF_HUB_OFFLINE, then push again"
        ) from None
    url = str(info.commit_url)
    log.info("ambi push: uploaded to %s", url)
    return url


__all__ = ["PushError", "UPLOAD_PATTERNS", "push", "upload_files", "write_push_folder"]
