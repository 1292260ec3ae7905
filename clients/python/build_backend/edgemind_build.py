"""The package's own build backend (PEP 517 and PEP 660), standard library only.

pip builds a project in an isolated environment and installs the backend's requirements into it
from a package index first; with a backend that needs nothing, `pip install ./clients/python`
works with no index at all (offline, behind a firewall, on any Python from 3.9).
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "edgemind"
TAG = "py3-none-any"
# A fixed time for every archive member, so a build of the same files is the same bytes.
EPOCH = (1980, 1, 1, 0, 0, 0)


def read_project(text: str) -> Dict[str, Any]:
    """The `[project]` table of pyproject.toml: its `key = "string"` and `key = ["a", "b"]` lines (all it uses)."""
    project: Dict[str, Any] = {}
    inside = False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            inside = line == "[project]"
            continue
        found = re.match(r'^([A-Za-z0-9_-]+)\s*=\s*(.+)$', line) if inside else None
        if found:
            name, value = found.groups()
            strings = re.findall(r'"((?:[^"\\]|\\.)*)"', value)
            project[name] = strings if value.startswith("[") else strings[0]
    return project


def metadata() -> Tuple[str, str, str]:
    """The name, the version and the METADATA text (Core Metadata 2.1)."""
    project = read_project((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    version_file = (ROOT / PACKAGE / "_version.py").read_text(encoding="utf-8")
    version = re.search(r'__version__ = "([^"]+)"', version_file).group(1)  # type: ignore[union-attr]
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {version}",
        f"Summary: {project['description']}",
        f"License: {project['license']}",
        f"Requires-Python: {project['requires-python']}",
        *(f"Classifier: {c}" for c in project.get("classifiers", [])),
        "Description-Content-Type: text/markdown",
        "",
        (ROOT / project["readme"]).read_text(encoding="utf-8"),
    ]
    return project["name"], version, "\n".join(lines)


def _dist_info() -> Tuple[str, List[Tuple[str, bytes]]]:
    name, version, text = metadata()
    folder = f"{name}-{version}.dist-info"
    wheel = f"Wheel-Version: 1.0\nGenerator: edgemind_build\nRoot-Is-Purelib: true\nTag: {TAG}\n"
    license_text = (ROOT / "LICENSE").read_bytes()
    return folder, [(f"{folder}/METADATA", text.encode()), (f"{folder}/WHEEL", wheel.encode()), (f"{folder}/LICENSE", license_text)]


def _package_files() -> List[Tuple[str, bytes]]:
    files = sorted(p for p in (ROOT / PACKAGE).rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    return [(p.relative_to(ROOT).as_posix(), p.read_bytes()) for p in files]


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def _write_wheel(directory: str, members: List[Tuple[str, bytes]]) -> str:
    name, version, _ = metadata()
    folder, info = _dist_info()
    members = members + info
    record = "\n".join([*(_record_line(path, data) for path, data in members), f"{folder}/RECORD,,", ""])
    filename = f"{name}-{version}-{TAG}.whl"
    with zipfile.ZipFile(Path(directory) / filename, "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in [*members, (f"{folder}/RECORD", record.encode())]:
            member = zipfile.ZipInfo(path, EPOCH)
            member.external_attr = 0o644 << 16
            wheel.writestr(member, data, zipfile.ZIP_DEFLATED)
    return filename


def _write_metadata(directory: str) -> str:
    folder, info = _dist_info()
    for path, data in info:
        target = Path(directory) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return folder


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    return _write_metadata(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    return _write_metadata(metadata_directory)


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    """A wheel of the package's files (py.typed and the generated modules included)."""
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    """A wheel whose .pth file puts this folder on sys.path: edits take effect without a reinstall."""
    return _write_wheel(wheel_directory, [(f"_{PACKAGE}_editable.pth", f"{ROOT}\n".encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    """A source archive: the package, this backend, pyproject.toml, README.md, LICENSE and PKG-INFO."""
    name, version, text = metadata()
    base = f"{name}-{version}"
    sources = [(path, data) for path, data in _package_files()]
    for extra in ["pyproject.toml", "README.md", "LICENSE", "build_backend/edgemind_build.py"]:
        sources.append((extra, (ROOT / extra).read_bytes()))
    sources.append(("PKG-INFO", text.encode()))
    filename = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / filename, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for path, data in sources:
            member = tarfile.TarInfo(f"{base}/{path}")
            member.size, member.mode, member.mtime = len(data), 0o644, 315532800
            archive.addfile(member, io.BytesIO(data))
    return filename
