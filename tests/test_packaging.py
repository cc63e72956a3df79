"The wheel carries config/ and the report notebooks, and every extra of settings.ini with its requirements."
import subprocess, sys, zipfile

def test_wheel_contains_config_and_reports(repo_root, tmp_path):
    subprocess.run([sys.executable, '-m', 'pip', 'wheel', '--no-deps', '--no-build-isolation', '-q', '-w', str(tmp_path), str(repo_root)],
                   check=True, capture_output=True)
    wheel = next(tmp_path.glob('benchnb-*.whl'))
    names = zipfile.ZipFile(wheel).namelist()
    assert 'benchnb/reports/core.ipynb' in names
    assert 'benchnb/core.py' in names and 'benchnb/cli.py' in names
    site = 'benchnb/assets/leaderboard/'                                  # the leaderboard site's assets, offline
    assert {site + f for f in ('site.js', 'NOTICE.md', 'vendor/tabulator.min.js', 'vendor/vega.min.js',
                               'vendor/vega-lite.min.js')} <= set(names)
    for d in (repo_root/'config').iterdir() if (repo_root/'config').exists() else []:
        if d.is_dir(): assert any(n.startswith(f'benchnb/config/{d.name}/') for n in names), d.name
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith('METADATA'))).decode()
    declared = _extras_in_settings(repo_root)
    assert {'translator', 'cells', 'plism', 'gpu', 'reports', 'sweeps', 'cluster', 'lab', 'docs', 'dev'} <= set(declared)
    shipped = _extras_in_metadata(meta)
    for extra, reqs in declared.items():
        assert shipped.get(extra) == _names(reqs), extra        # every extra of settings.ini, with its requirements
    assert shipped['all'] == set().union(*map(_names, declared.values()))


def _extras_in_settings(repo_root) -> dict[str, list[str]]:
    "extra -> requirements, from settings.ini's `<extra>_requirements` keys."
    from configparser import ConfigParser
    cfg = ConfigParser(delimiters=['='])
    cfg.read(repo_root/'settings.ini', encoding='utf-8')
    return {k.removesuffix('_requirements'): v.split() for k, v in cfg['DEFAULT'].items()
            if k.endswith('_requirements') and k != 'requirements'}


def _names(reqs) -> set[str]:
    "Normalised project names of requirement strings ('dask[distributed]>=2024.1' -> 'dask')."
    from packaging.requirements import Requirement
    return {Requirement(r).name.lower().replace('_', '-') for r in reqs}


def _extras_in_metadata(meta: str) -> dict[str, set[str]]:
    "extra -> project names its Requires-Dist lines bring, from a wheel's METADATA."
    from packaging.requirements import Requirement
    out = {line.split(':', 1)[1].strip(): set() for line in meta.splitlines() if line.startswith('Provides-Extra:')}
    for line in meta.splitlines():
        if not line.startswith('Requires-Dist:'): continue
        r = Requirement(line.split(':', 1)[1].strip())
        for extra in out:
            if r.marker is not None and r.marker.evaluate({'extra': extra}):
                out[extra].add(r.name.lower().replace('_', '-'))
    return out

def test_pip_check_clean():
    r = subprocess.run([sys.executable, '-m', 'pip', 'check'], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout
