// limits.test.mjs — what a misbehaving or silent client can hold, and how circuit ids are matched.
// - Request bytes count against limits.max_buffered_bytes as they arrive: streams whose 5-byte prefix
//   announces 256 MiB, with nothing after it, do not lock other clients out.
// - limits.idle_timeout closes connections that move no byte (silent sockets, a stalled upload), so
//   they cannot hold --max-connections; a connection whose call is being served stays open however
//   long the call takes.
// - A synthetic circuit has one spelling (synth-porep-011 is not a second synth-porep-11), and an id
//   longer than the daemon keeps is refused, never cut to a registered one.
// Usage: node limits.test.mjs BUILD_DIR WORK_DIR   (WORK_DIR holds bits.params from `cuzk setup`)
import fs from 'node:fs';
import net from 'node:net';
import http from 'node:http';
import http2 from 'node:http2';
import path from 'node:path';
import { ROOT, Daemon, Status, client, call, grpcFrame, ok, finish, sleep, METHOD } from './lib.mjs';

const [build, work] = process.argv.slice(2);
const FIX = path.join(ROOT, 'tests/fixtures');
const SOCK = path.join(work, 'limits.sock');
const HTTP_SOCK = path.join(work, 'limits-http.sock');
const LONG = 'b'.repeat(63); // the longest id the daemon keeps
const conf = path.join(work, 'limits.toml');
fs.writeFileSync(conf, '[limits]\nidle_timeout = "1s"\n');
const d = new Daemon(path.join(build, 'cuzkd'), [
  '--config', conf, '--listen', `unix://${SOCK}`, '--status-listen', `unix://${HTTP_SOCK}`, '--max-connections', '4',
  '--budget', '3G',
  '--circuit', `${LONG}=${path.join(work, 'bits.params')},${path.join(FIX, 'bits/circuit.r1cs')}`,
  '--synth-max-scale', '16', '--log-level', 'debug',
], path.join(work, 'limits.log'));
await d.start(SOCK);

// A raw socket that connects and stays silent; resolves {closed, ms} when the daemon closes it (or after ms).
function silent(ms) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const s = net.connect(SOCK);
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ closed: false, ms: Date.now() - t0 });
    }, ms);
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, ms: Date.now() - t0 });
    });
    s.on('data', () => {}); // reading, so that the daemon's close is seen
    s.on('error', () => {});
  });
}

async function status(what) {
  const c = client(`unix://${SOCK}`);
  const r = await call(c, 'GetStatus', {}, 5000);
  c.close();
  ok(!r.err, what, r.err?.message);
  return r.res;
}

// ---- circuit ids ---------------------------------------------------------------------------------
{
  const c = client(`unix://${SOCK}`);
  const a = await call(c, 'PreloadSRS', { circuit_id: 'synth-porep-11' });
  ok(!a.err && a.res.already_loaded === false, 'PreloadSRS synth-porep-11 loads it', a.err?.message);
  for (const alias of ['synth-porep-011', 'synth-porep-+11', 'synth-porep- 11', `synth-porep-${'0'.repeat(60)}11`]) {
    const r = await call(c, 'PreloadSRS', { circuit_id: alias });
    ok(r.err?.code === Status.NOT_FOUND && /spelled synth-porep-11|at most 63/.test(r.err.details),
       `PreloadSRS '${alias.length > 20 ? alias.slice(0, 20) + '…' : alias}': NOT_FOUND naming the spelling`,
       r.err?.message || r.res);
  }
  const s = (await call(c, 'GetStatus', {})).res;
  ok(s.loaded_srs.filter((x) => x.circuit_id.startsWith('synth-porep')).length === 1,
     '... and one synthetic key is loaded, not one per spelling', s.loaded_srs.map((x) => x.circuit_id));
  const wtns = fs.readFileSync(path.join(FIX, 'bits/witness.wtns'));
  const good = await call(c, 'Prove', { submit: { proof_kind: 'GROTH16_CIRCUIT', circuit_id: LONG, vanilla_proof: wtns } });
  ok(!good.err && good.res.result.status === 'COMPLETED', 'a 63-byte circuit id proves', good.err?.message || good.res?.result);
  const cut = await call(c, 'Prove', { submit: { proof_kind: 'GROTH16_CIRCUIT', circuit_id: `${LONG}X`, vanilla_proof: wtns } });
  ok(cut.err?.code === Status.NOT_FOUND && /at most 63/.test(cut.err.details),
     'that id with one more byte: NOT_FOUND, not the 63-byte circuit', cut.err?.message || cut.res?.result);
  const ev = await call(c, 'EvictSRS', { circuit_id: `${LONG}X` });
  ok(ev.err?.code === Status.NOT_FOUND, 'EvictSRS of the longer id: NOT_FOUND', ev.err?.message || ev.res);
  c.close();
}

