"""Remote stores served in this process on loopback, for the DVC remote tests: an S3 server (moto's, the one
DVC's own S3 plugin tests against) that checks signatures against an IAM user it made, and an SFTP server
(asyncssh) with a chrooted root, a throwaway host key and one authorised client key."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import boto3
from moto import settings
from moto.server import ThreadedMotoServer

REGION = "us-east-1"
ALLOW_S3 = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}


@dataclass(frozen=True)
class S3Store:
    """A running S3 endpoint, the key of the one user it accepts, and the bucket it holds."""

    endpoint: str
    key_id: str
    secret: str
    bucket: str

    def client(self, key_id: str | None = None, secret: str | None = None):  # -> botocore S3 client
        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=REGION,
            aws_access_key_id=key_id or self.key_id,
            aws_secret_access_key=secret or self.secret,
        )

    def objects(self) -> list[str]:
        """Every object key in the bucket, sorted."""
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=self.bucket)
        return sorted(o["Key"] for page in pages for o in page.get("Contents", []))

    @property
    def env(self) -> dict[str, str]:
        """The environment a DVC client reads the credentials from (never .dvc/config)."""
        return {"AWS_ACCESS_KEY_ID": self.key_id, "AWS_SECRET_ACCESS_KEY": self.secret}


@contextmanager
def s3_store(bucket: str = "plandvc-store") -> Iterator[S3Store]:
    """moto's S3 (and IAM) on 127.0.0.1 with an ephemeral port. An IAM user with S3 rights and its access key
    are made while the server accepts any request; then every request must be signed with that key."""
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    before = settings.INITIAL_NO_AUTH_ACTION_COUNT
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        boot = {"endpoint_url": endpoint, "region_name": REGION}
        boot |= {"aws_access_key_id": "bootstrap", "aws_secret_access_key": "bootstrap"}
        iam = boto3.client("iam", **boot)
        iam.create_user(UserName="trainer")
        iam.put_user_policy(UserName="trainer", PolicyName="s3", PolicyDocument=json.dumps(ALLOW_S3))
        key = iam.create_access_key(UserName="trainer")["AccessKey"]
        boto3.client("s3", **boot).create_bucket(Bucket=bucket)
        settings.INITIAL_NO_AUTH_ACTION_COUNT = 0  # from here on every request is authenticated
        yield S3Store(endpoint, key["AccessKeyId"], key["SecretAccessKey"], bucket)
    finally:
        settings.INITIAL_NO_AUTH_ACTION_COUNT = before
        server.stop()


@dataclass(frozen=True)
class SFTPStore:
    """A running SFTP server: its port, the folder it serves as `/`, the client's key file and a known_hosts
    line for the server's host key."""

    port: int
    root: Path
    client_key: Path
    known_hosts: str


@contextmanager
def sftp_store(work: Path) -> Iterator[SFTPStore]:
    """An asyncssh server on 127.0.0.1 with an ephemeral port, in a thread with its own event loop: SFTP
    only (no shell, no exec), chrooted to `work/root`, one authorised ed25519 client key."""
    root, keys = work / "root", work / "keys"
    root.mkdir(parents=True)
    keys.mkdir()
    host_key = asyncssh.generate_private_key("ssh-ed25519")
    client_key = asyncssh.generate_private_key("ssh-ed25519")
    client_key.write_private_key(keys / "id_ed25519")
    (keys / "id_ed25519").chmod(0o600)
    authorized = asyncssh.import_authorized_keys(client_key.export_public_key().decode())

    loop = asyncio.new_event_loop()
    ready = threading.Event()
    listener: list[asyncssh.SSHAcceptor] = []

    async def start() -> None:
        listener.append(
            await asyncssh.listen(
                "127.0.0.1",
                0,
                server_host_keys=[host_key],
                authorized_client_keys=authorized,
                sftp_factory=lambda chan: asyncssh.SFTPServer(chan, chroot=str(root).encode()),
                allow_scp=False,
            )
        )
        ready.set()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        loop.run_forever()

    thread = threading.Thread(target=serve, name="sftp-store", daemon=True)
    thread.start()
    if not ready.wait(30):
        raise RuntimeError("the SFTP server did not start in 30 s")
    port = listener[0].get_port()
    known = f"[127.0.0.1]:{port} {host_key.export_public_key().decode().strip()}\n"
    try:
        yield SFTPStore(port, root, keys / "id_ed25519", known)
    finally:

        async def stop() -> None:
            listener[0].close()
            await listener[0].wait_closed()

        asyncio.run_coroutine_threadsafe(stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()
