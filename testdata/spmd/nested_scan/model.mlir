module @jit_nested_scan attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["d"=4]> {stablehlo.mesh = {axes = [{name = "d", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}) -> (tensor<16x4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<16x4xf32>
    cond {
      %c_1 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg_0) : (tensor<16x4xf32>) -> tensor<16x4xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<16x4xf32>
    }
    return %0#1 : tensor<16x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<16x4xf32>) -> tensor<16x4xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<16x4xf32>
    cond {
      %c_1 = stablehlo.constant dense<2> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %3 = func.call @closed_call_0(%iterArg_0) : (tensor<16x4xf32>) -> tensor<16x4xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %4 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      stablehlo.return %4, %3 : tensor<i32>, tensor<16x4xf32>
    }
    %cst = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %2 = stablehlo.multiply %0#1, %1 : tensor<16x4xf32>
    return %2 : tensor<16x4xf32>
  }
  func.func private @closed_call_0(%arg0: tensor<16x4xf32>) -> tensor<16x4xf32> {
    %0 = stablehlo.sine %arg0 : tensor<16x4xf32>
    %cst = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x4xf32>
    return %2 : tensor<16x4xf32>
  }
}
