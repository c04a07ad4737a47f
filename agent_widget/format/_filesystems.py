"""URLs to fsspec filesystems, with S3's retries and timeouts bounded.

Left to their defaults, two layers retry: botocore waits 60 s to connect and tries 5
times with backoff, and s3fs calls botocore up to 5 times again on a timeout. A
wrong endpoint took 13 s to fail even when nothing listened there, and one that
accepts connections and never answers took 462 s. A library or viewer should say
"cannot reach" sooner: unless the caller's ``config_kwargs`` say otherwise, S3
clients connect within 5 s, wait 15 s for a reply and make 2 attempts in all, and
s3fs calls botocore once (botocore's attempts are the retries). So a call fails
within ``S3_WORST_SECONDS``: 2 x (5 + 15) s, and under 5 s of backoff (botocore's
between its attempts, s3fs's after its one try).

Writes too: botocore asks for ``Expect: 100-continue`` on every upload, and aiohttp
waits for the "continue" with no timeout at all, so an upload to an endpoint that
never answers waited forever. The header is dropped (the body goes at once, and the
read timeout applies to the reply); it only saves sending a body a server refuses.
"""

from __future__ import annotations

from typing import Any, TypeGuard

S3_CONNECT_SECONDS = 5
S3_READ_SECONDS = 15
S3_ATTEMPTS = 2  # botocore's, the first included
S3FS_TRIES = 1  # s3fs's own calls of botocore on a timeout
_BACKOFF_SECONDS = 5
_ATTEMPT_SECONDS = S3_CONNECT_SECONDS + S3_READ_SECONDS
S3_WORST_SECONDS = S3FS_TRIES * S3_ATTEMPTS * _ATTEMPT_SECONDS + _BACKOFF_SECONDS
_S3_CONFIG = {
    "connect_timeout": S3_CONNECT_SECONDS,
    "read_timeout": S3_READ_SECONDS,
    "retries": {"total_max_attempts": S3_ATTEMPTS},
}


def is_url(path: object) -> TypeGuard[str]:
    """Whether ``path`` is a URL of an fsspec filesystem (``s3://...``), not a local path."""
    return isinstance(path, str) and "://" in path


def url_to_fs(url: str, storage_options: dict[str, Any] | None) -> tuple[Any, str]:
    """The filesystem of ``url`` and the path in it; ImportError naming the package to install."""
    try:
        import fsspec
    except ImportError:
        raise ImportError(
            f"{url}: reading a URL needs fsspec and the filesystem's package "
            "(pip install s3fs for s3://, gcsfs for gs://)"
        ) from None
    options = dict(storage_options or {})
    is_s3 = url.split("://", 1)[0] in ("s3", "s3a")
    if is_s3:
        options["config_kwargs"] = {**_S3_CONFIG, **options.get("config_kwargs", {})}
    fs, path = fsspec.core.url_to_fs(url, **options)
    if is_s3:
        # s3fs takes no option for it: a class attribute, set on this (cached) instance,
        # which every URL with these options shares.
        fs.retries = S3FS_TRIES
        _without_expect_continue(fs)
    return fs, path


def _without_expect_continue(fs: Any) -> None:
    """Drop ``Expect: 100-continue`` from the requests of ``fs`` (an s3fs filesystem):
    on its botocore session, made here as s3fs would make it, so that every client s3fs
    creates from it (again after a fork or a refresh) has the handler."""
    from aiobotocore.session import AioSession

    if fs.session is None:
        fs.session, fs._session_is_owned = AioSession(**fs.kwargs), True
    fs.session.register("before-call.s3", _drop_expect, unique_id="agent-widget-no-expect")


def _drop_expect(params: dict[str, Any], **_: Any) -> None:
    params["headers"].pop("Expect", None)
