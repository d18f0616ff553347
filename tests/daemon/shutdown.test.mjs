// shutdown.test.mjs — SIGTERM with work in flight. With a drain timeout the running proof is delivered
// and new work is refused (UNAVAILABLE); with --drain-timeout 0 every waiting caller gets UNAVAILABLE
// with a message saying the daemon is shutting down, and the daemon exits 0 promptly. Nothing hangs.
// Usage: node shutdown.test.mjs BUILD_DIR WORK_DIR
import fs from 'node:fs';
import path from 'node:path';
import { Daemon, Status, client, call, ok, finish, sleep } from './lib.mjs';

const [build, work] = process.argv.slice(2);
const bin = path.join(build, 'cuzkd');
const noSanitizer = (d, what) => {
  const bad = d.log().split('\n').filter((l) => /Sanitizer|runtime error:|leak/i.test(l));
  ok(bad.length === 0, `${what}: no sanitizer or leak report`, bad.slice(0, 5).join('\n'));
};
async function waitRunning(c, n) {
  for (let i = 0; i < 400; i++) {
    const s = await call(c, 'GetStatus', {});
    const q = s.res?.queues.find((x) => x.proof_kind === 'SYNTH_POREP');
    if (q && q.in_progress >= n) return true;
    await sleep(25);
  }
  return false;
}

// ---- drain: the running proof finishes, new work is refused --------------------------------
{
  const sock = path.join(work, 'drain.sock');
  const d = new Daemon(bin, ['--listen', `unix://${sock}`, '--drain-timeout', '60', '--budget', '2G'], path.join(work, 'drain.log'));
  await d.start(sock);
  const c = client(`unix://${sock}`);
  const pending = call(c, 'Prove', { submit: { proof_kind: 'SYNTH_POREP', porep_scale: 13, num_partitions: 6, request_id: 'drained' } });
  ok(await waitRunning(c, 1), 'drain: the job is running');
  d.signal('SIGTERM');
  await sleep(200);
  const refused = await call(c, 'Prove', { submit: { proof_kind: 'SYNTH_POREP', porep_scale: 11, num_partitions: 1 } });
  ok(refused.err?.code === Status.UNAVAILABLE && /shutting down/.test(refused.err.details), 'drain: new work is refused with UNAVAILABLE', refused.err?.message);
  const st = await call(c, 'GetStatus', {});
  ok(!st.err, 'drain: GetStatus still answers while draining', st.err?.message);
  const r = await pending;
  ok(!r.err && r.res.result.status === 'COMPLETED' && r.res.result.proof.length === 6 * 192, 'drain: the running proof is delivered', r.err?.message || r.res?.result);
  c.close();
  const ex = await d.waitExit(30000);
  ok(ex && ex.code === 0, `drain: the daemon exits 0 once the work is done (${ex?.ms} ms after the proof)`, ex);
  ok(!fs.existsSync(sock), 'drain: the socket file is gone');
  noSanitizer(d, 'drain');
}

// ---- immediate: everything in flight is cancelled, callers told why --------------------------
{
  const sock = path.join(work, 'stop.sock');
  const d = new Daemon(bin, ['--listen', `unix://${sock}`, '--drain-timeout', '0', '--budget', '2G'], path.join(work, 'stop.log'));
  await d.start(sock);
  const c1 = client(`unix://${sock}`);
  const c2 = client(`unix://${sock}`);
  const job = { proof_kind: 'SYNTH_POREP', porep_scale: 14, num_partitions: 10 };
  const proves = [call(c1, 'Prove', { submit: { ...job } }), call(c2, 'Prove', { submit: { ...job } })];
  const sub = await call(c1, 'SubmitProof', { ...job, request_id: 'queued-1' });
  ok(!sub.err, 'stop: a third job is queued', sub.err?.message);
  const awaited = call(c2, 'AwaitProof', { job_id: 'queued-1' });
  ok(await waitRunning(c1, 1), 'stop: work is running');
  const t0 = Date.now();
  d.signal('SIGTERM');
  const rs = await Promise.race([Promise.all([...proves, awaited]), sleep(30000).then(() => null)]);
  const dt = Date.now() - t0;
  ok(rs !== null, `stop: every waiting call is answered (${dt} ms)`);
  if (rs) {
    for (const [i, r] of rs.entries())
      ok(r.err?.code === Status.UNAVAILABLE && /shutting down/.test(r.err.details), `stop: call ${i + 1} gets UNAVAILABLE saying the daemon is shutting down`, r.err?.message || r.res);
  }
  c1.close();
  c2.close();
  const ex = await d.waitExit(30000);
  ok(ex && ex.code === 0, `stop: the daemon exits 0 (${Date.now() - t0} ms after SIGTERM)`, ex);
  ok(/cancelling 3 unfinished jobs/.test(d.log()), 'stop: the log says what was cancelled');
  noSanitizer(d, 'stop');
}

// ---- SIGHUP reopens the log file ----------------------------------------------------------------
{
  const sock = path.join(work, 'hup.sock');
  const logf = path.join(work, 'hup.log');
  const d = new Daemon(bin, ['--listen', `unix://${sock}`, '--log-file', logf, '--log-format', 'json', '--budget', '1G'], path.join(work, 'hup.out'));
  await d.start(sock);
  fs.renameSync(logf, `${logf}.1`);
  d.signal('SIGHUP');
  for (let i = 0; i < 100 && !fs.existsSync(logf); i++) await sleep(20);
  const c = client(`unix://${sock}`);
  await call(c, 'GetStatus', {});
  c.close();
  d.signal('SIGTERM');
  const ex = await d.waitExit(20000);
  ok(ex && ex.code === 0, 'hup: exit 0', ex);
  const old = fs.readFileSync(`${logf}.1`, 'utf8').trim().split('\n');
  const cur = fs.existsSync(logf) ? fs.readFileSync(logf, 'utf8').trim().split('\n') : [];
  ok(old.length >= 2 && old.every((l) => JSON.parse(l).level), 'hup: the rotated file holds the JSON lines written before SIGHUP', old.slice(0, 3));
  ok(cur.some((l) => /reopened/.test(l)) && cur.some((l) => /stopped/.test(l)), 'hup: after SIGHUP lines go to the new file', cur);
  noSanitizer(d, 'hup');
}
process.exit(finish() ? 1 : 0);
