"""JupyterLab is the front door: the `lab` extra, `make lab`, the `benchnb` kernel, and "Run All" on a CPU-only machine.

CI cost: `test_run_all_on_the_benchnb_kernel` executes, on the installed `benchnb` Jupyter kernel with nbclient and
every cell run as JupyterLab's Run All runs them (nbdev flags ignored), the notebooks whose cells behave differently
there than under nbdev_test — `#| gpu`, `#| slow`, `#| eval: false` cells and `--help` output (rich's Jupyter
display) — 00_core among them as a plain one, 20d_cells.neighbors left out (> 100 s; its gpu cell is checked statically
by `test_gpu_cells_skip_without_a_gpu`): 6 notebooks, ≈ 115 s on 2 shared cores. nbdev_test already executes every
notebook (in-process, execnb); `BENCHNB_RUN_ALL=1` runs all 23 here too (≈ 640 s measured, all passing).
"""
import json, os, runpy, subprocess, sys
from pathlib import Path
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
import run_nbs

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT/'nbs').glob('*.ipynb'))
HEAVY = {'20d_cells.neighbors'}  # > 2 min under a kernel on 2 cores; its gpu cell is covered by test_gpu_cells_skip_without_a_gpu
PLAIN = {'00_core'}                # one notebook with nothing special, as a control
RUN_ALL = [p for p in NOTEBOOKS if os.environ.get('BENCHNB_RUN_ALL') == '1' or p.stem in PLAIN
           or (run_nbs.run_all_cells_need(p) and p.stem not in HEAVY)]

def code_cells(p: Path) -> list[str]:
    return [c['source'] if isinstance(c['source'], str) else ''.join(c['source'])
            for c in json.loads(p.read_text(encoding='utf-8'))['cells'] if c['cell_type'] == 'code']

def setup_kwargs(monkeypatch) -> dict:
    "The keyword arguments setup.py passes to setuptools.setup."
    import setuptools
    got = {}
    monkeypatch.setattr(setuptools, 'setup', lambda **kw: got.update(kw))
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(ROOT/'setup.py'))
    return got

def test_lab_extra_in_all(monkeypatch):
    extras = setup_kwargs(monkeypatch)['extras_require']
    names = lambda reqs: {r.split('>')[0].split('=')[0].split('<')[0] for r in reqs}
    assert {'jupyterlab', 'ipywidgets'} <= names(extras['lab'])
    assert {'jupyterlab', 'ipywidgets'} <= names(extras['all'])

def test_jupyter_lab_installed():
    r = subprocess.run([str(Path(sys.executable).parent/'jupyter'), 'lab', '--version'], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.strip().split('.')[0]) >= 4
    import ipywidgets; assert int(ipywidgets.__version__.split('.')[0]) >= 8     # tqdm's notebook bars need it

def test_make_lab_opens_nbs_on_the_benchnb_kernel():
    r = subprocess.run(['make', '-n', '-W', 'settings.ini', 'lab'], capture_output=True, text=True, cwd=ROOT)
    line = [l for l in r.stdout.splitlines() if 'jupyter lab' in l]
    assert line and '--ServerApp.root_dir=nbs' in line[-1] and 'default_kernel_name=benchnb' in line[-1], r.stdout
    assert 'ipykernel install --sys-prefix --name benchnb' in (ROOT/'Makefile').read_text()

def test_every_notebook_declares_the_benchnb_kernel():
    from nbdev.clean import clean_nb
    for p in NOTEBOOKS + sorted((ROOT/'nbs'/'reports').glob('*.ipynb')):
        nb = json.loads(p.read_text(encoding='utf-8'))
        assert nb['metadata']['kernelspec']['name'] == 'benchnb', p.name
        clean_nb(nb, allowed_metadata_keys=[])                                   # what nbdev_clean does
        assert nb['metadata']['kernelspec']['name'] == 'benchnb', f"nbdev_clean drops the kernelspec of {p.name}"

def test_benchnb_kernel_runs_this_environment():
    from jupyter_client.kernelspec import KernelSpecManager
    spec = KernelSpecManager().get_kernel_spec('benchnb')                      # raises if `make install` did not register it
    exe = Path(spec.argv[0])
    assert exe.resolve().parent == Path(sys.executable).resolve().parent, f"benchnb kernel runs {exe}, not this venv"

def test_gpu_cells_skip_without_a_gpu():
    "Every `#| gpu` cell asks `gpu_available` first, so Run All on a CPU-only machine prints a line instead of failing."
    gpu = {p.stem: [s for s in code_cells(p) if s.startswith('#| gpu')] for p in NOTEBOOKS}
    assert sum(map(len, gpu.values())) >= 3
    for stem, cells in gpu.items():
        for src in cells: assert src.splitlines()[1].startswith('if gpu_available('), f"{stem}: unguarded gpu cell\n{src}"

def test_eval_false_cells_do_no_network_under_run_all():
    "A `#| eval: false` cell runs under Run All: the download cell must not download unless asked to."
    data = [s for s in code_cells(ROOT/'nbs'/'30_plism.data.ipynb') if 'eval: false' in s and 'download_plism(' in s]
    assert data and all('if really_download' in s for s in data)

@pytest.mark.timeout(900)
@pytest.mark.parametrize('nb', RUN_ALL, ids=lambda p: p.stem)
def test_run_all_on_the_benchnb_kernel(nb):
    executed = run_nbs.run_all(nb, timeout=300)                                 # per-cell timeout
    text = json.dumps([o for c in executed.cells if c.cell_type == 'code' for o in c.get('outputs', [])])
    if any(src.startswith('#| gpu') for src in code_cells(nb)):
        import torch
        assert torch.cuda.is_available() or 'no CUDA GPU here' in text, "gpu cells neither ran nor said they skipped"
