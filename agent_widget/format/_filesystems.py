"""URLs to fsspec filesystems, with S3's retries and timeouts bounded.

botocore's defaults wait 60 s to connect and try 5 times with backoff, so a wrong
endpoint takes 13 s to fail even when nothing listens there, minutes when packets
are dropped. A library or viewer should say "cannot reach" sooner: unless the
caller's ``config_kwargs`` say otherwise, S3 clients connect within 5 s, wait 30 s
for a reply and try twice.
"""

from __future__ import annotations

from typing import Any, TypeGuard

_S3_CONFIG = {"connect_timeout": 5, "read_timeout": 30, "retries": {"max_attempts": 2}}


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
    if url.split("://", 1)[0] in ("s3", "s3a"):
        options["config_kwargs"] = {**_S3_CONFIG, **options.get("config_kwargs", {})}
    return fsspec.core.url_to_fs(url, **options)