// ---- announced bytes are not reserved --------------------------------------------------------------
{
  const session = http2.connect('http://localhost', { createConnection: () => net.connect(SOCK) });
  session.on('error', () => {});
  const streams = [];
  for (let i = 0; i < 4; i++) { // 4 × 256 MiB announced: the whole 1 GiB cap, were it charged up front
    const req = session.request({ ':method': 'POST', ':path': METHOD('SubmitProof'), 'content-type': 'application/grpc', te: 'trailers' },
                                { endStream: false });
    req.on('error', () => {});
    req.write(grpcFrame(Buffer.alloc(0), (256 << 20) - 5));
    streams.push(req);
  }
  await sleep(300);
  await status('four streams announcing 256 MiB each and sending nothing: another client still gets GetStatus');
  // the stalled uploads do not keep their connection: it moves no byte, and none of its calls is served
  const t0 = Date.now();
  const closed = await new Promise((resolve) => {
    session.on('close', () => resolve(true));
    setTimeout(() => resolve(false), 8000);
  });
  ok(closed, `... and the stalled connection is closed by the idle timeout (after ${Date.now() - t0} ms)`);
  session.destroy();
}

// ---- silent connections do not hold the connection slots ----------------------------------------
{
  const quiet = [silent(8000), silent(8000), silent(8000), silent(8000)]; // --max-connections 4
  await sleep(200);
  const held = await rawRefused();
  ok(held, 'four silent sockets fill --max-connections 4 (a fifth connection is refused)');
  const r = await Promise.all(quiet);
  ok(r.every((x) => x.closed && x.ms < 6000), 'the daemon closes each silent socket (idle timeout 1 s)', r);
  await status('... after which a client gets GetStatus');
}

// ---- a gRPC client whose idle connection was closed calls again (GOAWAY, then a new connection) -----
{
  const c = client(`unix://${SOCK}`);
  const a = await call(c, 'GetStatus', {}, 5000);
  await sleep(2500); // the connection idles past the 1 s timeout and is closed
  const b = await call(c, 'GetStatus', {}, 5000);
  ok(!a.err && !b.err, 'a client idle past the timeout calls again on the same channel', a.err?.message || b.err?.message);
  c.close();
}

// ---- a call being served keeps its connection -----------------------------------------------------
{
  const c = client(`unix://${SOCK}`);
  const t0 = Date.now();
  const r = await call(c, 'Prove', { submit: { proof_kind: 'SYNTH_POREP', porep_scale: 16, num_partitions: 10 } });
  const ms = Date.now() - t0;
  ok(!r.err && r.res.result.status === 'COMPLETED' && ms > 2000,
     `a Prove of ${ms} ms (over twice the 1 s idle timeout) completes on its connection`, r.err?.message || r.res?.result);
  c.close();
}

await status('GetStatus at the end');
{
  const body = await new Promise((resolve) => {
    http.get({ socketPath: HTTP_SOCK, path: '/metrics' }, (res) => {
      let t = '';
      res.on('data', (x) => (t += x));
      res.on('end', () => resolve(t));
    }).on('error', (e) => resolve(`error: ${e.message}`));
  });
  const n = Number((/^cuzk_connections_idle_closed_total (\d+)$/m.exec(body) || [])[1]);
  ok(n >= 6, `/metrics counts the connections closed as idle (${n})`, body.slice(0, 200));
}
d.signal('SIGTERM');
const ex = await d.waitExit(30000);
ok(ex && ex.code === 0, 'the daemon exits 0 on SIGTERM', ex);
const log = d.log();
ok(/closed after \d+ ms without a byte/.test(log) && /closed after \d+ ms without progress/.test(log),
   'its log names the connections closed for silence and for a stall');
const bad = log.split('\n').filter((l) => /Sanitizer|runtime error:|leak/i.test(l));
ok(bad.length === 0, 'no sanitizer or leak report', bad.slice(0, 5).join('\n'));
finish();

// Whether a fifth connection is refused at once (closed by the daemon before any answer).
async function rawRefused() {
  const r = await silent(1500);
  return r.closed && r.ms < 900;
}
