// load.test.mjs — a bounded load test: N small proofs (the 10-constraint `bits` circuit) from 8 clients
// (4 on the unix socket, 4 on TCP) with Prove. Every proof must come back COMPLETED (the daemon verifies
// each before delivery), all must differ (fresh r, s per proof), the daemon's counters must agree, and a
// sample is verified independently with `cuzk verify-params`. Then SIGTERM: exit 0, no leak report.
// Usage: node load.test.mjs BUILD_DIR WORK_DIR [N=1000] [SAMPLE=40]
import path from 'node:path';
import fs from 'node:fs';
import { ROOT, Daemon, client, call, ok, finish, verifyProofs } from './lib.mjs';

const [build, work, nArg, sampleArg] = process.argv.slice(2);
const N = Number(nArg || 1000);
const SAMPLE = Number(sampleArg || 40);
const FIX = path.join(ROOT, 'tests/fixtures/bits');
const wtns = fs.readFileSync(path.join(FIX, 'witness.wtns'));
const sock = path.join(work, 'load.sock');
const tcp = `127.0.0.1:${21000 + (process.pid % 20000)}`;
const d = new Daemon(path.join(build, 'cuzkd'), ['--listen', `unix://${sock}`, '--listen', tcp, '--budget', '1G',
  '--circuit', `bits=${path.join(work, 'bits.params')},${path.join(FIX, 'circuit.r1cs')}`, '--preload', 'bits',
  '--log-level', 'warn'], path.join(work, 'load.log'));
await d.start(sock);
const clients = [...Array(8).keys()].map((i) => client(i < 4 ? `unix://${sock}` : tcp));
let next = 0;
const proofs = [];
let failures = 0;
const t0 = Date.now();
await Promise.all(clients.map(async (c) => {
  while (next < N) {
    next++;
    const r = await call(c, 'Prove', { submit: { proof_kind: 'GROTH16_CIRCUIT', circuit_id: 'bits', vanilla_proof: wtns } });
    if (!r.err && r.res.result.status === 'COMPLETED' && r.res.result.proof.length === 192) proofs.push(r.res.result.proof);
    else failures++;
  }
}));
const wall = (Date.now() - t0) / 1000;
console.log(`load: ${N} proofs from 8 clients in ${wall.toFixed(2)} s (${(N / wall).toFixed(1)} proofs/s)`);
ok(proofs.length === N && failures === 0, `load: all ${N} proofs delivered`, { delivered: proofs.length, failures });
ok(new Set(proofs.map((p) => p.toString('hex'))).size === proofs.length, 'load: all proofs differ');
const st = await call(clients[0], 'GetStatus', {});
ok(!st.err && st.res.total_proofs_completed === N && st.res.total_proofs_failed === 0 && st.res.partitions_completed === N,
   'load: the daemon counts exactly N completed, 0 failed', st.res);
const step = Math.max(1, Math.floor(proofs.length / SAMPLE));
const sample = Buffer.concat(proofs.filter((_, i) => i % step === 0).slice(0, SAMPLE));
const accepted = verifyProofs(path.join(build, 'cuzk'), path.join(work, 'bits.vk'), path.join(FIX, 'witness.wtns'), sample, work, 'load');
ok(accepted === sample.length / 192, `load: cuzk verify-params accepts every sampled proof (${accepted} of ${sample.length / 192})`);
clients.forEach((c) => c.close());
d.signal('SIGTERM');
const ex = await d.waitExit(30000);
ok(ex && ex.code === 0, 'load: SIGTERM, exit 0', ex);
const bad = d.log().split('\n').filter((l) => /Sanitizer|runtime error:|ERROR/.test(l));
ok(bad.length === 0, 'load: no error, sanitizer or leak report in the log', bad.slice(0, 5).join('\n'));
process.exit(finish() ? 1 : 0);
