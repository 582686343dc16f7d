// The comparison map kinds (gt ge lt le eq ne: 1 where the relation holds,
// else 0) with a broadcast operand, and the unary kinds abs, sign, step and
// sigmoid, which --weft-autodiff's gradient rules use.
// mesh x=4: a[i=16,j=32] split i on x; b[j] replicated.
// Inputs are f32 values in [-1, 1); numpy compares the same f32 values.

weft.mesh @mesh ["x" = 4]

func.func @compare(%a: tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>,
    %b: tensor<32xf32, #weft.sharding<@mesh, [{}]>>)
    -> (tensor<16x32xf32> {weft.name = "order"}, tensor<16x32xf32> {weft.name = "same"},
        tensor<16x32xf32> {weft.name = "unary"}) {
  %gt = weft.map gt "ij,j->ij" (%a, %b)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>, tensor<32xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<16x32xf32>
  %ge = weft.map ge "ij,j->ij" (%a, %b)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>, tensor<32xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<16x32xf32>
  %lt = weft.map lt "j,ij->ij" (%b, %a)
      : (tensor<32xf32, #weft.sharding<@mesh, [{}]>>, tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>) -> tensor<16x32xf32>
  %le = weft.map le "ij,j->ij" (%a, %b)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>, tensor<32xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<16x32xf32>
  %two = weft.map scale "ij->ij" (%ge) {scalar = 2.0 : f64} : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %four = weft.map scale "ij->ij" (%lt) {scalar = 4.0 : f64} : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %eight = weft.map scale "ij->ij" (%le) {scalar = 8.0 : f64} : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %s1 = weft.map add "ij,ij->ij" (%gt, %two) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %s2 = weft.map add "ij,ij->ij" (%four, %eight) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %order = weft.map add "ij,ij->ij" (%s1, %s2) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %eq = weft.map eq "ij,ij->ij" (%a, %a)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>, tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>) -> tensor<16x32xf32>
  %ne = weft.map ne "ij,j->ij" (%a, %b)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>, tensor<32xf32, #weft.sharding<@mesh, [{}]>>) -> tensor<16x32xf32>
  %ne2 = weft.map scale "ij->ij" (%ne) {scalar = 2.0 : f64} : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %same = weft.map add "ij,ij->ij" (%eq, %ne2) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %abs = weft.map abs "ij->ij" (%a)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>) -> tensor<16x32xf32>
  %sign = weft.map sign "ij->ij" (%a)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>) -> tensor<16x32xf32>
  %step = weft.map step "ij->ij" (%a)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>) -> tensor<16x32xf32>
  %sig = weft.map sigmoid "ij->ij" (%a)
      : (tensor<16x32xf32, #weft.sharding<@mesh, [{"x"}, {}]>>) -> tensor<16x32xf32>
  %u1 = weft.map add "ij,ij->ij" (%abs, %sign) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %step3 = weft.map scale "ij->ij" (%step) {scalar = 3.0 : f64} : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %u2 = weft.map add "ij,ij->ij" (%step3, %sig) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %unary = weft.map add "ij,ij->ij" (%u1, %u2) : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  return %order, %same, %unary : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>
}
