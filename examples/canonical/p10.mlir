// P10 Mixture of experts (expert parallel, GShard style), programs.md.
// mesh data=4. x[g=4,s=64,m=256] split g on data; dispatch mask
// D[g,s,e=4,c=16] split g on data; w_in[e,m,h=1024] and w_out[e,h,m] split e
// on data; y requested split g on data.
// Minimum: one all-to-all before the expert einsum (g split -> e split) and one
// after it (e split -> g split), each 48 KiB per device.

weft.mesh @mesh ["data" = 4]

func.func @moe(%x: tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %D: tensor<4x64x4x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}, {}]>>,
    %w_in: tensor<4x256x1024xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>,
    %w_out: tensor<4x1024x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
    -> (tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>) {
  %xe = weft.einsum "gsec,gsm->egcm" (%D, %x)
      : (tensor<4x64x4x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}, {}]>>, tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
      -> tensor<4x4x16x256xf32>
  %h = weft.einsum "egcm,emh->egch" (%xe, %w_in)
      : (tensor<4x4x16x256xf32>, tensor<4x256x1024xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
      -> tensor<4x4x16x1024xf32>
  %a = weft.map relu "egch->egch" (%h)
      : (tensor<4x4x16x1024xf32>)
      -> tensor<4x4x16x1024xf32>
  %o = weft.einsum "egch,ehm->egcm" (%a, %w_out)
      : (tensor<4x4x16x1024xf32>, tensor<4x1024x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>)
      -> tensor<4x4x16x256xf32>
  %y = weft.einsum "egcm,gsec->gsm" (%o, %D)
      : (tensor<4x4x16x256xf32>, tensor<4x64x4x16xf32, #weft.sharding<@mesh, [{"data"}, {}, {}, {}]>>)
      -> tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
  return %y : tensor<4x64x256xf32, #weft.sharding<@mesh, [{"data"}, {}, {}]>>
}
