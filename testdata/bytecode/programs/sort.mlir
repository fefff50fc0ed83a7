module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x8xf32>, %arg1: tensor<3x8xi32>, %arg2: tensor<3x8xi32>, %arg3: tensor<3x8xf32>) -> (tensor<5x8xf32> {jax.result_info = "result[0]"}, tensor<5x8xf32> {jax.result_info = "result[1]"}, tensor<3x8xi32> {jax.result_info = "result[2]"}, tensor<3x8xi32> {jax.result_info = "result[3][0]"}, tensor<3x8xf32> {jax.result_info = "result[3][1]"}, tensor<3x8xi32> {jax.result_info = "result[4][0]"}, tensor<3x8xi32> {jax.result_info = "result[4][1]"}, tensor<3x8xf32> {jax.result_info = "result[4][2]"}) {
    %0 = call @sort(%arg0) : (tensor<5x8xf32>) -> tensor<5x8xf32>
    %1 = call @sort_0(%arg0) : (tensor<5x8xf32>) -> tensor<5x8xf32>
    %2 = call @sort_1(%arg1) : (tensor<3x8xi32>) -> tensor<3x8xi32>
    %3:2 = "stablehlo.sort"(%arg1, %arg3) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg4: tensor<i32>, %arg5: tensor<i32>, %arg6: tensor<f32>, %arg7: tensor<f32>):
      %5 = stablehlo.compare LT, %arg4, %arg5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    }) : (tensor<3x8xi32>, tensor<3x8xf32>) -> (tensor<3x8xi32>, tensor<3x8xf32>)
    %4:3 = "stablehlo.sort"(%arg1, %arg2, %arg3) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg4: tensor<i32>, %arg5: tensor<i32>, %arg6: tensor<i32>, %arg7: tensor<i32>, %arg8: tensor<f32>, %arg9: tensor<f32>):
      %5 = stablehlo.compare LT, %arg6, %arg7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg4, %arg5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.compare EQ, %arg4, %arg5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %8 = stablehlo.and %7, %5 : tensor<i1>
      %9 = stablehlo.or %6, %8 : tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<3x8xi32>, tensor<3x8xi32>, tensor<3x8xf32>) -> (tensor<3x8xi32>, tensor<3x8xi32>, tensor<3x8xf32>)
    return %0, %1, %2, %3#0, %3#1, %4#0, %4#1, %4#2 : tensor<5x8xf32>, tensor<5x8xf32>, tensor<3x8xi32>, tensor<3x8xi32>, tensor<3x8xf32>, tensor<3x8xi32>, tensor<3x8xi32>, tensor<3x8xf32>
  }
  func.func private @sort(%arg0: tensor<5x8xf32>) -> tensor<5x8xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.compare EQ, %arg1, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.select %3, %cst, %2 : tensor<i1>, tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.select %5, %cst_0, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %8 = stablehlo.select %7, %cst, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<5x8xf32>) -> tensor<5x8xf32>
    return %0 : tensor<5x8xf32>
  }
  func.func private @sort_0(%arg0: tensor<5x8xf32>) -> tensor<5x8xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.compare EQ, %arg1, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.select %3, %cst, %2 : tensor<i1>, tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.select %5, %cst_0, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %8 = stablehlo.select %7, %cst, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<5x8xf32>) -> tensor<5x8xf32>
    return %0 : tensor<5x8xf32>
  }
  func.func private @sort_1(%arg0: tensor<3x8xi32>) -> tensor<3x8xi32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %1 = stablehlo.compare LT, %arg1, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<3x8xi32>) -> tensor<3x8xi32>
    return %0 : tensor<3x8xi32>
  }
}
