"""PEP 517 backend: setuptools' own, plus a standard-library wheel builder for machines without `wheel`.

setuptools before 70.1 builds wheels through the separate `wheel` package. Debian's python3 has it
(python3-wheel), but a venv made by another python3 (pyenv, python.org) has only pip and setuptools, and
`pip install --no-index --no-build-isolation ./python` must still work offline there. This package is
pure Python with no dependencies, so its wheel is a zip of checkpost/ plus four metadata files.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import zipfile
from typing import Any, Dict, List, Optional

from setuptools import build_meta as _setuptools

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TAG = "py3-none-any"


def _have_wheel() -> bool:
    try:
        import wheel  # noqa: F401

        return True
    except ImportError:
        return False


def _project() -> Dict[str, str]:
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    out = {}
    for key in ("name", "version", "description", "requires-python"):
        m = re.search(r'^%s\s*=\s*"([^"]*)"' % re.escape(key), text, re.M)
        out[key] = m.group(1) if m else ""
    return out


def _metadata(p: Dict[str, str]) -> str:
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return (
        "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nLicense: MIT\nRequires-Python: %s\n"
        "Classifier: Programming Language :: Python :: 3\nClassifier: Typing :: Typed\n"
        "Description-Content-Type: text/markdown\n\n%s" % (p["name"], p["version"], p["description"], p["requires-python"], readme)
    )


def _dist_info(p: Dict[str, str]) -> str:
    return "%s-%s.dist-info" % (p["name"], p["version"])


def _write_dist_info(directory: str, p: Dict[str, str]) -> str:
    d = os.path.join(directory, _dist_info(p))
    os.makedirs(d, exist_ok=True)
    for name, text in _dist_files(p).items():
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)
    return _dist_info(p)


def _dist_files(p: Dict[str, str]) -> Dict[str, str]:
    return {
        "METADATA": _metadata(p),
        "WHEEL": "Wheel-Version: 1.0\nGenerator: checkpost-backend\nRoot-Is-Purelib: true\nTag: %s\n" % TAG,
        "top_level.txt": "checkpost\n",
    }


def _record_line(arc: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode().rstrip("=")
    return "%s,sha256=%s,%d" % (arc, digest, len(data))


def _stdlib_wheel(wheel_directory: str) -> str:
    p = _project()
    name = "%s-%s-%s.whl" % (p["name"], p["version"], TAG)
    pkg = os.path.join(HERE, "checkpost")
    records: List[str] = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for fn in sorted(os.listdir(pkg)):
            if fn.endswith(".py") or fn == "py.typed":
                with open(os.path.join(pkg, fn), "rb") as f:
                    data = f.read()
                arc = "checkpost/" + fn
                z.writestr(arc, data)
                records.append(_record_line(arc, data))
        di = _dist_info(p)
        for fn, text in _dist_files(p).items():
            data = text.encode("utf-8")
            z.writestr("%s/%s" % (di, fn), data)
            records.append(_record_line("%s/%s" % (di, fn), data))
        records.append("%s/RECORD,," % di)
        z.writestr("%s/RECORD" % di, "\n".join(records) + "\n")
    return name


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    if _have_wheel():
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)
    return _write_dist_info(metadata_directory, _project())


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    if _have_wheel():
        return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    return _stdlib_wheel(wheel_directory)


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    return _setuptools.build_sdist(sdist_directory, config_settings)
