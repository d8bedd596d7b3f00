"""Build hook: the built package carries the design constants.

Their one copy is ``protocol/design-constants.json`` beside this folder (the extension reads it
too). A built package (``pip install trainer``, or the editor's trainer setup, which lays out
``trainer/`` and ``protocol/`` the same way) gets it as ``stepwise_trainer/design_constants.json``;
an editable install reads the repository's file directly (stepwise_trainer/design.py).
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SHARED = Path(__file__).resolve().parent.parent / "protocol" / "design-constants.json"


class BuildWithDesignConstants(build_py):
    def run(self) -> None:
        super().run()
        if not SHARED.is_file():
            raise FileNotFoundError(f"{SHARED} is missing: build the trainer from a Stepwise checkout, where protocol/ sits beside trainer/.")
        target = Path(self.build_lib) / "stepwise_trainer" / "design_constants.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(SHARED.read_bytes())


setup(cmdclass={"build_py": BuildWithDesignConstants})
