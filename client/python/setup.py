"""Adds the generated gRPC modules to the package as it is built (pyproject.toml: the rest)."""
import pathlib
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from generate_api import generate  # noqa: E402  (beside this file, not part of the package)


class BuildWithApi(build_py):
    def run(self):
        super().run()
        generate(pathlib.Path(self.build_lib))


setup(cmdclass={"build_py": BuildWithApi})
