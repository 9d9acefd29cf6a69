use cuzk_synth::{circuits::BenchCircuit, record_shape};
fn main() {
    let c = BenchCircuit::new(16, 1).unwrap();
    let ka = record_shape(c).unwrap();
    println!("{:?} nnz {:?}", ka.shape(), ka.num_nonzeros());
}
