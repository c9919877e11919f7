"""The fast parts of the remote path: the one line `plandvc push` / `pull` make of DVC's error output (from
DVC's real messages), the probe of a closed port, the refusal of a secret in the committed .dvc/config,
and an export folder that `datasets` loads by its card with no warning (each split has its num_bytes)."""

from __future__ import annotations

import logging
import socket
import time
from pathlib import Path

import pytest
import yaml
from raw_chains import make_chain, write_results

from plandvc.export.run import export
from plandvc.remote import Remote, RemoteError, committed_secrets, configured_remote, one_line, probe
from plandvc.rows.dataset import filter_rows

ROOT = Path(__file__).resolve().parents[1]
S3 = Remote("store", "s3://plandvc-store/plandvc", endpoint="http://127.0.0.1:9000")
SSH = Remote("store", "ssh://trainer@127.0.0.1:2222/store")

# DVC 3's own stderr for each failure (captured from `dvc push` / `dvc pull` against the loopback servers)
DVC_SAYS = {
    "refused": (
        "ERROR: failed to connect to s3 (plandvc-store/plandvc/files/md5) - Forbidden: An error occurred (403) "
        "when calling the HeadObject operation: Forbidden\n"
        "ERROR: failed to pull data from the cloud - 4 files failed to download\n"
    ),
    "no_bucket": (
        "ERROR: unexpected error - The specified bucket does not exist: An error occurred (NoSuchBucket) when "
        "calling the ListObjectsV2 operation: The specified bucket does not exist\n\n"
        "Having any troubles? Hit us up at https://dvc.org/support, we are always happy to help!\n"
    ),
    "disk_full": (
        "ERROR: failed to transfer '5d7ad8eb9d9d46ca618fe432b397010f' - [Errno 28] No space left on device\n"
        "ERROR: failed to transfer '5956f97cdf2c58f54b3b14786ad4de5d' - [Errno 28] No space left on device\n"
        "ERROR: failed to pull data from the cloud - 25 files failed to download\n"
    ),
    "other": "ERROR: unexpected error - something DVC did not expect\n\nHaving any troubles? Hit us up\n",
}


def test_dvc_errors_become_one_line_naming_the_cause() -> None:
    assert one_line("pull", S3, DVC_SAYS["refused"]) == (
        "remote 'store' refused the credentials (403 Forbidden): set the key with `dvc remote modify --local` "
        "or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (docs/REMOTES.md)"
    )
    assert one_line("push", S3, DVC_SAYS["no_bucket"]) == (
        "remote 'store': bucket 'plandvc-store' does not exist at http://127.0.0.1:9000; create it or fix the "
        "remote's url"
    )
    assert one_line("pull", S3, DVC_SAYS["disk_full"]) == (
        "pull: no space left on device on this machine (25 files not pulled); free space and rerun `make pull`"
    )
    assert one_line("push", S3, DVC_SAYS["other"]) == (
        "push to/from remote 'store': something DVC did not expect"
    )
    assert one_line("push", SSH, "ERROR: unexpected error - Permission denied for user trainer\n").startswith(
        "remote 'store' (ssh://trainer@127.0.0.1:2222/store) refused the login"
    )
    assert one_line("pull", S3, "") == "dvc pull failed"


def test_the_probed_address_of_each_kind_of_remote() -> None:
    assert S3.address() == ("127.0.0.1", 9000)
    assert Remote("s", "s3://bucket/p").address() is None, "AWS itself: no fixed host to probe"
    assert Remote("s", "s3://b/p", endpoint="https://minio.example.org").address() == (
        "minio.example.org",
        443,
    )
    assert SSH.address() == ("127.0.0.1", 2222)
    assert Remote("s", "ssh://host.example.org/srv").address() == ("host.example.org", 22)
    assert Remote("s", "ssh://host.example.org/srv", port=2200).address() == ("host.example.org", 2200)
    assert Remote("s", "/mnt/store").address() is None and Remote("s", "gs://b/p").address() is None


def test_a_closed_port_is_one_line_at_once() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(RemoteError) as e:
        probe(Remote("store", "s3://b/p", endpoint=f"http://127.0.0.1:{port}"))
    assert time.monotonic() - t0 < 2
    assert str(e.value) == (
        f"remote 'store' (http://127.0.0.1:{port}) is unreachable: cannot connect to 127.0.0.1:{port} "
        "(Connection refused)"
    )


def dvc_project(root: Path, config: str, local: str = "") -> Path:
    (root / ".dvc").mkdir(parents=True)
    (root / ".dvc" / "config").write_text(config)
    if local:
        (root / ".dvc" / "config.local").write_text(local)
    return root


def test_a_secret_in_the_committed_config_is_refused_and_config_local_is_fine(tmp_path: Path) -> None:
    remote = "['remote \"store\"']\n    url = s3://b/p\n"
    ok = dvc_project(
        tmp_path / "ok",
        "[core]\n    remote = store\n" + remote,
        remote.replace("url = s3://b/p", "secret_access_key = s3cr3t"),
    )
    committed_secrets(ok)
    assert configured_remote(ok, None) == Remote("store", "s3://b/p")
    leak = dvc_project(
        tmp_path / "leak", "[core]\n    remote = store\n" + remote + "    access_key_id = AKIA0\n"
    )
    with pytest.raises(RemoteError, match=r"^\.dvc/config holds access_key_id for remote 'store': move it"):
        committed_secrets(leak)
    none = dvc_project(tmp_path / "none", "")
    with pytest.raises(RemoteError, match=r"^no DVC remote: add one with"):
        configured_remote(none, None)
    with pytest.raises(RemoteError, match=r"^no DVC remote named 'other' \(configured: store\)"):
        configured_remote(ok, "other")
    with pytest.raises(RemoteError, match="is not in a DVC project"):
        configured_remote(tmp_path, None)


def test_an_export_folder_loads_by_its_card_with_no_warning(tmp_path: Path) -> None:
    """`load_dataset(<hf folder>)` reads the card's dataset_info; a split without num_bytes makes it warn
    "The `splits` field in YAML is malformed" and ignore the splits (what the cards did before)."""
    import datasets

    raw = tmp_path / "raw"
    for i, (site, parts) in enumerate(
        [("shop", ["a1", "b1"]), ("hotel", ["a2", "c1"]), ("clinic", ["d1", "e1"])]
    ):
        make_chain(raw, site, parts, shade=3 * i, size=(1280, 800))
    write_results(raw)
    rows = tmp_path / "rows" / "v1"
    filter_rows(raw, rows, tmp_path / "metrics", val_share=0.4, image_size=(1280, 800))
    out = tmp_path / "exports" / "v1"
    export(rows, out, sites=ROOT / "data" / "sites", metrics_dir=tmp_path / "metrics")

    card = (out / "hf" / "README.md").read_text()
    info = yaml.safe_load(card.split("---\n")[1])["dataset_info"]
    for split in info["splits"]:
        files = sorted((out / "hf" / "data").glob(f"{split['name']}-*.parquet"))
        assert split["num_bytes"] == sum(p.stat().st_size for p in files) > 0
    heard: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: heard.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("datasets")
    logger.addHandler(handler)
    try:
        ds = datasets.load_dataset(str(out / "hf"), cache_dir=str(tmp_path / "hf-cache"))
    finally:
        logger.removeHandler(handler)
    assert not [m for m in heard if "malformed" in m or "Ignoring" in m], heard
    assert {name: len(split) for name, split in ds.items()} == {
        s["name"]: s["num_examples"] for s in info["splits"]
    }
