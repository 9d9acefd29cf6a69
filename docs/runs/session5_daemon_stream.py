"""Device run 6 of session 5: a 2^24 bench job stream from a Python gRPC
client (stubs generated here by grpcio-tools from daemon/proto) against a
running `cuzk daemon` on the GPU. Prints one JSON line: jobs, steady-state
seconds per proof (first to last completion, over jobs - 1, as `cuzk
bench` counts it), latency percentiles, and whether every job completed.

Usage: python3 session5_daemon_stream.py PORT JOBS LOG_SIZE
"""

import json
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[2]
out = Path(tempfile.mkdtemp(prefix="stubs-"))
assert protoc.main(["protoc", f"-I{ROOT / 'daemon' / 'proto'}", f"--python_out={out}",
                    f"--grpc_python_out={out}", "cuzk/v1/proving.proto"]) == 0
sys.path.insert(0, str(out))
from cuzk.v1 import proving_pb2 as pb, proving_pb2_grpc as pb_grpc  # noqa: E402

port, jobs, log_size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
stub = pb_grpc.ProvingEngineStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
t0 = time.time()
ids = []
for j in range(jobs):
    req = pb.SubmitProofRequest(
        proof_kind=pb.CUZK_BENCH_CIRCUIT, priority=pb.NORMAL, request_id=f"s{j}",
        vanilla_proof=json.dumps({"log_size": log_size, "partitions": 1, "seed": 100 + j}).encode())
    ids.append((stub.SubmitProof(req).job_id, time.time()))
done = {}


def wait(job_id, submitted):
    r = stub.AwaitProof(pb.AwaitProofRequest(job_id=job_id))
    done[job_id] = (time.time(), submitted, r.status, len(r.proof), r.gpu_compute_ms, r.total_ms)


threads = [threading.Thread(target=wait, args=i) for i in ids]
for t in threads:
    t.start()
for t in threads:
    t.join()
ends = sorted(v[0] for v in done.values())
lat = sorted(v[0] - v[1] for v in done.values())
ok = all(v[2] == pb.AwaitProofResponse.COMPLETED and v[3] == 192 for v in done.values())
print(json.dumps({
    "jobs": jobs, "log_size": log_size, "all_completed": ok,
    "steady_s_per_proof": (ends[-1] - ends[0]) / (jobs - 1) if jobs > 1 else None,
    "wall_s": ends[-1] - t0,
    "latency_p50_s": lat[len(lat) // 2], "latency_p95_s": lat[int(len(lat) * 0.95) - 1],
    "status": stub.GetStatus(pb.GetStatusRequest()).total_proofs_completed,
}))
