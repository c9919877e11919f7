"""plandvc export: every format loads with its own library (datasets, webdataset, the openai package's types),
TRL's and LLaMA-Factory's documented rules hold, the bytes are reproducible, and each bad input (a missing
image, more placeholders than images, a split that leaks, a test site, the OpenAI limits) is a one-line
error that leaves the previous export as it was.

The version is made by filter-rows from hand-made raw chains in run-chains' format with 1280x800 PNGs
(tests/test_pipeline.py loads the export of a real run made by `dvc repro`).
"""

from __future__ import annotations

import base64
import hashlib
import io
import shutil
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest
import yaml
from click.testing import CliRunner
from raw_chains import make_version

from plandvc.cli import cli
from plandvc.export import hf, llamafactory, openai_jsonl
from plandvc.export.common import FORMATS, ExportParams
from plandvc.export.run import export
from plandvc.io import InputError, read_json, read_jsonl

ROOT = Path(__file__).resolve().parents[1]
SITES = ROOT / "data" / "sites"
SIZE = (1280, 800)
CHAINS = [  # (site, parts, answer): a1 and d1 are shared, so the split must exclude or join chains
    ("shop", ["a1", "b1"], None),
    ("shop", ["a2", "c1"], 7),
    ("shop", ["a1", "c2"], None),
    ("clinic", ["d1", "e1", "b3"], None),
    ("clinic", ["d1", "e2"], None),
    ("clinic", ["d3", "e3"], None),
]


