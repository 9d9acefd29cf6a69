//! The daemon's SubmitProofRequest as it arrives: protobuf bytes decoded
//! by prost, then the daemon's check (kind, priority, payload, a C1 output
//! for PoRep). No panic; a request that checks out has a known kind.
use cuzk_daemon::pb;
use prost::Message;

/// The target's invariants on one input; panics where one fails.
pub fn check(data: &[u8]) {
    let Ok(req) = pb::SubmitProofRequest::decode(data) else {
        return;
    };
    if let Ok(c) = cuzk_daemon::request::check(&req, 16) {
        assert!(req.request_id.len() <= 256);
        let _ = c.priority;
    }
}
