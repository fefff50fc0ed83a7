module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xf32>, %arg1: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result[0]"}, tensor<i32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.while(%iterArg = %arg1, %iterArg_2 = %c_1, %iterArg_3 = %c_1, %iterArg_4 = %arg0, %iterArg_5 = %c_1) : tensor<4x4xf32>, tensor<i32>, tensor<i32>, tensor<4x4xf32>, tensor<i32>
    cond {
      %1 = stablehlo.compare LT, %iterArg_2, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1:3 = func.call @closed_call(%iterArg, %iterArg_3, %iterArg_4, %iterArg_5) : (tensor<4x4xf32>, tensor<i32>, tensor<4x4xf32>, tensor<i32>) -> (tensor<i32>, tensor<4x4xf32>, tensor<i32>)
      %2 = stablehlo.add %iterArg_2, %c : tensor<i32>
      stablehlo.return %iterArg, %2, %1#0, %1#1, %1#2 : tensor<4x4xf32>, tensor<i32>, tensor<i32>, tensor<4x4xf32>, tensor<i32>
    }
    return %0#3, %0#4 : tensor<4x4xf32>, tensor<i32>
  }
  func.func private @closed_call(%arg0: tensor<4x4xf32>, %arg1: tensor<i32>, %arg2: tensor<4x4xf32>, %arg3: tensor<i32>) -> (tensor<i32>, tensor<4x4xf32>, tensor<i32>) {
    %cst = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg1, %c : tensor<i32>
    %1 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %2 = stablehlo.tanh %1 : tensor<4x4xf32>
    %3 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %4 = stablehlo.multiply %3, %cst : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %6 = stablehlo.add %2, %5 : tensor<4x4xf32>
    %7 = stablehlo.convert %arg1 : tensor<i32>
    %8 = stablehlo.add %arg3, %7 : tensor<i32>
    return %0, %6, %8 : tensor<i32>, tensor<4x4xf32>, tensor<i32>
  }
}
