"""The package as pip builds and installs it: its own backend, its files, Python 3.9 syntax."""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.util
import os
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path
from types import ModuleType

import edgemind

PROJECT = Path(__file__).resolve().parents[1]


def _backend() -> ModuleType:
    spec = importlib.util.spec_from_file_location("edgemind_build", PROJECT / "build_backend" / "edgemind_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildTest(unittest.TestCase):
    def test_the_backend_needs_nothing_installed_first(self) -> None:
        backend = _backend()
        self.assertEqual(backend.get_requires_for_build_wheel(), [])
        self.assertIn("requires = []", (PROJECT / "pyproject.toml").read_text(encoding="utf-8"))

    @unittest.skipIf(sys.version_info < (3, 11), "tomllib, to compare with, is Python 3.11's")
    def test_the_backend_reads_pyprojects_project_table_as_toml_does(self) -> None:
        import tomllib

        text = (PROJECT / "pyproject.toml").read_text(encoding="utf-8")
        self.assertEqual(_backend().read_project(text), tomllib.loads(text)["project"])

    def test_the_wheel_holds_the_package_its_type_marker_and_a_true_record(self) -> None:
        backend = _backend()
        with tempfile.TemporaryDirectory() as directory:
            name = backend.build_wheel(directory)
            self.assertEqual(name, f"edgemind-{edgemind.__version__}-py3-none-any.whl")
            with zipfile.ZipFile(os.path.join(directory, name)) as wheel:
                files = {info.filename: wheel.read(info) for info in wheel.infolist()}
        info = f"edgemind-{edgemind.__version__}.dist-info"
        for expected in ["edgemind/__init__.py", "edgemind/py.typed", "edgemind/types.py", "edgemind/_tool_definitions.py", f"{info}/METADATA"]:
            self.assertIn(expected, files)
        self.assertFalse([f for f in files if "__pycache__" in f or f.endswith(".pyc")])
        metadata = files[f"{info}/METADATA"].decode()
        self.assertIn("Requires-Python: >=3.9", metadata)
        self.assertIn("Name: edgemind", metadata)
        for line in files[f"{info}/RECORD"].decode().splitlines():
            path, digest, size = line.split(",")
            if path.endswith("RECORD"):
                continue
            expected = base64.urlsafe_b64encode(hashlib.sha256(files[path]).digest()).rstrip(b"=").decode()
            self.assertEqual((digest, int(size)), (f"sha256={expected}", len(files[path])), path)


class SourceTest(unittest.TestCase):
    def test_every_module_is_python_3_9_with_annotations_left_unevaluated(self) -> None:
        modules = sorted((PROJECT / "edgemind").glob("*.py")) + [PROJECT / "build_backend" / "edgemind_build.py"]
        for module in modules:
            with self.subTest(module.name):
                tree = ast.parse(module.read_text(encoding="utf-8"), feature_version=(3, 9))
                imports = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
                self.assertEqual([a.name for n in imports for a in n.names], ["annotations"])

    @unittest.skipUnless(os.environ.get("EDGEMIND_EXPECT_INSTALLED"), "run from the source tree")
    def test_the_tests_run_against_the_installed_package(self) -> None:
        self.assertIn("site-packages", edgemind.__file__)


if __name__ == "__main__":
    unittest.main()
