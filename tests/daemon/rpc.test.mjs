// rpc.test.mjs — every cuzk.v1 call against a live cuzkd, from @grpc/grpc-js, over a unix socket and a
// loopback TCP port; proofs checked independently with `cuzk verify-params`; bad input of every kind
// answered with an error while the daemon keeps serving.
// Usage: node rpc.test.mjs BUILD_DIR WORK_DIR   (WORK_DIR holds bits.params / bits.vk from `cuzk setup`)
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, Daemon, Status, client, call, rawCall, encode, h2Request, h2Status, rawSocket, grpcFrame, ok, finish,
         verifyProofs, verifyStatus, sleep, METHOD } from './lib.mjs';

const [build, work] = process.argv.slice(2);
const CUZK = path.join(build, 'cuzk');
const FIX = path.join(ROOT, 'tests/fixtures');
const WTNS = path.join(FIX, 'bits/witness.wtns');
const VK = path.join(work, 'bits.vk');
const SOCK = path.join(work, 'cuzkd.sock');
const PORT = 20000 + (process.pid % 20000);
const TCP = `127.0.0.1:${PORT}`;
const HTTP = `127.0.0.1:${PORT + 1}`;
const wtns = fs.readFileSync(WTNS);

const d = new Daemon(path.join(build, 'cuzkd'), [
  '--listen', `unix://${SOCK}`, '--listen', TCP, '--status-listen', HTTP,
  '--circuit', `bits=${path.join(work, 'bits.params')},${path.join(FIX, 'bits/circuit.r1cs')}`,
  '--circuit', `mixer=${path.join(work, 'mixer.params')},${path.join(FIX, 'mixer/circuit.r1cs')}`,
  '--budget', '3G', '--synth-max-scale', '16', '--log-level', 'debug', '--results-ttl', '10m',
], path.join(work, 'rpc.log'));
await d.start(SOCK);
const U = client(`unix://${SOCK}`);
const T = client(TCP);

// follow-up check after every bad input: a new client on the socket still gets a status
async function stillServing(what) {
  const c = client(`unix://${SOCK}`);
  const r = await call(c, 'GetStatus', {});
  c.close();
  ok(!r.err && r.res.version.length > 0, `${what}: the daemon keeps serving (GetStatus afterwards)`, r.err?.message);
}

// ---- transport basics -----------------------------------------------------------------------
const mode = fs.statSync(SOCK).mode & 0o777;
ok(mode === 0o660, 'the unix socket has mode 0660 by default', mode.toString(8));
{
  const [a, b] = await Promise.all([call(U, 'GetStatus', {}), call(T, 'GetStatus', {})]);
  ok(!a.err && !b.err, 'GetStatus over the unix socket and over TCP', a.err?.message || b.err?.message);
  ok(a.res.gpus.length === 0 && a.res.backend === 'cpu', 'a build without CUDA reports no GPU and the cpu backend', a.res);
  ok(a.res.memory_limit_bytes === 3 * 2 ** 30 && a.res.pinned_memory_limit_bytes === 3 * 2 ** 30,
     'GetStatus reports the memory budget (--budget 3G)', a.res.memory_limit_bytes);
  ok(a.res.queues.map((q) => q.proof_kind).join() === 'GROTH16_CIRCUIT,SYNTH_POREP', 'GetStatus lists both queues', a.res.queues);
}

