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

@pytest.fixture(autouse=True)
def logging_left_as_found():
    """A test that leaves `logging.disable(...)` behind (a benchmark script imported for its helpers did) fails itself,
    instead of silencing every later test's log records."""
    import logging
    before = logging.root.manager.disable
    yield
    after = logging.root.manager.disable
    logging.disable(before)
    assert after == before, f"this test left logging.disable({after}) in force"
