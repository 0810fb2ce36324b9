#!/usr/bin/python3
"""Writes the NumPy golden files of gpuarr's differential suite
(internal/numpytest/testdata/*.json.gz).

    apt-get install -y python3-numpy python3-mpmath
    /usr/bin/python3 internal/numpytest/gen/gen.py           # every family
    /usr/bin/python3 internal/numpytest/gen/gen.py math      # some families

The output is deterministic (fixed seeds, gzip without timestamps), so
regenerating with the same NumPy gives the same bytes. Adding a function:
a generator entry in the family it belongs to (the op's Go-side name, its
attributes, NumPy's answer), then its row in the Go runner's interpreter
table (interp_test.go). Adding an element type: a row of numerics.TYPES;
the families draw from the type lists. See ../doc.go for the format.
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fam_elementwise as ew  # noqa: E402
import fam_reduce as red  # noqa: E402
import fam_shape as shp  # noqa: E402
import fam_sortscan as ss  # noqa: E402

FAMILIES = {
    'trees': lambda: ew.trees(101),
    'broadcast': lambda: ew.broadcasting(102),
    'casts': lambda: ew.casts(103),
    'differences': lambda: ew.differences(104),
    'math': lambda: ew.math_fns(105),
    'intops': lambda: ew.int_fns(106),
    'complex': lambda: ew.complex_fns(107),
    'reductions': lambda: red.reductions(108),
    'reductions_new': lambda: red.new_reductions(109),
    'views': lambda: shp.views(110),
    'views_new': lambda: shp.views_new(111),
    'matmul': lambda: shp.matmul(112),
    'errors': lambda: shp.errors(113),
    'evalinto': lambda: shp.evalinto(115),
    'sortscan': lambda: ss.sortscan(114),
}


def main(argv):
    names = argv[1:] or list(FAMILIES)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'testdata')
    os.makedirs(out, exist_ok=True)
    meta = {'numpy': np.__version__, 'script': 'internal/numpytest/gen/gen.py'}
    total, total_bytes = 0, 0
    np.seterr(all='ignore')
    for name in names:
        t0 = time.time()
        fam = FAMILIES[name]()
        path, raw, size = fam.write(out, meta)
        total += len(fam.cases)
        total_bytes += size
        print('%-16s %5d cases  %8d bytes (%7d raw)  %.1fs' % (name, len(fam.cases), size, raw, time.time() - t0))
    print('%-16s %5d cases  %8d bytes' % ('total', total, total_bytes))


if __name__ == '__main__':
    import warnings
    warnings.simplefilter('ignore')
    main(sys.argv)