// ---- PreloadSRS / a registered circuit ------------------------------------------------------
{
  const p1 = await call(U, 'PreloadSRS', { circuit_id: 'bits' });
  ok(!p1.err && p1.res.already_loaded === false, 'PreloadSRS bits loads it', p1.err?.message);
  const p2 = await call(T, 'PreloadSRS', { circuit_id: 'bits' });
  ok(!p2.err && p2.res.already_loaded === true, 'PreloadSRS bits again: already loaded', p2.err?.message);
  const p3 = await call(U, 'PreloadSRS', { circuit_id: 'nope' });
  ok(p3.err?.code === Status.NOT_FOUND, 'PreloadSRS of an unknown id: NOT_FOUND', p3.err?.message);
  const p4 = await call(U, 'PreloadSRS', { circuit_id: 'synth-porep-99' });
  ok(p4.err?.code === Status.NOT_FOUND, 'PreloadSRS synth-porep-99 (above max scale): NOT_FOUND', p4.err?.message);
  const p5 = await call(U, 'PreloadSRS', { circuit_id: 'mixer' });
  ok(p5.err?.code === Status.FAILED_PRECONDITION && /mixer\.params/.test(p5.err.details),
     'PreloadSRS of a circuit whose key file is missing: FAILED_PRECONDITION naming the file', p5.err?.message);
  const s = (await call(U, 'GetStatus', {})).res;
  const bits = s.loaded_srs.find((x) => x.circuit_id === 'bits');
  ok(bits && bits.size_bytes > 0 && bits.ref_count === 0 && bits.tier === 'HOT', 'GetStatus lists bits as loaded, with its size', s.loaded_srs);
}

// ---- SubmitProof + AwaitProof, Prove, verified independently ---------------------------------
{
  const sub = await call(U, 'SubmitProof', { request_id: 'bits-1', proof_kind: 'GROTH16_CIRCUIT', circuit_id: 'bits', vanilla_proof: wtns });
  ok(!sub.err && sub.res.job_id === 'bits-1', 'SubmitProof answers with the request id as job id', sub.err?.message);
  const aw = await call(T, 'AwaitProof', { job_id: 'bits-1' });
  ok(!aw.err && aw.res.status === 'COMPLETED' && aw.res.proof.length === 192 && aw.res.num_partitions === 1,
     'AwaitProof (over TCP) returns the 192-byte proof', aw.err?.message || aw.res);
  ok(verifyStatus(CUZK, VK, WTNS, aw.res.proof, path.join(work, 'p1.bin')) === 0, 'cuzk verify-params accepts the proof');
  const bad = Buffer.from(aw.res.proof);
  bad[100] ^= 1;
  ok(verifyStatus(CUZK, VK, WTNS, bad, path.join(work, 'p1bad.bin')) !== 0, '... and rejects it with one bit flipped');
  const aw2 = await call(U, 'AwaitProof', { job_id: 'bits-1' });
  ok(!aw2.err && Buffer.compare(aw2.res.proof, aw.res.proof) === 0, 'a finished result can be awaited again (kept)', aw2.err?.message);
  const pr = await call(U, 'Prove', { submit: { proof_kind: 'GROTH16_CIRCUIT', circuit_id: 'bits', vanilla_proofs: [wtns, wtns, wtns], priority: 'HIGH' } });
  ok(!pr.err && pr.res.result.status === 'COMPLETED' && pr.res.result.proof.length === 3 * 192,
     'Prove with three witnesses (three partitions) returns 576 bytes', pr.err?.message || pr.res?.result);
  ok(pr.res && verifyProofs(CUZK, VK, WTNS, pr.res.result.proof, work, 'multi') === 3, '... all three proofs verify');
  ok(pr.res && pr.res.result.job_id.startsWith('job-'), 'a job without request_id gets a generated id', pr.res?.result.job_id);
  const syn = await call(T, 'Prove', { submit: { proof_kind: 'SYNTH_POREP', porep_scale: 11, num_partitions: 2 } });
  ok(!syn.err && syn.res.result.status === 'COMPLETED' && syn.res.result.proof.length === 384 && syn.res.result.srs_load_ms > 0,
     'Prove SYNTH_POREP at scale 11, 2 partitions: 384 bytes, the first job pays the circuit build', syn.err?.message || syn.res?.result);
}