def tree(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the dataset version, its export with every format)."""
    tmp = tmp_path_factory.mktemp("export")
    rows = make_version(tmp, CHAINS, SIZE)
    export(rows, tmp / "exports" / "v1", sites=SITES, metrics_dir=tmp / "metrics")
    return rows, tmp / "exports" / "v1"


@pytest.fixture
def rows_copy(made: tuple[Path, Path], tmp_path: Path) -> Path:
    """A private copy of the version, to break."""
    dst = tmp_path / "rows" / "v1"
    shutil.copytree(made[0], dst)
    return dst


def rewrite(rows: Path, rel: str, data: bytes) -> None:
    """Change a file of the version and its sha256 in the manifest (as a version made that way would be)."""
    (rows / rel).write_bytes(data)
    manifest = read_json(rows / "manifest.json")
    manifest["files"][rel] = hashlib.sha256(data).hexdigest()
    (rows / "manifest.json").write_bytes(orjson.dumps(manifest))


def examples_by_split(rows: Path) -> dict[str, list[dict]]:
    manifest = read_json(rows / "manifest.json")
    out: dict[str, list[dict]] = {"train": [], "val": []}
    for c in manifest["chains"]:
        if c["split"] in out:
            out[c["split"]] += read_jsonl(rows / c["key"] / "rows.jsonl")
    return out


# --- each format with its own loader ---------------------------------------------------------------------


def test_the_split_excludes_a_chain_and_the_export_has_every_other_row(made):
    rows, _ = made
    manifest = read_json(rows / "manifest.json")
    splits = {c["key"]: c["split"] for c in manifest["chains"]}
    assert sorted(splits.values()) == ["excluded", "train", "train", "val", "val", "val"]
    metrics = read_json(rows.parents[1] / "metrics" / "export.json")
    want = {s: len(ex) for s, ex in examples_by_split(rows).items()}
    assert metrics["examples"] == want and metrics["leak"] == {
        "shared_parts": 0,
        "shared_prompts": 0,
        "duplicate_rows": 0,
    }
    assert all(metrics["formats"][f]["examples"] == want for f in FORMATS)


def test_hf_parquet_loads_with_datasets_as_image_features(made):
    import datasets

    rows, out = made
    files = {s: str(out / "hf" / "data" / f"{s}-00000-of-00001.parquet") for s in ("train", "val")}
    ds = datasets.load_dataset("parquet", data_files=files)
    want = examples_by_split(rows)
    for split, got in ds.items():
        assert got.features["images"] == datasets.List(datasets.Image())
        assert len(got) == len(want[split])
        for row, src in zip(got, want[split], strict=True):
            placeholders = sum(p["type"] == "image" for m in row["prompt"] for p in m["content"])
            assert placeholders == len(row["images"]) >= 1
            assert all(img.size == SIZE for img in row["images"])
            assert row["completion"] == [
                {"role": "assistant", "content": [{"type": "text", "text": src["target"]}]}
            ]
            assert row["messages"] == row["prompt"] + row["completion"]
            assert (row["task_id"], row["step"], row["op"]) == (src["task_id"], src["step"], src["op"])
    meta = pq.read_schema(files["train"]).metadata[b"huggingface"]
    assert orjson.loads(meta)["info"]["features"]["images"] == {
        "feature": {"_type": "Image"},
        "_type": "List",
    }
    # the card's YAML features are the Parquet's features
    head = yaml.safe_load((out / "hf" / "README.md").read_text().split("---\n")[1])
    card_features = datasets.Features._from_yaml_list(head["dataset_info"]["features"])
    assert card_features == ds["train"].features
    assert head["configs"][0]["data_files"] == [
        {"split": "train", "path": "data/train-*"},
        {"split": "val", "path": "data/val-*"},
    ]


def test_hf_row_groups_stay_small(made, tmp_path):
    rows, _ = made
    export(rows, tmp_path / "x", formats="hf", params=ExportParams(row_group_rows=2))
    for f in (tmp_path / "x" / "hf" / "data").glob("*.parquet"):
        meta = pq.ParquetFile(f).metadata
        assert meta.num_row_groups == -(-meta.num_rows // 2)
        assert all(meta.row_group(i).num_rows <= 2 for i in range(meta.num_row_groups))


def test_trl_vision_rules_hold(made):
    """TRL's documented vision format (docs/source/dataset_formats.md, "Vision datasets", and
    docs/source/sft_trainer.md, "Training Vision Language Models"): an `images` column holding a list of
    images, conversational `prompt`/`completion` whose message contents are lists of `{"type": "text"}`
    and `{"type": "image"}` dicts, one image part per image, and the completion the assistant's turn.
    TRL itself installs torch and transformers, a GPU stack, so its rules are checked here on the Parquet."""
    _, out = made
    for f in sorted((out / "hf" / "data").glob("*.parquet")):
        for row in pq.read_table(f).to_pylist():
            assert [m["role"] for m in row["prompt"]] == ["system", "user"]
            assert [m["role"] for m in row["completion"]] == ["assistant"]
            for m in row["prompt"] + row["completion"]:
                assert isinstance(m["content"], list)
                assert all(p["type"] in ("text", "image") for p in m["content"])
            parts = [p for m in row["prompt"] for p in m["content"]]
            assert sum(p["type"] == "image" for p in parts) == len(row["images"])
            assert all(i["bytes"][:8] == b"\x89PNG\r\n\x1a\n" for i in row["images"])


def test_llamafactory_documented_rules_hold(made):
    """LLaMA-Factory's data/README.md: a sharegpt dataset in the OpenAI layout is registered in
    `dataset_info.json` with `file_name`, `"formatting": "sharegpt"`, `columns` (`messages`, and `images`
    for a multimodal one) and the `tags` `role_tag`, `content_tag`, `user_tag`, `assistant_tag`,
    `system_tag`; the system message may come first, then user messages sit in the odd positions and
    assistant ones in the even positions. Its multimodal data puts one `<image>` token in the text per image
    of `images` (paths, relative ones resolved against the dataset folder). LLaMA-Factory installs torch, so
    the rules are checked here, and the files are read with `datasets`' json loader, which it uses."""
    import datasets

    rows, out = made
    lf = out / "llamafactory"
    info = read_json(lf / "dataset_info.json")
    assert set(info) == {"plandvc_planner_train", "plandvc_planner_val"}
    for split in ("train", "val"):
        entry = info[f"plandvc_planner_{split}"]
        assert entry == {
            "file_name": f"{split}.jsonl",
            "formatting": "sharegpt",
            "columns": {"messages": "messages", "images": "images"},
            "tags": {"role_tag": "role", "content_tag": "content", "user_tag": "user",
                     "assistant_tag": "assistant", "system_tag": "system"},
        }  # fmt: skip
        ds = datasets.load_dataset("json", data_files=str(lf / entry["file_name"]), split="train")
        want = examples_by_split(rows)[split]
        assert len(ds) == len(want)
        for row, src in zip(ds, want, strict=True):
            roles = [m["role"] for m in row["messages"]]
            body = roles[1:] if roles[0] == "system" else roles
            assert body == ["user", "assistant"] * (len(body) // 2) and len(body) % 2 == 0
            assert row["messages"][-1]["content"] == src["target"]
            tokens = sum(m["content"].count("<image>") for m in row["messages"])
            assert tokens == len(row["images"]) >= 1
            for path in row["images"]:
                assert not Path(path).is_absolute() and (lf / path).read_bytes()[:4] == b"\x89PNG"


def validate(adapter, messages: list[dict]) -> None:
    """Validate messages as the openai package's types; content parts are an Iterable, which pydantic checks
    only when it is iterated, so every list content is iterated here."""
    for m in adapter.validate_python(messages):
        if not isinstance(m.get("content"), str | None):
            list(m["content"])


def test_openai_jsonl_validates_against_the_openai_types(made):
    """The messages validate as the `openai` package's ChatCompletionMessageParam; images are data URLs of
    1280x800 PNGs, only in user messages, at most 10 per example and 10 MB each (the vision fine-tuning
    format's documented limits)."""
    from openai.types.chat import ChatCompletionMessageParam
    from PIL import Image
    from pydantic import TypeAdapter, ValidationError

    adapter = TypeAdapter(list[ChatCompletionMessageParam])
    rows, out = made
    for split, want in examples_by_split(rows).items():
        lines = read_jsonl(out / "openai" / f"{split}.jsonl")
        assert len(lines) == len(want)
        for line, src in zip(lines, want, strict=True):
            assert set(line) == {"messages"}
            validate(adapter, line["messages"])
            assert line["messages"][-1] == {"role": "assistant", "content": src["target"]}
            urls = [
                p["image_url"]["url"]
                for m in line["messages"]
                if isinstance(m["content"], list)
                for p in m["content"]
                if p["type"] == "image_url"
            ]
            assert 1 <= len(urls) <= 10
            assert all(m["role"] == "user" for m in line["messages"] if isinstance(m["content"], list))
            for url in urls:
                head, data = url.split(",", 1)
                assert head == "data:image/png;base64"
                png = base64.b64decode(data)
                assert len(png) <= 10_000_000 and Image.open(io.BytesIO(png)).size == SIZE
    # the validator does fail on a message the API would refuse
    with pytest.raises(ValidationError):
        validate(adapter, [{"role": "user", "content": [{"type": "image_url", "image_url": "x"}]}])
    with pytest.raises(ValidationError):
        validate(adapter, [{"role": "planner", "content": "x"}])


def test_webdataset_reads_the_shards_and_decodes_every_png(made):
    import webdataset as wds

    rows, out = made
    for split, want in examples_by_split(rows).items():
        shards = sorted(str(p) for p in (out / "wds").glob(f"{split}-*.tar"))
        assert shards == [str(out / "wds" / f"{split}-000000.tar")]
        samples = list(wds.WebDataset(shards, shardshuffle=False, empty_check=False).decode("pil"))
        assert len(samples) == len(want)
        for sample, src in zip(samples, want, strict=True):
            meta = sample["json"]
            assert sample["__key__"] == meta["id"] == f"{src['task_id']}-s{src['step']:02d}"
            assert "." not in sample["__key__"]
            images = [sample[name] for name in meta["images"]]
            placeholders = sum(p["type"] == "image" for m in meta["prompt"] for p in m["content"])
            assert placeholders == len(images) >= 1 and all(i.size == SIZE for i in images)
            assert meta["completion"][0]["content"][0]["text"] == src["target"]


def test_cards_are_hf_cards_made_from_the_data(made):
    rows, out = made
    manifest = read_json(rows / "manifest.json")
    for fmt in (None, *FORMATS):
        text = (out / (f"{fmt}/README.md" if fmt else "README.md")).read_text()
        assert text.startswith("---\n")
        head = yaml.safe_load(text.split("---\n")[1])
        assert head["license"] == "mit" and head["task_categories"] == ["image-text-to-text"]
        assert head["size_categories"] == ["n<1K"]
        splits = {s["name"]: s["num_examples"] for s in head["dataset_info"]["splits"]}
        assert splits == {s: len(ex) for s, ex in examples_by_split(rows).items()}
        body = text.split("---\n", 2)[2]
        assert "Leak check, recomputed on export: parts in both train and val = 0" in body
        assert manifest["split"]["rule"] in body and "school" in body  # the held-out site is named
        assert str(ROOT) not in text and "/tmp" not in text
    head = yaml.safe_load((out / "README.md").read_text().split("---\n")[1])
    assert head["configs"][0]["data_files"][0] == {"split": "train", "path": "hf/data/train-*"}


# --- reproducible, atomic, bad input ---------------------------------------------------------------------


def test_same_version_gives_the_same_bytes_in_every_format(made, tmp_path):
    rows, out = made
    export(rows, tmp_path / "again", sites=SITES)
    assert tree(tmp_path / "again") == tree(out)
    assert {p.split("/")[0] for p in tree(out)} == {*FORMATS, "README.md"}


def test_formats_not_asked_for_get_a_readme_only(made, tmp_path):
    rows, _ = made
    export(rows, tmp_path / "x", formats="openai,hf")
    got = tree(tmp_path / "x")
    assert set(got) >= {"openai/train.jsonl", "hf/data/train-00000-of-00001.parquet"}
    assert [p for p in got if p.startswith("wds/")] == ["wds/README.md"]
    assert b"not exported" in got["wds/README.md"]
    with pytest.raises(InputError, match="tfrecord"):
        export(rows, tmp_path / "y", formats="hf,tfrecord")


def _fails_and_keeps(rows: Path, out: Path, match: str, **kw) -> None:
    before = tree(out)
    with pytest.raises(InputError, match=match) as e:
        export(rows, out, **kw)
    assert "\n" not in str(e.value)
    assert tree(out) == before, "a failed export changed the previous one"
    assert not list(out.parent.glob(".*tmp-*"))


@pytest.fixture
def exported(rows_copy: Path, tmp_path: Path) -> Path:
    out = tmp_path / "exports" / "v1"
    export(rows_copy, out, sites=SITES)
    return out


def test_a_missing_image_is_named(rows_copy, exported):
    key = read_json(rows_copy / "manifest.json")["chains"][0]["key"]
    (rows_copy / key / "step_1.png").unlink()
    _fails_and_keeps(rows_copy, exported, rf"{key}/step_1.png: missing", sites=SITES)


def test_a_changed_image_is_named(rows_copy, exported):
    key = read_json(rows_copy / "manifest.json")["chains"][0]["key"]
    (rows_copy / key / "step_0.png").write_bytes(b"\x89PNG\r\n\x1a\nnot the screenshot")
    _fails_and_keeps(rows_copy, exported, rf"{key}/step_0.png: its sha256 is not the manifest's")


def _edit_row(rows: Path, key: str, step: int, fn) -> None:
    rel = f"{key}/rows.jsonl"
    lines = read_jsonl(rows / rel)
    fn(lines[step])
    rewrite(rows, rel, b"".join(orjson.dumps(r) + b"\n" for r in lines))


def _in_split(rows: Path) -> str:
    return next(c["key"] for c in read_json(rows / "manifest.json")["chains"] if c["split"] == "train")


def test_a_text_with_a_literal_image_token_is_more_placeholders_than_images(rows_copy, exported):
    key = _in_split(rows_copy)

    def fn(row):
        row["messages"][1]["content"][0]["text"] += " <image>"

    _edit_row(rows_copy, key, 1, fn)
    _fails_and_keeps(rows_copy, exported, rf"{key}/rows.jsonl row 1: 2 <image> tokens for 1 image")
    # the formats whose placeholders are parts are not fooled by the text: they export it as it is
    export(rows_copy, exported.parent / "other", formats="hf,openai,wds")


def test_an_image_placeholder_without_its_image_is_refused(rows_copy, exported):
    key = _in_split(rows_copy)
    _edit_row(rows_copy, key, 0, lambda row: row["messages"][1]["content"].append({"type": "image"}))
    _fails_and_keeps(rows_copy, exported, "an image placeholder with no image")


def test_an_image_part_naming_no_file_of_the_chain_is_refused(rows_copy, exported):
    key = _in_split(rows_copy)

    def fn(row):
        row["messages"][1]["content"][1]["image_url"]["url"] = "step_9.png"

    _edit_row(rows_copy, key, 0, fn)
    _fails_and_keeps(rows_copy, exported, "image 'step_9.png' is not a file of the chain")


def test_a_split_that_leaks_is_refused_naming_the_part(rows_copy, exported):
    manifest = read_json(rows_copy / "manifest.json")
    excluded = next(c for c in manifest["chains"] if c["split"] == "excluded")
    excluded["split"] = "train"  # it shares a part with a val chain
    (rows_copy / "manifest.json").write_bytes(orjson.dumps(manifest))
    shared = next(p for p in excluded["parts"] if p in {"a1", "d1"})
    _fails_and_keeps(
        rows_copy, exported, rf"the split leaks: part {shared} is in train \({excluded['key']}\)"
    )


def test_duplicate_rows_in_one_split_are_refused(rows_copy, exported):
    a, b = (c["key"] for c in read_json(rows_copy / "manifest.json")["chains"] if c["split"] == "train")
    first = read_jsonl(rows_copy / a / "rows.jsonl")[0]
    _edit_row(rows_copy, b, 0, lambda row: row.update(messages=first["messages"]))
    rewrite(rows_copy, f"{b}/step_0.png", (rows_copy / a / "step_0.png").read_bytes())
    _fails_and_keeps(
        rows_copy, exported, rf"duplicate rows: a row prompt \(\w+\) is in {a} and in {b} of one split"
    )


def test_a_chain_on_the_test_site_is_refused(rows_copy, exported):
    manifest = read_json(rows_copy / "manifest.json")
    manifest["chains"][0]["site"] = "school"
    (rows_copy / "manifest.json").write_bytes(orjson.dumps(manifest))
    _fails_and_keeps(rows_copy, exported, "held-out test site 'school'", sites=SITES)


def test_openai_limits_are_checked(rows_copy, exported, monkeypatch):
    _fails_and_keeps(
        rows_copy,
        exported,
        "1 images, over the format's 0 per example",
        params=ExportParams(openai_max_images=0),
    )
    _fails_and_keeps(
        rows_copy,
        exported,
        r"over the format's 0.001 MB per image",
        params=ExportParams(openai_max_image_mb=0.001),
    )
    monkeypatch.setattr(openai_jsonl, "MAX_IMAGE_EXAMPLES", 3)
    _fails_and_keeps(rows_copy, exported, r"train examples with images, over the format's 3 per file")


def test_roles_that_do_not_alternate_are_refused_for_llamafactory(made):
    rows, _ = made
    from plandvc.rows.version import DatasetVersion

    version = DatasetVersion.open(rows)
    example = version.contents.examples[0]
    broken = type(example)(**{**example.__dict__, "prompt": (*example.prompt, example.prompt[-1])})
    with pytest.raises(InputError, match="do not alternate"):
        llamafactory.record(broken)
    assert hf.record(version, example)["id"] == example.id


def test_filter_metrics_that_are_not_an_object_are_one_line(rows_copy, exported, tmp_path):
    """The card reads filter-rows' filter.json typed: a file that is not its object is named before any work."""
    bad = tmp_path / "filter.json"
    bad.write_text("[1, 2]\n")
    _fails_and_keeps(
        rows_copy, exported, "filter.json: expected filter-rows' metrics object", filter_metrics=bad
    )


def test_cli_exports_and_bad_input_is_one_line(made, tmp_path):
    rows, _ = made
    result = CliRunner().invoke(
        cli, ["export", "--rows", str(rows), "--out", str(tmp_path / "e"), "--formats", "openai"]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "e" / "openai" / "train.jsonl").exists()
    bad = CliRunner().invoke(cli, ["export", "--rows", str(tmp_path / "nope"), "--out", str(tmp_path / "f")])
    assert bad.exit_code == 1 and "nope: no such dataset folder" in bad.output
    assert len(bad.output.strip().splitlines()) == 1
    helped = CliRunner().invoke(cli, ["export", "--help"])
    assert "Example:" in helped.output


def test_openai_refuses_an_image_that_is_not_rgb(rows_copy, exported):
    from PIL import Image

    key = _in_split(rows_copy)
    buf = io.BytesIO()
    Image.new("L", SIZE).save(buf, format="PNG")  # greyscale: the format takes RGB or RGBA only
    rewrite(rows_copy, f"{key}/step_0.png", buf.getvalue())
    _fails_and_keeps(rows_copy, exported, rf"{key}/step_0.png \(row 0\): not an RGB or RGBA PNG")


def test_an_empty_split_gets_no_file_and_the_rest_still_loads(rows_copy, tmp_path):
    """Loaders refuse an empty split file (`datasets` raises 'corresponds to no data'), so none is written."""
    import datasets

    manifest = read_json(rows_copy / "manifest.json")
    for c in manifest["chains"]:
        c["split"] = "excluded" if c["split"] == "val" else c["split"]
    (rows_copy / "manifest.json").write_bytes(orjson.dumps(manifest))
    done = export(rows_copy, tmp_path / "e")
    assert done.metrics["examples"]["val"] == 0
    assert not [p for p in tree(tmp_path / "e") if "val" in p]
    assert set(read_json(tmp_path / "e" / "llamafactory" / "dataset_info.json")) == {"plandvc_planner_train"}
    head = yaml.safe_load((tmp_path / "e" / "hf" / "README.md").read_text().split("---\n")[1])
    assert [f["split"] for f in head["configs"][0]["data_files"]] == ["train"]
    ds = datasets.load_dataset("parquet", data_files=str(tmp_path / "e" / "hf" / "data" / "*.parquet"))
    assert len(ds["train"]) == done.metrics["examples"]["train"]


def test_a_chain_key_with_a_dot_is_refused(rows_copy, exported):
    """A dot would split a WebDataset key; keys are checked when the version is read."""
    manifest = read_json(rows_copy / "manifest.json")
    manifest["chains"][0]["key"] = "plan.shop-1"
    (rows_copy / "manifest.json").write_bytes(orjson.dumps(manifest))
    _fails_and_keeps(rows_copy, exported, "chains\\[0\\]: key 'plan.shop-1' is not a chain folder name")


def test_the_card_says_the_dialect_and_its_marks_only_when_marks_are_drawn(made, rows_copy, tmp_path):
    _, out = made
    assert "screenshot marks" not in (out / "README.md").read_text()  # a version without marks: as before
    manifest = read_json(rows_copy / "manifest.json")
    for c in manifest["chains"]:
        rel = f"{c['key']}/episode.json"
        episode = read_json(rows_copy / rel)
        episode.update(dialect="browser-use-0.5", marks=True)
        rewrite(rows_copy, rel, orjson.dumps(episode, option=orjson.OPT_INDENT_2))
    export(rows_copy, tmp_path / "marked", sites=SITES)
    for fmt in (None, *FORMATS):
        text = (tmp_path / "marked" / (f"{fmt}/README.md" if fmt else "README.md")).read_text()
        assert (
            "| screenshot marks | every screenshot as dialect browser-use-0.5 sends it: its agent's" in text
        )
