"""PLISM on real tissue (issue 33 item 6): scikit-image's IHC image (colonic glands, DAB + hematoxylin), stain-shifted
by HED separation into PLISM-format slides (`benchnb.plism.data.ihc_slides`), features without weights, evaluated by
the same code as real runs and checked against the definition."""
import numpy as np
import pandas as pd
import pytest

pytest.importorskip('skimage')

from benchnb.plism.data import PlismTiles, features_path, ihc_slides, slide_id, write_features
from benchnb.plism.evaluate import compute_metrics
from benchnb.plism.kernel import naive_twin_ranks, tie_tolerance, topk_from_ranks


@pytest.fixture(scope='module')
def ihc(tmp_path_factory):
    "slide id → PlismTiles of the three stain-shifted copies of the IHC image (64 tiles of 64 × 64 each)."
    root = tmp_path_factory.mktemp('ihc')
    return {sid: PlismTiles(p) for sid, p in ihc_slides(root/'h5').items()}, root


def colour_layout(tiles: PlismTiles) -> np.ndarray:
    "A weight-free feature: each tile's mean colour on a 4 × 4 grid (48 values), in the slide's tile order."
    x = np.stack([tiles[i][0] for i in range(len(tiles))]).astype(np.float32) / 255
    n, h = x.shape[:2]
    return x.reshape(n, 4, h // 4, 4, h // 4, 3).mean((2, 4)).reshape(n, -1)


def test_stain_shifts_rank_as_their_size(ihc):
    "The bigger the stain shift between two slides, the lower the top-1 accuracy; every number is the definition's."
    slides, root = ihc
    feats = {sid: colour_layout(t) for sid, t in slides.items()}
    for sid, f in feats.items(): write_features(features_path(root/'f', 'colour', sid), slides[sid].coords, f)
    out = compute_metrics(root/'f', root/'m', 'colour', top_k=[1, 5], n_tiles='all')
    m = pd.read_csv(out/'metrics.csv').set_index(['slide_a', 'slide_b'])
    top1 = {tuple(sorted((a.split('_')[0], b.split('_')[0]))): v for (a, b), v in m.top_1_accuracy.items()}
    assert top1[('GIV', 'KR')] < top1[('GMH', 'KR')] < top1[('GIV', 'GMH')], top1   # KR↔GIV: the largest shift
    order = {sid: np.lexsort((t.coords[:, 2], t.coords[:, 1])) for sid, t in slides.items()}   # the file's row order
    for (a, b), row in m.iterrows():
        ra, rb = naive_twin_ranks(feats[a][order[a]], feats[b][order[b]], tie_tolerance(48))
        assert [row.top_1_accuracy, row.top_5_accuracy] == list(topk_from_ranks(ra, rb, [1, 5]).values())


def test_copied_tiles_tie_the_twin(ihc, tmp_path):
    "Issue 33 item 2 on real tiles: a tile copied over four others on both slides (like blank tiles) ties its twin."
    slides, _ = ihc
    a, b = (colour_layout(slides[slide_id(c, 'S60')]) for c in ('GMH', 'KR'))
    a[1:5], b[1:5] = a[0], b[0]
    from benchnb.plism.kernel import twin_ranks
    (_, r), = twin_ranks({'a': a, 'b': b}, [('a', 'b')])
    na, nb = naive_twin_ranks(a, b)
    np.testing.assert_array_equal(r.rank_a, na)
    np.testing.assert_array_equal(r.rank_b, nb)
