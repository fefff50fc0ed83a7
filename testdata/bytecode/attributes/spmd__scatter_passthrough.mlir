module @jit_scatter_passthrough attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["d"=8]> {stablehlo.mesh = {axes = [{name = "d", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}, %arg1: tensor<16x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}) -> (tensor<16x8xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<[3, 0, 7, 7, 1]> : tensor<5xi32>
    %c_0 = stablehlo.constant dense<false> : tensor<5xi1>
    %c_1 = stablehlo.constant dense<8> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %1 = stablehlo.add %c, %0 : tensor<5xi32>
    %2 = stablehlo.select %c_0, %1, %c : tensor<5xi1>, tensor<5xi32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %4 = "stablehlo.scatter"(%arg0, %3, %arg1) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<16x8xf32>, tensor<5x1xi32>, tensor<16x5xf32>) -> tensor<16x8xf32>
    return %4 : tensor<16x8xf32>
  }
}
