//! Convolutions split along batch, features or (with halos) a spatial dimension (XLA: `convolution_handler.cc`).

use super::*;

impl Partitioner<'_> {
    pub(super) fn convolution(
        &mut self,
        instr: &Instruction,
        d: &ConvolutionDimensionNumbers,
    ) -> Result<(PValue, &'static str), PassError> {
        if let Some(r) = self.spatial_convolution(instr, d)? {
            return Ok(r);
        }
        let want = self.target(instr)?;
        let lr = self.old.instrs[instr.operands[0]].shape.rank();
        let rr = self.old.instrs[instr.operands[1]].shape.rank();
        let Some((lt, rt, out)) = convolution::plan(d, &want, lr, rr) else {
            return self.fallback(instr);
        };
        let a = self.operand_in(instr, 0, &lt, "convolution input split along batch only")?;
        let b = self.operand_in(instr, 1, &rt, "kernel split along output features only")?;
        let od = instr.shape.dims().to_vec();
        let id = self.emit_clone(
            instr,
            with_dims(&instr.shape, out.shard_dims(&od)),
            vec![a, b],
        );
        self.reshard_to_target(
            instr,
            id,
            &od,
            &out,
            "convolution result to its sharding",
            "convolution: local on batch and output-feature shards",
        )
    }
}
