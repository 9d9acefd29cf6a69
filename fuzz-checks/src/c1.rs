//! C1 outputs in their three JSON forms (filecoin-proofs', the api's with
//! `registered_proof`, Curio's base64 wrapper), with and without a declared
//! sector size: no panic; a parsed output names a registered size that
//! agrees with the declared one, and its public values are what the body
//! holds.

/// The target's invariants on one input; panics where one fails.
pub fn check(data: &[u8]) {
    // First byte picks the declared size (none or one of the five).
    let (sel, body) = match data.split_first() {
        Some((s, b)) => (*s, b),
        None => return,
    };
    let sizes = cuzk_filecoin::c1::SECTOR_SIZES;
    let declared = match sel % 7 {
        0 => None,
        6 => Some(u64::from(sel) << 20),
        i => Some(sizes[usize::from(i) - 1]),
    };
    if let Ok(c1) = cuzk_filecoin::parse_c1(body, declared) {
        assert!(sizes.contains(&c1.kind.sector_size));
        if let Some(d) = declared {
            assert_eq!(d, c1.kind.sector_size);
        }
        let again = cuzk_filecoin::parse_c1(
            &serde_json::to_vec(&serde_json::json!({
                "registered_proof": c1.kind.api_name(),
                "vanilla_proofs": c1.body["vanilla_proofs"].clone(),
                "comm_r": c1.public.comm_r, "comm_d": c1.public.comm_d,
                "ticket": c1.public.ticket, "seed": c1.public.seed,
                "replica_id": c1.body["replica_id"].clone(),
            }))
            .expect("serialize"),
            None,
        )
        .expect("a parsed C1 output re-parses in the api form");
        assert_eq!(again.public, c1.public);
    }
}
