module @jit_order_loop attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x16xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<1x16xf32>) {
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<8> : tensor<ui32>
      %1 = stablehlo.partition_id : tensor<ui32>
      %2 = stablehlo.divide %1, %c : tensor<ui32>
      %3 = stablehlo.remainder %2, %c_0 : tensor<ui32>
      %4 = stablehlo.convert %3 : (tensor<ui32>) -> tensor<i32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %4, %c_1 : tensor<i32>
      %c_2 = stablehlo.constant dense<0> : tensor<i32>
      %6:3 = stablehlo.while(%iterArg = %c_2, %iterArg_3 = %5, %iterArg_4 = %arg1) : tensor<i32>, tensor<i32>, tensor<1x16xf32>
      cond {
        %7 = stablehlo.compare LT, %iterArg, %iterArg_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %7 : tensor<i1>
      } do {
        %c_5 = stablehlo.constant dense<1> : tensor<i32>
        %7 = stablehlo.add %iterArg, %c_5 : tensor<i32>
        %8 = "stablehlo.all_reduce"(%iterArg_4) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %11 = stablehlo.add %arg2, %arg3 : tensor<f32>
          stablehlo.return %11 : tensor<f32>
        }) : (tensor<1x16xf32>) -> tensor<1x16xf32>
        %cst = stablehlo.constant dense<1.250000e-01> : tensor<f32>
        %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x16xf32>
        %10 = stablehlo.multiply %8, %9 : tensor<1x16xf32>
        stablehlo.return %7, %iterArg_3, %10 : tensor<i32>, tensor<i32>, tensor<1x16xf32>
      }
      sdy.return %6#2 : tensor<1x16xf32>
    } : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}
