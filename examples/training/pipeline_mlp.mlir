// weftc: --train=sgd --lr 1
// A 4-layer MLP trained with a GPipe schedule over 4 stages (docs/pipeline.md):
// 4 micro-batches of 4 rows, 7 ticks. Written by bench/pipeline/make_pipeline_mlp.py
// --stages 4 --layers 4 --micro 4 --micro-batch 4 --width 32 --data 1 --lr 1.
weft.mesh @mesh ["stage" = 4, "data" = 1]

func.func @pipeline_mlp(
    %x: tensor<4x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>> {weft.name = "x"},
    %y: tensor<4x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>> {weft.name = "y"},
    %W1: tensor<4x32x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>> {weft.param, weft.name = "W1"})
    -> (tensor<f32> {weft.name = "loss"}) {
  %pos = weft.iota : tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>
  %npos = weft.map neg "s->s" (%pos) : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>) -> tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>
  %f0 = weft.map shift "s->s" (%npos) {scalar = 0.5 : f64} : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>) -> tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>
  %first = weft.map step "s->s" (%f0) : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>) -> tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>
  %l0 = weft.map shift "s->s" (%pos) {scalar = -2.5 : f64} : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>) -> tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>
  %last = weft.map step "s->s" (%l0) : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>) -> tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>
  %xs0 = weft.slice %x dim 0 start 0 : tensor<4x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>> -> tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>
  %inj0 = weft.map mul "s,jbd->sjbd" (%first, %xs0) : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>, tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %m0_1 = weft.einsum "sjbd,sde->sjbe" (%inj0, %W1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<4x32x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %p0_1 = weft.map scale "sjbd->sjbd" (%m0_1) {scalar = 0.17677669529663687 : f64} : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %h0_1 = weft.map relu "sjbd->sjbd" (%p0_1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %xs1 = weft.slice %x dim 0 start 1 : tensor<4x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>> -> tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>
  %inj1 = weft.map mul "s,jbd->sjbd" (%first, %xs1) : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>, tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %sh1 = weft.shift %h0_1 dim 0 by 1 : tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>> -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %in1 = weft.map add "sjbd,sjbd->sjbd" (%sh1, %inj1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %m1_1 = weft.einsum "sjbd,sde->sjbe" (%in1, %W1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<4x32x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %p1_1 = weft.map scale "sjbd->sjbd" (%m1_1) {scalar = 0.17677669529663687 : f64} : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %h1_1 = weft.map relu "sjbd->sjbd" (%p1_1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %xs2 = weft.slice %x dim 0 start 2 : tensor<4x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>> -> tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>
  %inj2 = weft.map mul "s,jbd->sjbd" (%first, %xs2) : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>, tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %sh2 = weft.shift %h1_1 dim 0 by 1 : tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>> -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %in2 = weft.map add "sjbd,sjbd->sjbd" (%sh2, %inj2) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %m2_1 = weft.einsum "sjbd,sde->sjbe" (%in2, %W1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<4x32x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %p2_1 = weft.map scale "sjbd->sjbd" (%m2_1) {scalar = 0.17677669529663687 : f64} : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %h2_1 = weft.map relu "sjbd->sjbd" (%p2_1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %xs3 = weft.slice %x dim 0 start 3 : tensor<4x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>> -> tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>
  %inj3 = weft.map mul "s,jbd->sjbd" (%first, %xs3) : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>, tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %sh3 = weft.shift %h2_1 dim 0 by 1 : tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>> -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %in3 = weft.map add "sjbd,sjbd->sjbd" (%sh3, %inj3) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %m3_1 = weft.einsum "sjbd,sde->sjbe" (%in3, %W1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<4x32x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %p3_1 = weft.map scale "sjbd->sjbd" (%m3_1) {scalar = 0.17677669529663687 : f64} : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %h3_1 = weft.map relu "sjbd->sjbd" (%p3_1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %ys0 = weft.slice %y dim 0 start 0 : tensor<4x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>> -> tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>
  %e3 = weft.map sub "sjbd,jbd->sjbd" (%h3_1, %ys0) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %q3 = weft.map square "sjbd->sjbd" (%e3) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %lt3 = weft.einsum "s,sjbd->sb" (%last, %q3) : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>, tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>
  %sh4 = weft.shift %h3_1 dim 0 by 1 : tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>> -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %m4_1 = weft.einsum "sjbd,sde->sjbe" (%sh4, %W1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<4x32x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %p4_1 = weft.map scale "sjbd->sjbd" (%m4_1) {scalar = 0.17677669529663687 : f64} : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %h4_1 = weft.map relu "sjbd->sjbd" (%p4_1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %ys1 = weft.slice %y dim 0 start 1 : tensor<4x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>> -> tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>
  %e4 = weft.map sub "sjbd,jbd->sjbd" (%h4_1, %ys1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %q4 = weft.map square "sjbd->sjbd" (%e4) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %lt4 = weft.einsum "s,sjbd->sb" (%last, %q4) : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>, tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>
  %acc4 = weft.map add "sb,sb->sb" (%lt3, %lt4) : (tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>, tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>) -> tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>
  %sh5 = weft.shift %h4_1 dim 0 by 1 : tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>> -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %m5_1 = weft.einsum "sjbd,sde->sjbe" (%sh5, %W1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<4x32x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %p5_1 = weft.map scale "sjbd->sjbd" (%m5_1) {scalar = 0.17677669529663687 : f64} : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %h5_1 = weft.map relu "sjbd->sjbd" (%p5_1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %ys2 = weft.slice %y dim 0 start 2 : tensor<4x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>> -> tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>
  %e5 = weft.map sub "sjbd,jbd->sjbd" (%h5_1, %ys2) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %q5 = weft.map square "sjbd->sjbd" (%e5) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %lt5 = weft.einsum "s,sjbd->sb" (%last, %q5) : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>, tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>
  %acc5 = weft.map add "sb,sb->sb" (%acc4, %lt5) : (tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>, tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>) -> tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>
  %sh6 = weft.shift %h5_1 dim 0 by 1 : tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>> -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %m6_1 = weft.einsum "sjbd,sde->sjbe" (%sh6, %W1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<4x32x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %p6_1 = weft.map scale "sjbd->sjbd" (%m6_1) {scalar = 0.17677669529663687 : f64} : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %h6_1 = weft.map relu "sjbd->sjbd" (%p6_1) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %ys3 = weft.slice %y dim 0 start 3 : tensor<4x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>> -> tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>
  %e6 = weft.map sub "sjbd,jbd->sjbd" (%h6_1, %ys3) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>, tensor<1x4x32xf32, #weft.sharding<@mesh, [{}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %q6 = weft.map square "sjbd->sjbd" (%e6) : (tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>
  %lt6 = weft.einsum "s,sjbd->sb" (%last, %q6) : (tensor<4xf32, #weft.sharding<@mesh, [{"stage"}]>>, tensor<4x1x4x32xf32, #weft.sharding<@mesh, [{"stage"}, {}, {"data"}, {}]>>) -> tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>
  %acc6 = weft.map add "sb,sb->sb" (%acc5, %lt6) : (tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>, tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>) -> tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>
  %sum = weft.reduce sum "sb->" (%acc6) : (tensor<4x4xf32, #weft.sharding<@mesh, [{"stage"}, {"data"}]>>) -> tensor<f32>
  %loss = weft.map scale "->" (%sum) {scalar = 0.001953125 : f64} : (tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}
