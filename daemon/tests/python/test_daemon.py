"""A client that did not come from us: Python gRPC stubs generated at test
time by grpcio-tools from Curio's own proving.proto (the fixture copy
daemon/tests/fixtures/curio-proving.proto, not ours), driving a real
`cuzk daemon` process on the loopback (CPU backend, small bench circuits).
Our one extension, the bench circuit's proof kind, is sent as its number
(BENCH_KIND), as any proto3 client may send an enum value its file lacks.

Proofs are checked by `cuzk verify` against the bench circuit's public
inputs (written by `cuzk client bench-inputs`), and must not verify against
another witness's inputs.

Run: CUZK_BIN=target/debug/cuzk python -m pytest -q daemon/tests/python
"""

import atexit
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import grpc
import pytest

ROOT = Path(__file__).resolve().parents[3]
CURIO_PROTO = ROOT / "daemon" / "tests" / "fixtures" / "curio-proving.proto"
# cuzk's extension of ProofKind (daemon/proto: CUZK_BENCH_CIRCUIT = 100).
BENCH_KIND = 100
CUZK = Path(os.environ.get("CUZK_BIN", ROOT / "target" / "debug" / "cuzk"))
# Every scratch directory of this module lives under one root, removed when
# the interpreter exits (CI machines share a disk).
SCRATCH = tempfile.mkdtemp(prefix="cuzk-py-")
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)


def scratch_dir(prefix):
    return Path(tempfile.mkdtemp(prefix=prefix, dir=SCRATCH))


# Parameters for bench circuits are generated on first use; share them
# between runs when the caller says where.
PARAMS = Path(os.environ.get("CUZK_TEST_PARAM_CACHE", str(scratch_dir("params-"))))


def _generate_stubs():
    out = scratch_dir("stubs-")
    from grpc_tools import protoc

    # Curio's file under the path its package implies, so the generated
    # modules are cuzk.v1.proving_pb2(_grpc) as Curio's own Python would be.
    src = scratch_dir("proto-")
    (src / "cuzk" / "v1").mkdir(parents=True)
    shutil.copy(CURIO_PROTO, src / "cuzk" / "v1" / "proving.proto")
    rc = protoc.main(
        [
            "grpc_tools.protoc",
            f"-I{src}",
            f"--python_out={out}",
            f"--grpc_python_out={out}",
            "cuzk/v1/proving.proto",
        ]
    )
    assert rc == 0, "grpc_tools.protoc failed"
    sys.path.insert(0, str(out))
    from cuzk.v1 import proving_pb2, proving_pb2_grpc  # noqa: E402

    return proving_pb2, proving_pb2_grpc


