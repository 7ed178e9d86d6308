"""The package: the wheel installs a working `seamless index` and `seamless serve`, and plugins register once.

The explorer's configuration (metadata.yml, settings.json, plugins/, templates/, static/) sits at the
repository root and is installed as the package seamless_explorer; each plugin module is also a
`datasette` entry point, named so that `datasette .` skips the plugins/ copy of a registered module.
"""

import ast
import json
import shutil
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
import zipfile
from pathlib import Path

import pytest
import yaml

from indexer.front.serve import PACKAGE
from indexer.index.database import DATABASE
from indexer.sqlite import sqlite3

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# what the wheel is built from: everything else in the checkout stays out of it
SOURCES = ("pyproject.toml", "README.md", "indexer", "plugins", "templates", "static", "metadata.yml", "settings.json")
CONFIGURATION = ("metadata.yml", "settings.json", "plugins", "templates", "static")


def plugin_modules() -> list[str]:
    return sorted(p.stem for p in (ROOT / "plugins").glob("*.py"))


def test_every_plugin_module_is_a_datasette_entry_point():
    entry_points = PYPROJECT["project"]["entry-points"]["datasette"]
    expected = {f"{name}.py": f"{PACKAGE}.plugins.{name}" for name in plugin_modules()}
    missing = [f'"{name}" = "{target}"' for name, target in expected.items() if entry_points.get(name) != target]
    assert not missing, "add to [project.entry-points.datasette] in pyproject.toml: " + ", ".join(missing)
    assert entry_points == expected, "an entry point names no plugins/*.py module: remove it from pyproject.toml"


def test_the_database_name_is_the_one_in_metadata():
    metadata = yaml.safe_load((ROOT / "metadata.yml").read_text())
    assert list(metadata["databases"]) == [DATABASE]
    for template in (ROOT / "templates").glob("*-*-*.html"):  # Datasette's row-DATABASE-TABLE.html and the like
        assert template.name.split("-")[1] == DATABASE, template.name


def test_the_plugins_name_the_database_by_its_constant():
    spelled = [
        f"{path.name}:{node.lineno}"
        for path in sorted((ROOT / "plugins").glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and node.value == DATABASE
    ]
    assert not spelled, f"use indexer.index.database.DATABASE instead of the literal {DATABASE!r} in " + ", ".join(
        spelled
    )


DATASETTE_DOT = """
import sys
if sys.argv[1] == "without entry points":
    sys._called_from_test = True  # Datasette's own switch: load no entry-point plugins, as when not installed
from datasette.cli import cli
cli([".", "--get", "/-/plugins.json"])
"""


@pytest.mark.parametrize("mode", ["with entry points", "without entry points"])
def test_datasette_dot_registers_each_plugin_module_once(tmp_path, example_db, mode):
    """`datasette .` in a checkout, the package installed (editable) or not: every hook runs once."""
    for name in CONFIGURATION:
        (tmp_path / name).symlink_to(ROOT / name)
    shutil.copy(example_db, tmp_path / "seamless.db")
    result = subprocess.run(
        [sys.executable, "-c", DATASETTE_DOT, mode],
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    names = [p["name"] for p in json.loads(result.stdout)]
    ours = [n for n in names if n == "seamless-explorer" or n.removesuffix(".py") in plugin_modules()]
    assert len(ours) == len(plugin_modules()), names
    assert ("seamless-explorer" in ours) == (mode == "with entry points")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, deadline: float) -> tuple[int, bytes]:
    """GET `url`, retrying until the server answers or `deadline` passes."""
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.status, response.read()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.fixture(scope="module")
def wheel_install(tmp_path_factory):
    """The wheel built from a copy of the sources, installed with the explorer extra into a fresh virtualenv."""
    work = tmp_path_factory.mktemp("wheel")
    for name in SOURCES:
        source, copy = ROOT / name, work / "src" / name
        if source.is_dir():
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            copy.parent.mkdir(exist_ok=True)
            shutil.copy(source, copy)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", work / "dist", work / "src"], check=True, timeout=120)
    (wheel,) = (work / "dist").glob("*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True, timeout=60)
    python = venv / "bin" / "python"
    install = [*pip, "--python", python, "install", "--no-compile", f"{wheel}[explorer]"]
    subprocess.run(install, check=True, timeout=300)
    return wheel, venv / "bin"


def test_the_wheel_holds_the_explorer_configuration(wheel_install):
    wheel, _ = wheel_install
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in CONFIGURATION:
        source = ROOT / name
        files = (
            [p for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
            if source.is_dir()
            else [source]
        )
        for path in files:
            assert f"{PACKAGE}/{path.relative_to(ROOT).as_posix()}" in names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "examples/", "docs/"))]


def test_the_installed_wheel_indexes_and_serves_from_any_folder(wheel_install, tmp_path):
    _, bin_dir = wheel_install
    shutil.copytree(ROOT / "examples" / "store", tmp_path / "store")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    index = subprocess.run(
        ["seamless", "index", "store", "--db", "idx.db"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert index.returncode == 0, index.stderr
    assert "problems: 0 errors" in index.stderr
    # the commands of modules of their own are found, and the SQL files read, from the install (sql/*.sql)
    recall = subprocess.run(
        ["seamless", "recall", "chroma port", "--db", "idx.db"], cwd=tmp_path, env=env, capture_output=True
    )
    assert recall.returncode == 0 and b"chroma" in recall.stdout.lower(), recall.stderr
    hook = ["seamless", "hook", "session-start", "--store", "store", "--db", "idx.db", "--project", "seamless"]
    briefed = subprocess.run(hook, cwd=tmp_path, env=env, input=b"{}", capture_output=True)
    context = json.loads(briefed.stdout)["hookSpecificOutput"]["additionalContext"]
    assert briefed.returncode == 0 and context.startswith("# Briefing: seamless"), context
    port = _free_port()
    server = subprocess.Popen(
        ["seamless", "serve", "--db", "idx.db", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        status, page = _get(f"{base}/", time.monotonic() + 30)
        assert status == 200 and b"Seamless memory explorer" in page
        status, body = _get(f"{base}/{DATABASE}/memories.json?_shape=array&_col=name", time.monotonic() + 5)
        with sqlite3.connect(tmp_path / "idx.db") as db:
            names = [name for (name,) in db.execute("select name from memories")]
        assert status == 200 and sorted(row["name"] for row in json.loads(body)) == sorted(names)
        status, css = _get(f"{base}/static/seamless.css", time.monotonic() + 5)  # static/ found
        assert status == 200 and css
        status, body = _get(f"{base}/{DATABASE}/briefing.json?project=seamless&_shape=array", time.monotonic() + 5)
        assert status == 200 and json.loads(body)  # the canned queries' plugin is registered
        status, plugins = _get(f"{base}/-/plugins.json", time.monotonic() + 5)
        assert [p["name"] for p in json.loads(plugins)].count("seamless-explorer") == len(plugin_modules())
    finally:
        server.terminate()
        server.wait(timeout=10)