// ---- bad requests, each followed by a good one -----------------------------------------------
{
  for (const k of ['POREP_SEAL_COMMIT', 'SNAP_DEALS_UPDATE', 'WINDOW_POST_PARTITION', 'WINNING_POST']) {
    const r = await call(U, 'Prove', { submit: { proof_kind: k, vanilla_proof: Buffer.from('{}') } });
    ok(r.err?.code === Status.UNIMPLEMENTED && /Filecoin circuits/.test(r.err.details), `${k}: UNIMPLEMENTED with a clear message`, r.err?.message);
  }
  const unk = await rawCall(U, 'SubmitProof', Buffer.from([0x10, 77])); // proof_kind = 77
  ok(unk.err?.code === Status.INVALID_ARGUMENT && /unknown proof kind 77/.test(unk.err.details), 'an unknown proof kind: INVALID_ARGUMENT', unk.err?.message);
  const none = await call(U, 'SubmitProof', { proof_kind: 'GROTH16_CIRCUIT', circuit_id: 'bits' });
  ok(none.err?.code === Status.INVALID_ARGUMENT, 'GROTH16_CIRCUIT without a witness: INVALID_ARGUMENT', none.err?.message);
  const unreg = await call(U, 'SubmitProof', { proof_kind: 'GROTH16_CIRCUIT', circuit_id: 'nope', vanilla_proof: wtns });
  ok(unreg.err?.code === Status.NOT_FOUND, 'an unregistered circuit id: NOT_FOUND', unreg.err?.message);
  const dup = await call(T, 'SubmitProof', { request_id: 'bits-1', proof_kind: 'GROTH16_CIRCUIT', circuit_id: 'bits', vanilla_proof: wtns });
  ok(dup.err?.code === Status.ALREADY_EXISTS, 'a duplicate request_id: ALREADY_EXISTS', dup.err?.message);
  const garbage = await call(U, 'Prove', { submit: { proof_kind: 'GROTH16_CIRCUIT', circuit_id: 'bits', vanilla_proof: Buffer.from('not a witness') } });
  ok(garbage.err?.code === Status.INVALID_ARGUMENT && /wtns/.test(garbage.err.details), 'a witness that is not a .wtns: INVALID_ARGUMENT', garbage.err?.message);
  const other = await call(U, 'Prove', { submit: { proof_kind: 'GROTH16_CIRCUIT', circuit_id: 'bits', vanilla_proof: fs.readFileSync(path.join(FIX, 'mixer/witness.wtns')) } });
  ok(other.err?.code === Status.INVALID_ARGUMENT && /another circuit/.test(other.err.details), "another circuit's witness: INVALID_ARGUMENT", other.err?.message);
  // a witness of the right size whose values do not satisfy the circuit: the job fails, with the reason
  const wrong = Buffer.from(wtns);
  wrong[wrong.length - 40] ^= 0x01;
  const unsat = await call(U, 'Prove', { submit: { proof_kind: 'GROTH16_CIRCUIT', circuit_id: 'bits', vanilla_proof: wrong } });
  ok(!unsat.err && unsat.res.result.status === 'FAILED' && unsat.res.result.error_message.length > 0 && unsat.res.result.proof.length === 0,
     'a witness that does not satisfy the circuit: FAILED with a message, no proof', unsat.err?.message || unsat.res?.result);
  const trunc = await rawCall(U, 'SubmitProof', Buffer.from([0x0a, 0x20, 0x61, 0x62])); // request_id of 32 bytes, 2 present
  ok(trunc.err?.code === Status.INVALID_ARGUMENT && /malformed protobuf/.test(trunc.err.details), 'a truncated protobuf: INVALID_ARGUMENT', trunc.err?.message);
  await stillServing('truncated protobuf');
  const scale = await call(U, 'Prove', { submit: { proof_kind: 'SYNTH_POREP', porep_scale: 25 } });
  ok(scale.err?.code === Status.INVALID_ARGUMENT, 'SYNTH_POREP above synthetic.max_scale: INVALID_ARGUMENT', scale.err?.message);
  // a 200 MiB message is accepted by the transport (and refused by the witness parser)
  const big = Buffer.alloc(200 << 20, 7);
  const bigr = await call(U, 'SubmitProof', { proof_kind: 'GROTH16_CIRCUIT', circuit_id: 'bits', vanilla_proof: big });
  ok(bigr.err?.code === Status.INVALID_ARGUMENT && /wtns/.test(bigr.err.details), 'a 200 MiB request travels whole (the witness parser answers)', bigr.err?.message);
  // above 256 MiB: refused as soon as the length prefix arrives
  const huge = Buffer.alloc((256 << 20) + 64, 1);
  const huger = await call(T, 'SubmitProof', { proof_kind: 'GROTH16_CIRCUIT', circuit_id: 'bits', vanilla_proof: huge });
  ok(huger.err?.code === Status.RESOURCE_EXHAUSTED && /exceeds the limit/.test(huger.err.details), 'a message above 256 MiB: RESOURCE_EXHAUSTED', huger.err?.message);
  await stillServing('oversized message');
}

