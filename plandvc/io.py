"""Shared file I/O: JSON and JSON Lines with orjson, written atomically (aside, then renamed) and sorted.

Every output of the pipeline goes through here so that it is a function of its inputs: keys sorted where the
caller asks, no absolute paths, and a reader never sees a half-written file.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import orjson

# re-exported: bad input is `plandvc.errors.InputError`, imported from here by much of the package
from plandvc.errors import InputError as InputError

if TYPE_CHECKING:
    from jsonschema import ValidationError

T = TypeVar("T")

# a JSON value as a parser returns it; a record the project has validated is read as its TypedDict instead
JSONScalar: TypeAlias = str | int | float | bool | None
JSONValue: TypeAlias = JSONScalar | list["JSONValue"] | dict[str, "JSONValue"]
JSONObject: TypeAlias = dict[str, JSONValue]

MAX_PROBLEMS_SHOWN = 30
DVC_IGNORE = ".gitignore"  # DVC writes one beside the outputs it tracks: it belongs to no command


def raise_problems(problems: list[str]) -> None:
    """One InputError listing every problem found in an input, one line each (the first 30, then a count)."""
    if problems:
        shown = problems[:MAX_PROBLEMS_SHOWN]
        if len(problems) > MAX_PROBLEMS_SHOWN:
            shown.append(f"... and {len(problems) - MAX_PROBLEMS_SHOWN} more problems")
        raise InputError("\n".join(shown))


def json_path(parts: Iterable[str | int]) -> str:
    """['steps', 2, 'element'] -> 'steps[2].element': a place in a JSON value, as every error names it."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")


def error_key(e: ValidationError) -> str:
    """The key a JSON Schema error is about: its place in the value, and for a missing property that property
    (the one line every schema check prints starts with it)."""
    parts = list(e.absolute_path)
    if e.validator == "required":
        parts.append(e.message.split("'")[1] if "'" in e.message else e.message)
    return json_path(parts)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# files get the usual mode (0666 less the umask, so 0644 by default), not mkstemp's private 0600
FILE_MODE = 0o666 & ~_umask()


def dumps(obj: object, *, sort_keys: bool = False, indent: bool = False) -> bytes:
    """JSON bytes; `sort_keys` for records whose key order carries no meaning."""
    opt = orjson.OPT_NON_STR_KEYS
    if sort_keys:
        opt |= orjson.OPT_SORT_KEYS
    if indent:
        opt |= orjson.OPT_INDENT_2
    return orjson.dumps(obj, option=opt)


def loads(data: bytes | str) -> Any:
    return orjson.loads(data)


def read_json(path: str | Path) -> Any:
    """Parse a JSON file; a missing or malformed file is an InputError naming it."""
    p = Path(path)
    try:
        return orjson.loads(p.read_bytes())
    except FileNotFoundError:
        raise InputError(f"{p}: file not found") from None
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror})") from None
    except orjson.JSONDecodeError as e:
        raise InputError(f"{p}: not valid JSON ({e})") from None


