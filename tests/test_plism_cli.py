"PLISM command line: evaluate/merge/results/extract through a subprocess, resumability and one-line errors."
import subprocess, sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchnb.plism.data import features_path, make_synthetic_slides, slide_id, write_features, PlismTiles
from benchnb.plism.kernel import hard_slides


def bench(*args, cwd=None):
    code = "import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, '-c', code, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.fixture
def features(tmp_path):
    ids = [slide_id(st, sc) for st in ('GM', 'GV', 'KR') for sc in ('P', 'SQ')]
    coords = np.array([[16, x, y] for x in range(5) for y in range(4)], np.float32)
    for sid, f in zip(ids, hard_slides(n_slides=6, n=20, d=8, seed=4).values()):
        write_features(features_path(tmp_path/'f', 'toy', sid), coords, f)
    return tmp_path/'f'


def test_help():
    r = bench('plism', '--help')
    assert r.returncode == 0 and 'evaluate' in r.stdout and 'extract' in r.stdout


def test_evaluate_resume_and_shards(features, tmp_path):
    args = ['--extractor', 'toy', '--features-dir', features, '--n-tiles', 'all']
    r = bench('plism', 'evaluate', *args, '--metrics-dir', tmp_path/'m', '--top-k', '1', '3', '5', '10', '--workers', '2')
    assert r.returncode == 0, r.stderr
    out = tmp_path/'m'/'20_tiles'/'toy'
    m = pd.read_csv(out/'metrics.csv')
    assert len(m) == 15 and (m.slide_a < m.slide_b).all()
    assert (out/'results.csv').read_text().startswith(',cosine_similarity,top_1_accuracy,top_3_accuracy,top_5_accuracy,top_10_accuracy\n')
    # rerun: nothing recomputed
    ledger = next((out/'pairs').iterdir())/'shard-0-of-1.jsonl'
    lines = ledger.read_text().count('\n')
    assert bench('plism', 'evaluate', *args, '--metrics-dir', tmp_path/'m').returncode == 0
    assert ledger.read_text().count('\n') == lines
    # shards on "two machines" + merge give the same table
    for i in range(2): assert bench('plism', 'evaluate', *args, '--metrics-dir', tmp_path/'s', '--shard', f'{i}/2').returncode == 0
    r = bench('plism', 'merge', '--extractor', 'toy', '--features-dir', features, '--metrics-dir', tmp_path/'s', '--n-tiles', 'all')
    assert r.returncode == 0, r.stderr
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path/'s'/'20_tiles'/'toy'/'metrics.csv'), m)


def test_bad_input_one_line_errors(features, tmp_path):
    p = features_path(features, 'toy', slide_id('KR', 'SQ'))
    p.write_bytes(p.read_bytes()[:-40])                                  # truncated .npy
    r = bench('plism', 'evaluate', '--extractor', 'toy', '--features-dir', features, '--metrics-dir', tmp_path/'m', '--n-tiles', 'all')
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]                            # earlier lines: log warnings (a 6-slide subset run)
    assert last.startswith('benchnb: error: ') and 'KR_SQ_to_GMH_S60.tif/features.npy: cannot read features' in last
    (features/'toy'/'KR_SQ_to_GMH_S60.tif'/'features.npy').unlink()
    r = bench('plism', 'evaluate', '--extractor', 'toy', '--features-dir', features, '--metrics-dir', tmp_path/'m', '--n-tiles', 'all')
    assert r.returncode == 1 and 'without features.npy' in r.stderr


def test_extract_workers_and_truncated_h5(tmp_path):
    slides = make_synthetic_slides(tmp_path/'h5', ('GMH', 'KR'), ('S60',), grid=(4, 4), tile_size=64)
    r = bench('plism', 'extract', '--extractor', 'vit_micro_random', '--download-dir', tmp_path/'h5', '--export-dir', tmp_path/'x',
              '--workers', '2', '--batch-size', '3', '--random-weights')
    assert r.returncode == 0, r.stderr
    f = np.load(features_path(tmp_path/'x', 'vit_micro_random', slide_id('KR', 'S60')))
    assert f.shape == (16, 67) and f.dtype == np.float32
    assert (np.lexsort((f[:, 2], f[:, 1])) == np.arange(16)).all()
    p = slides[slide_id('GMH', 'S60')]; p.write_bytes(p.read_bytes()[:5000])
    r = bench('plism', 'extract', '--extractor', 'vit_micro_random', '--download-dir', tmp_path/'h5', '--export-dir', tmp_path/'y',
              '--workers', '0', '--random-weights')
    assert r.returncode == 1 and 'GMH_S60_to_GMH_S60.tif.h5' in r.stderr