// ---- malformed HTTP/2 and gRPC framing ---------------------------------------------------------
{
  const g = await rawSocket(SOCK, Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
  ok(g.closed, 'HTTP/1.1 bytes on the gRPC socket: the connection is closed');
  await stillServing('HTTP/1.1 bytes');
  const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
  const badSettings = Buffer.from([0, 0, 5, 0x04, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5]); // SETTINGS of 5 bytes
  const s1 = await rawSocket(SOCK, Buffer.concat([preface, badSettings]));
  ok(s1.closed && s1.got.includes(Buffer.from([0x07])), 'a SETTINGS frame of 5 bytes: GOAWAY and close', s1.got.toString('hex').slice(0, 80));
  await stillServing('bad SETTINGS frame');
  const junk = Buffer.alloc(4096);
  for (let i = 0; i < junk.length; i++) junk[i] = (i * 131 + 7) & 0xff;
  const s2 = await rawSocket(SOCK, Buffer.concat([preface, junk]));
  ok(s2.closed, 'a valid preface then 4 KiB of junk frames: the connection is closed');
  await stillServing('junk frames');
  const s3 = await rawSocket(SOCK, Buffer.concat([preface, Buffer.from([0, 0, 0, 0x01, 0x05, 0, 0, 0, 2])])); // HEADERS, empty block, even stream id
  ok(s3.closed, 'HEADERS on an even (server-side) stream id: the connection is closed');
  await stillServing('even stream id');
  const hdr = (p) => ({ ':method': 'POST', ':path': p, 'content-type': 'application/grpc', te: 'trailers' });
  const t1 = await h2Request('http://localhost', SOCK, hdr(METHOD('GetStatus')), grpcFrame(Buffer.alloc(10), 100));
  ok(h2Status(t1).code === Status.INVALID_ARGUMENT && /prefix announces 100/.test(h2Status(t1).message), 'a gRPC message shorter than its prefix: INVALID_ARGUMENT', h2Status(t1));
  const t2 = await h2Request('http://localhost', SOCK, hdr(METHOD('GetStatus')), Buffer.from([0, 0, 0]));
  ok(h2Status(t2).code === Status.INVALID_ARGUMENT, 'a request shorter than the 5-byte prefix: INVALID_ARGUMENT', h2Status(t2));
  const t3 = await h2Request('http://localhost', SOCK, hdr(METHOD('GetStatus')), grpcFrame(Buffer.alloc(0), 300 << 20), { endStream: false });
  ok(h2Status(t3).code === Status.RESOURCE_EXHAUSTED, 'a prefix announcing 300 MiB: RESOURCE_EXHAUSTED at once', h2Status(t3));
  const t4 = await h2Request('http://localhost', SOCK, hdr(METHOD('Frobnicate')), grpcFrame(Buffer.alloc(0)));
  ok(h2Status(t4).code === Status.UNIMPLEMENTED, 'an unknown method: UNIMPLEMENTED', h2Status(t4));
  const c5 = Buffer.from(grpcFrame(Buffer.alloc(3)));
  c5[0] = 1;
  const t5 = await h2Request('http://localhost', SOCK, hdr(METHOD('GetStatus')), c5);
  ok(h2Status(t5).code === Status.UNIMPLEMENTED, 'a compressed message: UNIMPLEMENTED', h2Status(t5));
  const t6 = await h2Request('http://localhost', SOCK, { ...hdr(METHOD('GetStatus')), 'content-type': 'text/plain' }, grpcFrame(Buffer.alloc(0)));
  ok(h2Status(t6).code === Status.INVALID_ARGUMENT, 'a content-type other than application/grpc: INVALID_ARGUMENT', h2Status(t6));
  // more bytes than the prefix announced, in the frame that completes the prefix (was a heap overflow)
  const t7 = await h2Request('http://localhost', SOCK, hdr(METHOD('GetStatus')), grpcFrame(Buffer.alloc(9), 2));
  ok(h2Status(t7).code === Status.INVALID_ARGUMENT && /more bytes than the gRPC prefix announced/.test(h2Status(t7).message), 'a gRPC message longer than its prefix, in one frame: INVALID_ARGUMENT', h2Status(t7));
  await stillServing('bad gRPC framing');
}

// ---- concurrent clients ------------------------------------------------------------------------
{
  const clients = [0, 1, 2, 3].map((i) => client(i % 2 ? TCP : `unix://${SOCK}`));
  const t0 = Date.now();
  const rs = await Promise.all(clients.flatMap((c) => [0, 1, 2, 3, 4].map(() =>
    call(c, 'Prove', { submit: { proof_kind: 'GROTH16_CIRCUIT', circuit_id: 'bits', vanilla_proof: wtns } }))));
  const good = rs.filter((r) => !r.err && r.res.result.status === 'COMPLETED');
  ok(good.length === 20, `4 clients x 5 concurrent Prove calls: all 20 completed (${Date.now() - t0} ms)`, rs.find((r) => r.err)?.err?.message);
  const all = Buffer.concat(good.map((r) => r.res.result.proof));
  ok(verifyProofs(CUZK, VK, WTNS, all, work, 'conc') === 20, '... and all 20 proofs verify');
  ok(new Set(good.map((r) => r.res.result.proof.toString('hex'))).size === 20, '... and are all different (fresh r, s)');
  clients.forEach((c) => c.close());
}

// ---- await timeout, cancel (queued and running), EvictSRS while in use -------------------------
{
  const long = { proof_kind: 'SYNTH_POREP', porep_scale: 14, num_partitions: 10 };
  const a = await call(U, 'SubmitProof', { ...long, request_id: 'long-a' });
  const b = await call(U, 'SubmitProof', { ...long, request_id: 'long-b' });
  ok(!a.err && !b.err, 'two long SYNTH_POREP jobs submitted', a.err?.message || b.err?.message);
  const t0 = Date.now();
  const to = await call(T, 'AwaitProof', { job_id: 'long-a', timeout_ms: 300 });
  const dt = Date.now() - t0;
  ok(!to.err && to.res.status === 'TIMEOUT' && dt >= 250 && dt < 3000, `AwaitProof timeout_ms 300 answers TIMEOUT after ${dt} ms`, to.err?.message || to.res);
  const st = (await call(U, 'GetStatus', {})).res;
  const q = st.queues.find((x) => x.proof_kind === 'SYNTH_POREP');
  ok(q.pending + q.in_progress === 2 && q.partitions_pending + q.partitions_in_flight === 20, 'GetStatus counts both jobs and their 20 partitions', q);
  const srs = st.loaded_srs.find((x) => x.circuit_id === 'synth-porep-14');
  ok(srs && srs.ref_count === 2, 'the synthetic key shows 2 references while the jobs are unfinished', st.loaded_srs);
  const ev = await call(U, 'EvictSRS', { circuit_id: 'synth-porep-14' });
  ok(ev.err?.code === Status.FAILED_PRECONDITION && /in use/.test(ev.err.details), 'EvictSRS while jobs use the key: FAILED_PRECONDITION', ev.err?.message);
  const waitB = call(T, 'AwaitProof', { job_id: 'long-b' });
  const cb = await call(U, 'CancelProof', { job_id: 'long-b' });
  ok(!cb.err && cb.res.cancelled === true && cb.res.was_running === false, 'CancelProof of the queued job: cancelled, was_running false', cb.err?.message || cb.res);
  const rb = await waitB;
  ok(!rb.err && rb.res.status === 'CANCELLED', 'its pending AwaitProof answers CANCELLED', rb.err?.message || rb.res);
  // wait until job a has partitions in the pipeline, then cancel it
  for (let i = 0; i < 200; i++) {
    const s = (await call(U, 'GetStatus', {})).res.queues.find((x) => x.proof_kind === 'SYNTH_POREP');
    if (s.in_progress > 0) break;
    await sleep(25);
  }
  const ca = await call(T, 'CancelProof', { job_id: 'long-a' });
  ok(!ca.err && ca.res.cancelled === true && ca.res.was_running === true, 'CancelProof of the running job: cancelled, was_running true', ca.err?.message || ca.res);
  const ra = await call(U, 'AwaitProof', { job_id: 'long-a' });
  ok(!ra.err && ra.res.status === 'CANCELLED', 'AwaitProof of the running job answers CANCELLED', ra.err?.message || ra.res);
  const again = await call(U, 'CancelProof', { job_id: 'long-a' });
  ok(!again.err && again.res.cancelled === false, 'cancelling a finished job changes nothing', again.res);
  const unknown = await call(U, 'CancelProof', { job_id: 'never' });
  ok(unknown.err?.code === Status.NOT_FOUND, 'CancelProof of an unknown job: NOT_FOUND', unknown.err?.message);
  const aw = await call(U, 'AwaitProof', { job_id: 'never' });
  ok(aw.err?.code === Status.NOT_FOUND, 'AwaitProof of an unknown job: NOT_FOUND', aw.err?.message);
  const ev2 = await call(U, 'EvictSRS', { circuit_id: 'synth-porep-14' });
  ok(!ev2.err && ev2.res.was_loaded === true && ev2.res.freed_bytes > 0, 'EvictSRS once the jobs are done frees the key', ev2.err?.message || ev2.res);
  const st2 = (await call(U, 'GetStatus', {})).res;
  ok(!st2.loaded_srs.some((x) => x.circuit_id === 'synth-porep-14') && st2.memory_keys_bytes < st.memory_keys_bytes,
     '... GetStatus no longer lists it and the key bytes are back', st2.loaded_srs);
  const ev3 = await call(U, 'EvictSRS', { circuit_id: 'synth-porep-14' });
  ok(!ev3.err && ev3.res.was_loaded === false, 'EvictSRS of an unloaded circuit: was_loaded false', ev3.res);
  // grpc-timeout, the client's deadline, sent by hand (grpc-js would also give up on its own at the deadline)
  const hdr = (m, t) => ({ ':method': 'POST', ':path': METHOD(m), 'content-type': 'application/grpc', te: 'trailers', 'grpc-timeout': t });
  const t2 = Date.now();
  const dp = h2Status(await h2Request('http://localhost', SOCK, hdr('Prove', '400000u'),
    grpcFrame(encode('Prove', { submit: { ...long, request_id: 'long-p' } }))));
  const dt2 = Date.now() - t2;
  ok(dp.code === Status.DEADLINE_EXCEEDED && dt2 >= 350 && dt2 < 3000, `Prove with grpc-timeout 400000u: DEADLINE_EXCEEDED after ${dt2} ms`, dp);
  const t1 = Date.now();
  const dl = h2Status(await h2Request('http://localhost', SOCK, hdr('AwaitProof', '300m'), grpcFrame(encode('AwaitProof', { job_id: 'long-p' }))));
  const dt1 = Date.now() - t1;
  ok(dl.code === Status.DEADLINE_EXCEEDED && /grpc-timeout/.test(dl.message) && dt1 >= 250 && dt1 < 3000,
     `AwaitProof with grpc-timeout 300m: DEADLINE_EXCEEDED from the daemon after ${dt1} ms`, dl);
  const cp = await call(U, 'CancelProof', { job_id: 'long-p' });
  ok(!cp.err && cp.res.cancelled === true, '... its job went on (cancelled here, unfinished)', cp.err?.message || cp.res);
  const rp = await call(U, 'AwaitProof', { job_id: 'long-p' });
  ok(!rp.err && rp.res.status === 'CANCELLED', '... and AwaitProof then answers CANCELLED', rp.err?.message || rp.res);
  const d0 = h2Status(await h2Request('http://localhost', SOCK, hdr('GetStatus', '0n'), grpcFrame(Buffer.alloc(0))));
  ok(d0.code === Status.DEADLINE_EXCEEDED, 'GetStatus with grpc-timeout 0n: DEADLINE_EXCEEDED before it starts', d0);
  for (const bad of ['5', 'm', '123456789m', '10x', '-1S', '1.5S']) {
    const b = h2Status(await h2Request('http://localhost', SOCK, hdr('GetStatus', bad), grpcFrame(Buffer.alloc(0))));
    ok(b.code === Status.INVALID_ARGUMENT && /malformed grpc-timeout/.test(b.message), `grpc-timeout "${bad}": INVALID_ARGUMENT`, b);
  }
  const g = h2Status(await h2Request('http://localhost', SOCK, hdr('GetStatus', '99999999H'), grpcFrame(Buffer.alloc(0))));
  ok(g.code === Status.OK, 'GetStatus with grpc-timeout 99999999H (the longest): answered', g);
  const st3 = (await call(U, 'GetStatus', {})).res;
  ok(st3.total_proofs_cancelled === 3, '... GetStatus counts the third cancelled job', st3.total_proofs_cancelled);
  ok(st2.total_proofs_cancelled === 2, 'GetStatus counts the two cancelled jobs', st2.total_proofs_cancelled);
}

// ---- metrics, HTTP status port --------------------------------------------------------------------
{
  const st = (await call(U, 'GetStatus', {})).res;
  const m = await call(T, 'GetMetrics', {});
  const txt = m.res?.prometheus_text || '';
  const val = (name) => Number((txt.match(new RegExp(`^${name} (\\S+)$`, 'm')) || [])[1]);
  ok(!m.err && val('cuzk_proofs_completed_total') === st.total_proofs_completed && st.total_proofs_completed === 23,
     'GetMetrics: cuzk_proofs_completed_total matches GetStatus (23 jobs)', txt.slice(0, 200));
  ok(val('cuzk_proofs_failed_total') === 1 && val('cuzk_proofs_cancelled_total') === 3, 'GetMetrics: 1 failed, 3 cancelled', txt);
  ok(val('cuzk_grpc_deadlines_exceeded_total') === 3, 'GetMetrics: 3 calls past their grpc-timeout', txt);
  ok(val('cuzk_witnesses_unpacked_total') === 0, 'GetMetrics: no witness sent whole (the CPU backend takes none packed)', txt);
  ok(st.pinned_memory_bytes === 0 && st.memory_used_bytes > 0 && val('cuzk_memory_pinned_bytes') === 0,
     'GetStatus and GetMetrics: no page-locked buffers on the CPU backend after 23 jobs, the budget in use',
     st.pinned_memory_bytes);
  ok(/cuzk_proofs_completed\{proof_kind="GROTH16_CIRCUIT"\} 22/.test(txt) && /cuzk_proofs_completed\{proof_kind="SYNTH_POREP"\} 1/.test(txt),
     'GetMetrics: completed jobs by kind', txt);
  const hm = await fetch(`http://${HTTP}/metrics`);
  const htxt = await hm.text();
  ok(hm.status === 200 && /^cuzk_proofs_completed_total 23$/m.test(htxt), 'HTTP GET /metrics on the status port');
  const hs = await fetch(`http://${HTTP}/status`);
  const js = await hs.json();
  ok(hs.status === 200 && js.counters.completed === 23 && js.circuits.some((c) => c.circuit_id === 'bits' && c.loaded), 'HTTP GET /status: JSON snapshot', js.counters);
  const h404 = await fetch(`http://${HTTP}/nothing`);
  ok(h404.status === 404, 'HTTP GET of an unknown path: 404');
}

U.close();
T.close();
d.signal('SIGTERM');
const ex = await d.waitExit(20000);
ok(ex && ex.code === 0, 'SIGTERM with nothing in flight: exit 0', ex);
ok(!fs.existsSync(SOCK), 'the socket file is removed at exit');
const log = d.log();
ok(!/Sanitizer|runtime error:/.test(log), 'no sanitizer report in the daemon log', log.split('\n').filter((l) => /Sanitizer|runtime error/.test(l)).slice(0, 5).join('\n'));
ok(/INFO  ready/.test(log) && /job bits-1: completed/.test(log), 'the log has leveled lines for start and jobs');
process.exit(finish() ? 1 : 0);
