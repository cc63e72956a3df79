import os, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault('BENCHNB_PROGRESS', '0')

@pytest.fixture(scope='session')
def repo_root() -> Path: return ROOT

@pytest.fixture(scope='session')
def benchnb_exe() -> str:
    "The installed `benchnb` console script of this environment."
    exe = Path(sys.executable).parent/'benchnb'
    assert exe.exists(), f"benchnb console script missing at {exe}: run `make install`"
    return str(exe)
