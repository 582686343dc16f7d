// Random inputs: floats uniform in [-1, 1) and representable in the element
// type, ids in [0, V) with V the rows of the table an embed looks them up in
// (through weft.shard), other ids in [0, 16); deterministic per seed, and
// the same global values whether the global or the local view is run.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: weft-interp %s --func global --seed 1 --output-dir %t/a > %t/a.txt
// RUN: weft-interp %s --func global --seed 1 --output-dir %t/b > %t/b.txt
// RUN: weft-interp %s --func global --seed 2 --output-dir %t/c > /dev/null
// RUN: weft-interp %s --func local --seed 1 --output-dir %t/l > /dev/null
// RUN: diff %t/a.txt %t/b.txt
// RUN: cmp %t/a/arg0.npy %t/b/arg0.npy
// RUN: not cmp %t/a/arg0.npy %t/c/arg0.npy
// RUN: cmp %t/a/arg0.npy %t/l/arg0.npy
// RUN: %python -c "import numpy as np; x = np.load('%t/a/arg0.npy'); print('float', x.min() >= -1, x.max() < 1, abs(x.mean()) < 0.1, len(np.unique(x)) > 990, bool((x.astype(np.float32) == x).all()))" | FileCheck %s --check-prefix=FLOAT
// FLOAT: float True True True True True
// RUN: %python -c "import numpy as np; x = np.load('%t/a/arg2.npy'); print('half', bool((x.astype(np.float16) == x).all()), x.min() >= -1, x.max() < 1)" | FileCheck %s --check-prefix=HALF
// HALF: half True True True
// RUN: %python -c "import numpy as np; i = np.load('%t/a/arg1.npy'); print('ids', i.dtype, i.min(), i.max())" | FileCheck %s --check-prefix=IDS
// IDS: ids int32 0 6
// RUN: %python -c "import numpy as np; i = np.load('%t/a/arg4.npy'); print('free ids', i.min(), i.max())" | FileCheck %s --check-prefix=FREE
// FREE: free ids 0 15

weft.mesh @mesh ["m" = 2]

func.func @global(%x: tensor<1000xf32>, %ids: tensor<400xi32>, %h: tensor<64xf16>,
    %table: tensor<7x2xf32>, %free: tensor<400xi32>) -> tensor<400x2xf32> {
  %s = weft.shard %ids : tensor<400xi32> -> tensor<400xi32, #weft.sharding<@mesh, [{}]>>
  %e = weft.embed "t,vd->td" (%s, %table)
      : (tensor<400xi32, #weft.sharding<@mesh, [{}]>>, tensor<7x2xf32>) -> tensor<400x2xf32>
  return %e : tensor<400x2xf32>
}

func.func @local(
    %x: tensor<500xf32> {weft.global_type = tensor<1000xf32, #weft.sharding<@mesh, [{"m"}]>>},
    %ids: tensor<400xi32> {weft.global_type = tensor<400xi32>})
    -> (tensor<500xf32> {weft.global_type = tensor<1000xf32, #weft.sharding<@mesh, [{"m"}]>>}) {
  return %x : tensor<500xf32>
}