pb, pb_grpc = _generate_stubs()
Status = pb.AwaitProofResponse


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    """A `cuzk daemon` process with its own config and ports."""

    def __init__(self, on_shutdown="drain", param_cache=PARAMS, budget="1GiB", unix_socket=None, aging=16):
        assert CUZK.exists(), f"{CUZK} missing: cargo build -p cuzk (or set CUZK_BIN)"
        self.dir = scratch_dir("daemon-")
        self.port, self.http = free_port(), free_port()
        cfg = self.dir / "cuzk.toml"
        cfg.write_text(
            f"""
[daemon]
listen = "127.0.0.1:{self.port}"
metrics_listen = "127.0.0.1:{self.http}"
on_shutdown = "{on_shutdown}"
drain_timeout_s = 120
{f'unix_socket = "{unix_socket}"' if unix_socket else ""}

[srs]
param_cache = "{param_cache}"

[synthesis]
concurrency = 1

[gpus]
gpu_workers_per_device = 1

[memory]
budget = "{budget}"

[scheduler]
aging = {aging}
"""
        )
        self.log = open(self.dir / "daemon.log", "wb")
        self.proc = subprocess.Popen(
            [str(CUZK), "daemon", "--config", str(cfg), "--backend", "cpu"],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.channel = grpc.insecure_channel(
            f"127.0.0.1:{self.port}",
            options=[("grpc.max_receive_message_length", 256 << 20), ("grpc.max_send_message_length", 256 << 20)],
        )
        self.stub = pb_grpc.ProvingEngineStub(self.channel)
        deadline = time.time() + 120
        while True:
            assert self.proc.poll() is None, f"daemon exited: {self.logs()}"
            try:
                self.stub.GetStatus(pb.GetStatusRequest(), timeout=2)
                break
            except grpc.RpcError:
                assert time.time() < deadline, f"daemon did not start: {self.logs()}"
                time.sleep(0.2)

    def logs(self):
        if not self.log.closed:
            self.log.flush()
        return (self.dir / "daemon.log").read_text(errors="replace")[-4000:]

    def http_get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.http}{path}", timeout=10) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()

    def terminate(self):
        """SIGTERM; the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                raise
        return self.proc.returncode

    def stop(self):
        self.terminate()
        self.channel.close()
        self.log.close()
        return self.proc.returncode


@pytest.fixture(scope="module")
def daemon():
    d = Daemon()
    yield d
    assert d.stop() == 0, d.logs()


def bench(log_size, partitions=1, seed=0, **kw):
    return pb.SubmitProofRequest(
        proof_kind=BENCH_KIND,
        priority=pb.NORMAL,
        vanilla_proof=json.dumps({"log_size": log_size, "partitions": partitions, "seed": seed}).encode(),
        **kw,
    )


def verifies(proof, log_size, partitions, seed):
    """`cuzk verify` of the proof bytes against the bench inputs of `seed`."""
    d = scratch_dir("verify-")
    (d / "p.bin").write_bytes(proof)
    subprocess.run(
        [str(CUZK), "client", "bench-inputs", "--log-size", str(log_size), "--partitions", str(partitions),
         "--seed", str(seed), "--out", str(d / "in.json")],
        check=True,
    )
    r = subprocess.run(
        [str(CUZK), "verify", "--params", str(PARAMS / f"bench-k{log_size}-setup0.params"),
         "--proof", str(d / "p.bin"), "--inputs", str(d / "in.json")],
        capture_output=True,
        text=True,
    )
    return r.returncode == 0


def wait_for(what, pred, timeout=60):
    t0 = time.time()
    while not pred():
        assert time.time() - t0 < timeout, f"timed out waiting for {what}"
        time.sleep(0.02)


def in_progress(d):
    return sum(q.in_progress for q in d.stub.GetStatus(pb.GetStatusRequest()).queues)


def test_submit_and_await_give_a_proof_that_verifies(daemon):
    sub = daemon.stub.SubmitProof(bench(10, partitions=2, seed=7))
    assert sub.job_id
    r = daemon.stub.AwaitProof(pb.AwaitProofRequest(job_id=sub.job_id, timeout_ms=0))
    assert r.status == Status.COMPLETED, r.error_message
    assert len(r.proof) == 2 * 192
    assert r.total_ms >= r.gpu_compute_ms
    assert verifies(r.proof, 10, 2, 7)
    assert not verifies(r.proof, 10, 2, 8), "the check must be able to fail"


def test_prove(daemon):
    r = daemon.stub.Prove(pb.ProveRequest(submit=bench(11, seed=3))).result
    assert r.status == Status.COMPLETED, r.error_message
    assert verifies(r.proof, 11, 1, 3)


def test_await_timeout_keeps_the_job(daemon):
    sub = daemon.stub.SubmitProof(bench(12, partitions=6, seed=1))
    t = daemon.stub.AwaitProof(pb.AwaitProofRequest(job_id=sub.job_id, timeout_ms=1))
    assert t.status == Status.TIMEOUT
    r = daemon.stub.AwaitProof(pb.AwaitProofRequest(job_id=sub.job_id))
    assert r.status == Status.COMPLETED, r.error_message
    assert verifies(r.proof, 12, 6, 1)


def test_cancel_queued_and_running():
    # One synthesis worker, (nearly) no aging and room for a few 2^12
    # partitions (656 KB each): the second job cannot start before the last
    # of the first job's 64 partitions has, ~60 CPU proofs (43 ms each)
    # away. The default aging (16) lets it start after 16, and a 1 GiB
    # budget lets all 64 synthesize in ~0.1 s.
    daemon = Daemon(aging=1 << 40, budget="4MiB")
    try:
        running = daemon.stub.SubmitProof(bench(12, partitions=64, seed=1))
        queued = daemon.stub.SubmitProof(bench(12, partitions=2, seed=2))
        assert queued.queue_position >= 1
        wait_for("the first job to run", lambda: in_progress(daemon) == 1)
        c = daemon.stub.CancelProof(pb.CancelProofRequest(job_id=queued.job_id))
        assert not c.was_running
        assert daemon.stub.AwaitProof(pb.AwaitProofRequest(job_id=queued.job_id)).status == Status.CANCELLED
        c = daemon.stub.CancelProof(pb.CancelProofRequest(job_id=running.job_id))
        assert c.was_running
        r = daemon.stub.AwaitProof(pb.AwaitProofRequest(job_id=running.job_id))
        assert r.status == Status.CANCELLED and not r.proof
        with pytest.raises(grpc.RpcError) as e:
            daemon.stub.CancelProof(pb.CancelProofRequest(job_id="job-does-not-exist"))
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        assert daemon.stop() == 0, daemon.logs()


def test_status_and_metrics(daemon):
    s = daemon.stub.GetStatus(pb.GetStatusRequest())
    assert s.total_proofs_completed >= 1
    assert s.uptime_seconds >= 0
    assert s.pinned_memory_limit_bytes == 1 << 30
    assert len(s.gpus) == 1 and "cpu" in s.gpus[0].name
    assert {q.proof_kind for q in s.queues} >= {"POREP_SEAL_COMMIT", "WINNING_POST", "CUZK_BENCH_CIRCUIT"}
    assert any(x.circuit_id == "bench-k10" and x.size_bytes > 0 for x in s.loaded_srs)
    text = daemon.stub.GetMetrics(pb.GetMetricsRequest()).prometheus_text
    assert "cuzk_proofs_completed_total" in text
    assert 'cuzk_proof_duration_seconds_bucket{proof_kind="bench_circuit"' in text
    # Curio's dashboards' names.
    for name in ["cuzk_queue_depth", "cuzk_running_jobs", "cuzk_gpu_workers", "cuzk_uptime_seconds",
                 'cuzk_proofs_completed{proof_kind="bench_circuit"}', "cuzk_proofs_failed_total"]:
        assert name in text, name
    code, ctype, body = daemon.http_get("/metrics")
    assert code == 200 and ctype.startswith("text/plain")
    assert "cuzk_memory_budget_bytes" in body
    promtool_check(body)
    code, ctype, body = daemon.http_get("/status")
    assert code == 200 and ctype == "application/json"
    st = json.loads(body)
    assert st["total_proofs_completed"] == s.total_proofs_completed or st["total_proofs_completed"] >= 1
    assert st["engine"]["memory_budget"] == 1 << 30


def promtool_check(text):
    """`promtool check metrics` (Prometheus' own linter) on an exposition.
    CI installs it (Debian's prometheus package) and sets
    CUZK_REQUIRE_PROMTOOL, so there it cannot be skipped."""
    promtool = shutil.which("promtool")
    if promtool is None:
        assert not os.environ.get("CUZK_REQUIRE_PROMTOOL"), "promtool is not installed"
        return
    r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_preload_and_evict(daemon):
    a = daemon.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="bench-k11"))
    b = daemon.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="bench-k11"))
    assert b.already_loaded
    assert a.already_loaded or a.load_time_ms >= 0
    e = daemon.stub.EvictSRS(pb.EvictSrsRequest(circuit_id="bench-k11"))
    assert e.was_loaded and e.freed_bytes > 0
    e = daemon.stub.EvictSRS(pb.EvictSrsRequest(circuit_id="bench-k11"))
    assert not e.was_loaded and e.freed_bytes == 0
    ids = {x.circuit_id for x in daemon.stub.GetStatus(pb.GetStatusRequest()).loaded_srs}
    assert "bench-k11" not in ids
    with pytest.raises(grpc.RpcError) as err:
        daemon.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="nothing-like-this"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


def test_malformed_and_unsupported(daemon):
    bad = [
        pb.SubmitProofRequest(proof_kind=77),
        pb.SubmitProofRequest(proof_kind=pb.PROOF_KIND_UNSPECIFIED),
        pb.SubmitProofRequest(proof_kind=pb.POREP_SEAL_COMMIT, sector_size=0, vanilla_proof=b"{}"),
        pb.SubmitProofRequest(proof_kind=pb.POREP_SEAL_COMMIT, sector_size=2048, vanilla_proof=b"\x00garbage"),
        pb.SubmitProofRequest(proof_kind=BENCH_KIND, vanilla_proof=b"[1,2]"),
        pb.SubmitProofRequest(proof_kind=pb.WINNING_POST),
        pb.SubmitProofRequest(proof_kind=pb.SNAP_DEALS_UPDATE, vanilla_proofs=[b"x"]),
    ]
    for req in bad:
        with pytest.raises(grpc.RpcError) as e:
            daemon.stub.SubmitProof(req)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, req
    # Still serving.
    r = daemon.stub.Prove(pb.ProveRequest(submit=bench(10, seed=11))).result
    assert r.status == Status.COMPLETED


def test_stock_grpcio_client_over_the_unix_socket():
    """grpcio with its default channel options sends the socket's path as
    the HTTP/2 :authority (1.85.3: `tmp%2Fx.sock` for unix:///tmp/x.sock);
    the daemon must answer it (h2 on its own resets such a request with
    RST_STREAM PROTOCOL_ERROR)."""
    sock = scratch_dir("sock-") / "cuzk.sock"
    d = Daemon(unix_socket=sock)
    try:
        with grpc.insecure_channel(f"unix://{sock}") as ch:
            stub = pb_grpc.ProvingEngineStub(ch)
            assert stub.GetStatus(pb.GetStatusRequest(), timeout=30).pinned_memory_limit_bytes == 1 << 30
            r = stub.Prove(pb.ProveRequest(submit=bench(10, seed=5)), timeout=300).result
            assert r.status == Status.COMPLETED, r.error_message
            assert verifies(r.proof, 10, 1, 5)
            assert stub.GetStatus(pb.GetStatusRequest(), timeout=30).total_proofs_completed >= 1
    finally:
        assert d.stop() == 0, d.logs()


def test_request_id_in_flight_is_proved_once(daemon):
    req = bench(11, partitions=3, seed=21, request_id="porep-1000-77")
    results = []

    def call():
        results.append(daemon.stub.Prove(pb.ProveRequest(submit=req)).result)

    threads = [threading.Thread(target=call) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({r.job_id for r in results}) == 1
    assert all(r.status == Status.COMPLETED for r in results)
    assert verifies(results[0].proof, 11, 3, 21)


def test_sigterm_with_jobs_queued_answers_everyone_and_exits_0():
    d = Daemon(on_shutdown="cancel")
    ids = [d.stub.SubmitProof(bench(12, partitions=64, seed=s)).job_id for s in range(3)]
    wait_for("a job to run", lambda: in_progress(d) == 1)
    answers = {}

    def waiter(i):
        answers[i] = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=i))

    threads = [threading.Thread(target=waiter, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    time.sleep(0.3)
    assert d.terminate() == 0, d.logs()
    for t in threads:
        t.join(timeout=30)
    d.stop()
    assert sorted(answers) == sorted(ids)
    # The running job may finish in the moment between the poll and the
    # signal (seen on a loaded 2-core CI machine); then its proof must
    # verify. Every other answer is the shutdown's cancellation, and the
    # last job, queued behind two of 64 partitions, cannot have finished.
    for seed, i in enumerate(ids):
        a = answers[i]
        if a.status == Status.COMPLETED:
            assert verifies(a.proof, 12, 64, seed), f"{i}: completed with a proof that does not verify"
        else:
            assert a.status == Status.CANCELLED, answers
            assert "shutting down" in a.error_message, a.error_message
    assert answers[ids[-1]].status == Status.CANCELLED, answers
    assert "cancelling unfinished job" in d.logs()


def porep_testdata():
    """The 2 KiB PoRep test data `cuzk testdata porep` (or the cuzk-filecoin
    e2e test) leaves in the cache: (params dir, sector dir), or None."""
    root = Path(os.environ.get("CUZK_TESTDATA_DIR") or Path.home() / ".cache" / "cuzk" / "filecoin")
    params, sector = root / "params", root / "sectors" / "2KiB"
    if not (sector / "c1.json").is_file() or not (sector / "meta.json").is_file():
        return None
    if not any(params.glob("v28-stacked-proof-of-replication*.params")):
        return None
    return params, sector


# CI sets CUZK_REQUIRE_POREP_TESTDATA (its `cargo test` step leaves the
# data in the cache), so there it cannot be skipped.
@pytest.mark.skipif(
    porep_testdata() is None and not os.environ.get("CUZK_REQUIRE_POREP_TESTDATA"),
    reason="no 2 KiB PoRep test data here (cuzk testdata porep --sector-size 2KiB --generator cuzk)",
)
def test_porep_2kib_as_curio_sends_it_verifies_with_filecoin_proofs():
    assert porep_testdata() is not None, "no 2 KiB PoRep test data (cuzk testdata porep --sector-size 2KiB)"
    params, sector = porep_testdata()
    meta = json.loads((sector / "meta.json").read_text())
    inner = (sector / "c1.json").read_bytes()
    wrapped = json.dumps(
        {"SectorNum": meta["sector_id"], "Phase1Out": base64.b64encode(inner).decode(), "SectorSize": 2048}
    ).encode()
    # The budget holds the parameter set (~1.1 GB at 2 KiB) and a partition.
    # Over the unix socket with grpcio's default channel options, as Curio's
    # default transport.
    sock = scratch_dir("sock-") / "cuzk.sock"
    d = Daemon(param_cache=params, budget="6GiB", unix_socket=sock)
    try:
        with grpc.insecure_channel(f"unix://{sock}") as ch:
            r = pb_grpc.ProvingEngineStub(ch).Prove(
                pb.ProveRequest(
                    submit=pb.SubmitProofRequest(
                        request_id=f"porep-1000-{meta['sector_id']}",
                        proof_kind=pb.POREP_SEAL_COMMIT,
                        sector_size=2048,
                        priority=pb.NORMAL,
                        vanilla_proof=wrapped,
                        sector_number=meta["sector_id"],
                        miner_id=1000,
                    )
                ),
                timeout=1800,
            ).result
    finally:
        assert d.stop() == 0, d.logs()
    assert r.status == Status.COMPLETED, r.error_message
    assert len(r.proof) == 192
    out = scratch_dir("porep-")

    def verify(proof):
        (out / "c2.proof").write_bytes(proof)
        return subprocess.run(
            [str(CUZK), "verify", "porep", "--c1", str(sector / "c1.json"), "--prover-id", meta["prover_id"],
             "--sector-id", str(meta["sector_id"]), "--sector-size", "2KiB", "--param-cache", str(params),
             "--proof", str(out / "c2.proof")],
            capture_output=True,
            text=True,
        ).returncode == 0

    assert verify(r.proof), "filecoin-proofs' verify_seal accepts the daemon's proof"
    bad = bytearray(r.proof)
    bad[100] ^= 1
    assert not verify(bytes(bad))


def run_testdata(kind, *args):
    """Runs `cuzk testdata <kind> …` (2 KiB: sealed sectors and cuzk's test
    parameters in seconds, cached) and returns the parameter directory."""
    out = subprocess.run([str(CUZK), "testdata", kind, *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    run = next(line for line in out.stdout.splitlines() if line.startswith("run:"))
    return Path(run.split("--param-cache ")[1].split()[0]), run


def test_post_and_snap_2kib_as_curio_sends_them_verify_with_filecoin_proofs():
    tmp = scratch_dir("post-")
    raw = bytes([0xA7] * 32)  # chain randomness; the daemon clears its top two bits
    r = bytearray(raw)
    r[31] &= 0x3F
    rh = bytes(r).hex()
    miner = 1000
    jobs = {}
    for kind, reg in [("winning-post", 0), ("window-post", 10)]:
        params, _ = run_testdata(kind, "--sectors", "2", "--randomness", rh, "--prover-id", f"f0{miner}",
                             "--vanilla-out", str(tmp / f"{kind}.json"), "--sectors-out", str(tmp / f"{kind}-set.json"))
        vanilla = [base64.b64decode(v) for v in json.loads((tmp / f"{kind}.json").read_text())]
        jobs[kind] = pb.SubmitProofRequest(
            request_id=f"{kind}-{miner}",
            proof_kind=pb.WINNING_POST if kind == "winning-post" else pb.WINDOW_POST_PARTITION,
            registered_proof=reg,
            miner_id=miner,
            randomness=raw,
            partition_index=0,
            vanilla_proofs=vanilla,
        )
    params, run = run_testdata("snap", "--vanilla-out", str(tmp / "snap.json"))
    comm = {k: run.split(f"--{k} ")[1].split()[0] for k in ["comm-r-old", "comm-r-new", "comm-d-new"]}
    jobs["snap"] = pb.SubmitProofRequest(
        request_id=f"snap-{miner}",
        proof_kind=pb.SNAP_DEALS_UPDATE,
        registered_proof=0,
        sector_size=2048,
        comm_r_old=bytes.fromhex(comm["comm-r-old"]),
        comm_r_new=bytes.fromhex(comm["comm-r-new"]),
        comm_d_new=bytes.fromhex(comm["comm-d-new"]),
        vanilla_proofs=[base64.b64decode(v) for v in json.loads((tmp / "snap.json").read_text())],
    )
    d = Daemon(param_cache=params, budget="4GiB")
    try:
        # All three at once: the queue orders them by priority.
        ids = {k: d.stub.SubmitProof(req).job_id for k, req in jobs.items()}
        res = {k: d.stub.AwaitProof(pb.AwaitProofRequest(job_id=i), timeout=600) for k, i in ids.items()}
    finally:
        assert d.stop() == 0, d.logs()
    for k, a in res.items():
        assert a.status == Status.COMPLETED, (k, a.error_message)

    def verify(kind, proof):
        (tmp / "p").write_bytes(proof)
        if kind == "snap":
            extra = [f"--{k}={v}" for k, v in comm.items()] + ["--sector-size", "2KiB"]
        else:
            extra = ["--sectors", str(tmp / f"{kind}-set.json"), "--sector-size", "2KiB",
                     "--randomness", rh, "--prover-id", f"f0{miner}"]
        cmd = [str(CUZK), "verify", kind, "--proof", str(tmp / "p"), "--param-cache", str(params), *extra]
        return subprocess.run(cmd, capture_output=True, text=True).returncode == 0

    for k, a in res.items():
        assert len(a.proof) == 192
        assert verify(k, a.proof), f"filecoin-proofs accepts the daemon's {k} proof"
        bad = bytearray(a.proof)
        bad[42] ^= 1
        assert not verify(k, bytes(bad)), k