def read_jsonl(path: str | Path) -> list[Any]:
    """Parse a JSON Lines file; a bad line is an InputError naming the file and line number."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{p}: file not found") from None
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror})") from None
    out = []
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(orjson.loads(line))
        except orjson.JSONDecodeError as e:
            raise InputError(f"{p}:{n}: not valid JSON ({e})") from None
    return out


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write a file atomically: to a temporary file beside it, then rename over it."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: str | Path, obj: object, *, sort_keys: bool = True, indent: bool = True) -> None:
    write_bytes(path, dumps(obj, sort_keys=sort_keys, indent=indent) + b"\n")


def write_jsonl(path: str | Path, rows: Iterable[object], *, sort_keys: bool = False) -> None:
    write_bytes(path, b"".join(dumps(r, sort_keys=sort_keys) + b"\n" for r in rows))


def publish_dir(tmp: str | Path, dest: str | Path) -> None:
    """Replace directory `dest` by `tmp` with renames only, so `dest` is either the old or the new tree."""
    tmp, dest = Path(tmp), Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    old = dest.with_name(f".{dest.name}.old")
    if old.exists():
        shutil.rmtree(old)
    if dest.exists():
        os.replace(dest, old)
    os.replace(tmp, dest)
    if old.exists():
        shutil.rmtree(old)


def staging(out: Path) -> Path:
    """A fresh empty folder `.<out>.tmp-<pid>` beside `out` to build it in; the stale ones of killed runs go."""
    out.parent.mkdir(parents=True, exist_ok=True)
    for stale in out.parent.glob(f".{out.name}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}"
    tmp.mkdir()
    return tmp


def publish_built(out: str | Path, build: Callable[[Path], T]) -> T:
    """Run `build(tmp)` on a fresh `staging` folder beside `out`, then publish it over `out` with
    `publish_dir`; on any failure the temporary folder goes and `out` stays."""
    out = Path(out)
    tmp = staging(out)
    try:
        got = build(tmp)
        publish_dir(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return got


def check_writable(path: str | Path, what: str = "--out") -> None:
    """An InputError unless `path` can be created or replaced: its nearest existing folder takes a file.

    Checked before any work starts, so a run never ends on an output it cannot write. The check creates
    and removes an empty probe file there (permission bits alone do not tell: root, read-only mounts)."""
    p = Path(path)
    parent = p.parent
    while not parent.exists() and parent.parent != parent:
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"{what} {p}: {parent} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix=".plandvc-probe-")
    except OSError as e:
        raise InputError(f"{what} {p}: cannot write in {parent} ({e.strerror})") from None
    os.close(fd)
    os.unlink(probe)


def check_output_file(
    path: str | Path, is_ours: Callable[[Mapping[str, object]], bool], command: str, what: str = "--out"
) -> None:
    """An InputError unless the file `path` may be written: absent, empty, or a previous output of `command`
    (every line a record `is_ours` recognises), in a writable folder. Never replaces an unrelated file."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{what} {p}: is a folder; give the path of a file to write")
    if p.exists():
        try:
            rows = read_jsonl(p)
        except InputError:
            rows = None
        if rows is None or not all(isinstance(r, dict) and is_ours(r) for r in rows):
            raise InputError(
                f"{what} {p}: exists and is not a previous output of {command}; remove it or choose another path"
            )
        if not os.access(p, os.W_OK):
            raise InputError(f"{what} {p}: is not writable")
    check_writable(p, what)


