"""The `wds` export: WebDataset tar shards `<split>-000000.tar`, for streaming loaders.

WebDataset groups a tar's consecutive files into samples by key: a file's key is its name up to the first
dot, the rest is its extension. So keys hold no dots (the example id `<chain key>-s<step>`, checked), and a
sample is `<id>.json` (the example: `id`, `prompt`, `completion`, `messages` as in the hf export, with
`{"type": "image"}` placeholders, `images` = the image file names in placeholder order, and the meta) then
one PNG per image, `<id>.img<k>.png` for k = 0, 1, ... (the decoder picks the handler by the last
extension). Shards hold at most `shard_rows` samples.

Tar members have a fixed mtime (0), uid/gid (0), owner names (empty), mode (0644) and order, in the ustar
format: the same version gives the same bytes.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from plandvc.export.common import ExportParams, FormatReport, shards
from plandvc.export.hf import TrlRow, trl_columns
from plandvc.io import dumps
from plandvc.rows.examples import Example
from plandvc.rows.version import DatasetVersion


def sample_json(example: Example) -> TrlRow[str]:
    """The sample's JSON member: the Parquet row's columns, with the images named by their PNG members."""
    return trl_columns(example, [f"img{k}.png" for k in range(len(example.images))])


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), 0, 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))


def write(version: DatasetVersion, out: Path, params: ExportParams) -> FormatReport:
    """Write the tar shards of every split under `out`."""
    report = FormatReport("wds")
    out.mkdir(parents=True, exist_ok=True)
    for split, examples in version.by_split.items():
        report.examples[split] = len(examples)
        for i, shard in enumerate(shards(examples, params.shard_rows)):
            path = out / f"{split}-{i:06d}.tar"
            with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as tar:
                for e in shard:
                    _add(tar, f"{e.id}.json", dumps(sample_json(e)))
                    for k, name in enumerate(e.images):
                        _add(tar, f"{e.id}.img{k}.png", version.image(e, name))
            report.add(out, path)
    return report