def test_gated_extractor_without_weights_names_it_at_once(tmp_path):
    "No hub, nothing cached: one line naming the extractor, HF_TOKEN and --random-weights (not the hub's retries)."
    make_synthetic_slides(tmp_path/'h5', ('GMH', 'KR'), ('S60',), grid=(2, 2), tile_size=32)
    env_code = ("import os, socket, sys; os.environ['HF_HUB_CACHE'] = sys.argv[1]\n"
                "def _no_net(*a, **k): raise OSError('network unreachable')\n"
                "socket.create_connection = _no_net\n"
                "from benchnb.cli import main; sys.exit(main(sys.argv[2:]))")
    r = subprocess.run([sys.executable, '-c', env_code, str(tmp_path/'hf-cache'), 'plism', 'extract', '--extractor',
                        'h0_mini', '--download-dir', str(tmp_path/'h5'), '--export-dir', str(tmp_path/'x')],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and r.stderr.count('\n') == 1, r.stderr
    assert "extractor 'h0_mini'" in r.stderr and 'HF_TOKEN' in r.stderr and '--random-weights' in r.stderr, r.stderr


def _results_csv(path, median):
    "A results.csv whose four leaderboard cells all have median `median` (so the leaderboard metric is `median`)."
    cell = f"0.1 (0.0) ; {median} (0.0)"
    rows = ['all', 'inter-scanner', 'inter-staining', 'inter-scanner, inter-staining']
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({'cosine_similarity': cell, 'top_10_accuracy': cell}, index=rows).to_csv(path)


def test_leaderboard_rank_and_csv(tmp_path):
    for name, med in [('a', 0.5), ('b', 0.9), ('c', 0.5)]: _results_csv(tmp_path/'m'/'20_tiles'/name/'results.csv', med)
    r = bench('plism', 'leaderboard', '--metrics-dir', tmp_path/'m', '--csv', tmp_path/'lb.csv')
    assert r.returncode == 0, r.stderr
    t = pd.read_csv(tmp_path/'lb.csv')
    assert list(t.columns[:2]) == ['rank', 'extractor'] and list(t.columns[-1:]) == ['leaderboard']
    assert list(zip(t['rank'], t['extractor'], t['leaderboard'])) == [(1, 'b', 0.9), (2, 'a', 0.5), (2, 'c', 0.5)]  # a tie shares rank 2
    assert r.stdout.splitlines()[0].split()[:2] == ['rank', 'extractor'] and r.stdout.splitlines()[1].split()[:2] == ['1', 'b']
    assert sorted(p.name for p in tmp_path.iterdir()) == ['lb.csv', 'm']                # atomic: no temp file left behind


def test_two_slides_succeed(features, tmp_path):
    "Issue 33 item 3: two slides (one pair, two empty categories) write the tables and exit 0 with no leaderboard score"
    " (on main: the tables, then exit 1 on `field 'cell': value 'n/a'`)."
    two = tmp_path/'two'
    for sid in ('GM_P_', 'GV_SQ_'):
        src = next(features.glob(f'toy/{sid}*/features.npy'))
        (two/'toy'/src.parent.name).mkdir(parents=True)
        (two/'toy'/src.parent.name/'features.npy').write_bytes(src.read_bytes())
    r = bench('plism', 'evaluate', '--extractor', 'toy', '--features-dir', two, '--n-tiles', 'all', '--metrics-dir', tmp_path/'m')
    assert r.returncode == 0, r.stderr
    assert 'leaderboard score: n/a (no pairs in: inter-scanner; inter-staining)' in r.stdout
    assert len(pd.read_csv(tmp_path/'m'/'20_tiles'/'toy'/'metrics.csv')) == 1


def test_howto_own_features_recipe(tmp_path, monkeypatch, repo_root):
    "Issue 30 point 6: the how-to's 'your own code' recipe, run as written (a stand-in model), evaluates; the format"
    " it replaced (n_tiles × d, no coordinates) is refused with a message naming the real one."
    import re
    text = (repo_root/'docs'/'howto-plism.md').read_text()
    code = re.search(r"```python\n(.*?)```", text[text.index('with your own code'):], re.S).group(1)
    make_synthetic_slides(tmp_path/'plism', ('GMH', 'KR'), ('S60', 'AT2'), grid=(4, 3), tile_size=32)
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    my_model = lambda tiles: np.concatenate([np.stack([t.astype(np.float32).mean((0, 1)) for t in tiles]),
                                             rng.random((len(tiles), 8))], 1)
    exec(re.sub(r'(?m)^    ', '', code), {'my_model': my_model})
    r = bench('plism', 'evaluate', '--extractor', 'your_model', '--features-dir', 'features', '--metrics-dir', 'metrics',
              '--n-tiles', 'all', '--top-k', '1', '3', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    f = next((tmp_path/'features'/'your_model').glob('*/features.npy'))
    np.save(f, np.load(f)[:, 3:])                                      # n_tiles × d only: the old documented format
    r = bench('plism', 'evaluate', '--extractor', 'your_model', '--features-dir', 'features', '--metrics-dir', 'm2',
              '--n-tiles', 'all', '--top-k', '1', cwd=tmp_path)
    assert r.returncode == 1 and 'rows must be [level, x, y, features…]' in r.stderr, r.stderr


def test_timm_name_and_download_offline_fail_at_once(tmp_path):
    "Issue 30 point 5: offline, `--timm resnet18` and `plism download` fail in one line naming the model or dataset,"
    " the Hugging Face repo and host, with what to do; an empty `--token` (an unset $HF_TOKEN) is named as such."
    make_synthetic_slides(tmp_path/'h5', ('GMH', 'KR'), ('S60',), grid=(2, 2), tile_size=32)
    env = {**__import__('os').environ, 'HF_HUB_OFFLINE': '1', 'HF_HUB_CACHE': str(tmp_path/'hf-cache'),
           'BENCHNB_PROGRESS': '0'}
    code = "import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))"
    run = lambda *a: subprocess.run([sys.executable, '-c', code, *map(str, a)], capture_output=True, text=True,
                                    env=env, timeout=300)
    r = run('plism', 'extract', '--timm', 'resnet18', '--download-dir', tmp_path/'h5', '--export-dir', tmp_path/'x')
    assert r.returncode == 1 and r.stderr.count('\n') == 1, r.stderr
    assert ("extractor 'resnet18': pretrained weights resnet18 not in the local cache: Hugging Face repo "
            "timm/resnet18.a1_in1k on huggingface.co not available (HF_HUB_OFFLINE is set)") in r.stderr, r.stderr
    assert 'HF_TOKEN' in r.stderr and '--random-weights' in r.stderr
    r = run('plism', 'download', '--download-dir', tmp_path/'dl')
    assert r.returncode == 1 and 'Hugging Face repo owkin/plism-dataset on huggingface.co not available' in r.stderr
    r = run('plism', 'download', '--download-dir', tmp_path/'dl', '--token', '')
    assert r.returncode == 1 and 'the token is empty (an unset $HF_TOKEN?)' in r.stderr, r.stderr


def test_extract_progress_lines_and_default_workers(tmp_path):
    "Issue 30 points 3-4: off a terminal, a line per slide with tiles/s; the loader's default workers never exceed"
    " the cores less one, so torch does not warn about oversubscription."
    make_synthetic_slides(tmp_path/'h5', ('GMH', 'KR'), ('S60',), grid=(2, 2), tile_size=32)
    env = {**__import__('os').environ, 'BENCHNB_PROGRESS': 'lines'}
    r = subprocess.run([sys.executable, '-c', "import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))",
                        'plism', 'extract', '--extractor', 'vit_micro_random', '--random-weights', '--download-dir',
                        str(tmp_path/'h5'), '--export-dir', str(tmp_path/'x')], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert 'benchnb: extract: KR_S60_to_GMH_S60.tif.h5: 4/4 tiles, ' in r.stderr and 'tiles/s, in ' in r.stderr, r.stderr
    assert 'worker' not in r.stderr.lower(), r.stderr