def check_output_json(
    path: str | Path, is_ours: Callable[[object], bool], command: str, what: str = "--out"
) -> None:
    """An InputError unless the JSON file `path` may be written: absent, or a previous output of `command`
    (its content one `is_ours` recognises), in a writable folder. Never replaces an unrelated file."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{what} {p}: is a folder; give the path of a file to write")
    if p.exists():
        try:
            ours = is_ours(read_json(p))
        except InputError:
            ours = False
        if not ours:
            raise InputError(
                f"{what} {p}: exists and is not a previous output of {command}; remove it or choose another path"
            )
    check_writable(p, what)


def owned_folder(
    names: Iterable[str], index: str, is_index: Callable[[object], bool]
) -> Callable[[Path], bool]:
    """A recogniser for `check_output_dir`: the folder holds only entries named in `names`, and its `index`
    file (JSON, or JSON Lines when it ends in .jsonl) is one `is_index` recognises. The index is the output's
    own manifest, so an output is recognised with no marker file added to it (its bytes stay a function of
    its inputs) and outputs written before this rule existed are recognised the same way."""
    allowed = frozenset(names) | {DVC_IGNORE}

    def is_ours(folder: Path) -> bool:
        if any(p.name not in allowed for p in folder.iterdir()):
            return False
        try:
            found = read_jsonl(folder / index) if index.endswith(".jsonl") else read_json(folder / index)
        except InputError:
            return False
        return is_index(found)

    return is_ours


@contextlib.contextmanager
def exclusive(out: str | Path, command: str) -> Iterator[None]:
    """Hold the lock of output `out` (the file `.<name>.lock` beside it) while `command` writes it; another
    process holding it is an InputError "another <command> is writing OUT". Every command that writes an
    output takes it before any work and keeps it to the end, so one writer at a time writes OUT.

    The lock is the kernel's `flock` on that file, not its content: it goes with the process, on every exit
    path, a `kill -9` included, so a file a killed writer leaves is taken by the next run with no manual step
    (a resume works), and no pid, host or clock is written anywhere. It sits beside OUT, never in it, so an
    output's bytes never depend on it. The lock file goes at the end (a holder that finds its file replaced
    meanwhile takes the new one), so nothing is left beside OUT."""
    out = Path(out)
    check_writable(out)  # a folder that cannot take the lock file is one line, not an OSError
    out.parent.mkdir(parents=True, exist_ok=True)
    path = out.with_name(f".{out.name}.lock")
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise InputError(f"another {command} is writing {out}; wait for it to finish") from None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the holder before us removed the file we opened: lock the one at the path now
    try:
        yield
    finally:
        path.unlink(missing_ok=True)
        os.close(fd)


def check_output_dir(
    path: str | Path, is_ours: Callable[[Path], bool], command: str, what: str = "--out"
) -> None:
    """An InputError unless the folder `path` may be replaced: absent, empty, or recognisably a previous
    output of `command` (`is_ours(path)`: its own index names everything in it), in a writable folder. A
    symbolic link is refused: the swap would replace the link itself, not the folder it points to."""
    p = Path(path)
    if p.is_symlink():
        raise InputError(
            f"{what} {p}: is a symbolic link; give the folder it points to ({p.resolve()}) or another path "
            "(nothing was written)"
        )
    if p.exists() and not p.is_dir():
        raise InputError(f"{what} {p}: is a file, not a folder")
    if p.is_dir() and any(q.name != DVC_IGNORE for q in p.iterdir()) and not is_ours(p):
        raise InputError(
            f"{what} {p}: exists and is not a previous output of {command}; "
            "remove it or choose another folder (nothing was written)"
        )
    check_writable(p, what)


@contextlib.contextmanager
def claimed(
    out: str | Path,
    is_ours: Callable[[Path], bool],
    command: str,
    files: Iterable[tuple[str | Path, Callable[[object], bool], str]] = (),
) -> Iterator[None]:
    """The promise every command that replaces a folder keeps, in one place: OUT's lock (`exclusive`: one
    writer), then OUT refused unless it is absent, empty or a previous output of `command` (`check_output_dir`:
    never a foreign folder), and every JSON file of `files` (path, recogniser, option) the same way
    (`check_output_json`), all writable: checked before any work, held until the block ends."""
    with exclusive(out, command):
        check_output_dir(out, is_ours, command)
        for path, is_file_ours, what in files:
            check_output_json(path, is_file_ours, command, what)
        yield


# files inside a listed folder that are never code or data: bytecode
_SKIP_DIRS = frozenset({"__pycache__"})


def listed_files(root: Path, entries: Iterable[str]) -> list[Path]:
    """The files `entries` (paths relative to `root`; a folder stands for every file under it, bytecode
    aside) name, sorted by their relative path."""
    out: list[Path] = []
    for entry in entries:
        p = root / entry
        if p.is_dir():
            out.extend(
                f for f in p.rglob("*") if f.is_file() and not _SKIP_DIRS & set(f.relative_to(p).parts)
            )
        elif p.is_file():
            out.append(p)
    return sorted(out, key=lambda f: f.relative_to(root).as_posix())


def files_hash(root: Path, files: Iterable[Path]) -> str:
    """sha256 over the relative paths (to `root`) and contents of `files`, in the order given."""
    h = hashlib.sha256()
    for p in files:
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def tree_hash(root: Path, suffixes: set[str] | None = None) -> str:
    """sha256 over the relative paths and contents of the files under `root` (bytecode aside; only those
    ending in `suffixes` when given), in sorted order."""
    files = [
        p
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and not (suffixes and p.suffix not in suffixes)
    ]
    return files_hash(root, files)
