"The wheel carries the shipped data (config/, report notebooks) and the dependency set is consistent."
import subprocess, sys, zipfile

def test_wheel_contains_config_and_reports(repo_root, tmp_path):
    subprocess.run([sys.executable, '-m', 'pip', 'wheel', '--no-deps', '--no-build-isolation', '-q', '-w', str(tmp_path), str(repo_root)],
                   check=True, capture_output=True)
    wheel = next(tmp_path.glob('benchnb-*.whl'))
    names = zipfile.ZipFile(wheel).namelist()
    assert 'benchnb/reports/core.ipynb' in names
    assert 'benchnb/core.py' in names and 'benchnb/cli.py' in names
    for d in (repo_root/'config').iterdir() if (repo_root/'config').exists() else []:
        if d.is_dir(): assert any(n.startswith(f'benchnb/config/{d.name}/') for n in names), d.name
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith('METADATA'))).decode()
    for extra in ['translator', 'cells', 'plism', 'gpu', 'reports', 'docs', 'dev', 'all']:
        assert f'Provides-Extra: {extra}' in meta, extra

def test_pip_check_clean():
    r = subprocess.run([sys.executable, '-m', 'pip', 'check'], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout
