//! Generates the cuzk.v1 messages and the tonic server and client from
//! `proto/cuzk/v1/proving.proto`. protoc comes from the
//! `protoc-bin-vendored` crate, so a fresh machine needs nothing installed.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    std::env::set_var("PROTOC", protoc);
    println!("cargo:rerun-if-changed=proto/cuzk/v1/proving.proto");
    tonic_build::configure()
        .build_server(true)
        .build_client(true)
        .compile_protos(&["proto/cuzk/v1/proving.proto"], &["proto"])?;
    Ok(())
}
