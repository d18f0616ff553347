// lib.mjs — helpers shared by the cuzkd tests: start and stop a daemon, gRPC clients from
// @grpc/grpc-js (the proto loaded with keepCase), raw HTTP/2 and raw socket access for the
// malformed-input checks, independent proof verification with `cuzk verify-params`, and a
// tally that ends with the line "N passed, M failed".
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import http2 from 'node:http2';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');
export const PROTO = path.join(ROOT, 'proto/cuzk/v1/proving.proto');
export const METHOD = (m) => `/cuzk.v1.ProvingEngine/${m}`;

const def = protoLoader.loadSync(PROTO, { keepCase: true, longs: Number, enums: String, defaults: true });
export const pkg = grpc.loadPackageDefinition(def).cuzk.v1;
export const { status: Status } = grpc;

let passes = 0;
let fails = 0;
export function ok(cond, what, detail) {
  if (cond) {
    passes++;
    console.log(`ok   ${what}`);
  } else {
    fails++;
    console.log(`FAIL ${what}${detail !== undefined ? `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}` : ''}`);
  }
  return cond;
}
export function finish() {
  console.log(`${passes} passed, ${fails} failed`);
  process.exitCode = fails ? 1 : 0;
  return fails;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A daemon: spawns `cuzkd args...` with its log in dir/name.log and waits until addr answers.
export class Daemon {
  constructor(bin, args, logPath) {
    this.bin = bin;
    this.args = args;
    this.logPath = logPath;
  }
  async start(probeUnixPath, timeoutMs = 60000) {
    const log = fs.openSync(this.logPath, 'a');
    this.proc = spawn(this.bin, this.args, { stdio: ['ignore', log, log] });
    fs.closeSync(log);
    this.exit = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
    const t0 = Date.now();
    while (Date.now() - t0 < timeoutMs) {
      if (this.proc.exitCode !== null) throw new Error(`cuzkd exited early:\n${this.log()}`);
      if (await canConnect(probeUnixPath)) return;
      await sleep(50);
    }
    throw new Error(`cuzkd did not come up within ${timeoutMs} ms:\n${this.log()}`);
  }
  log() {
    try {
      return fs.readFileSync(this.logPath, 'utf8');
    } catch {
      return '';
    }
  }
  signal(sig) {
    this.proc.kill(sig);
  }
  // waits for the exit; {code, signal, ms} or null after timeoutMs
  async waitExit(timeoutMs) {
    const t0 = Date.now();
    const r = await Promise.race([this.exit, sleep(timeoutMs).then(() => null)]);
    return r && { ...r, ms: Date.now() - t0 };
  }
}

function canConnect(unixPath) {
  return new Promise((resolve) => {
    const s = net.connect(unixPath);
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

export function client(addr) {
  return new pkg.ProvingEngine(addr, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': 512 << 20,
    'grpc.max_send_message_length': 512 << 20,
  });
}

// Promise of {err, res} for one unary call (never rejects).
export function call(c, method, req, deadlineMs) {
  return new Promise((resolve) => {
    const opts = deadlineMs ? { deadline: Date.now() + deadlineMs } : {};
    c[method](req, opts, (err, res) => resolve({ err, res }));
  });
}

// The request message of a method, encoded as the generated client would (for raw HTTP/2 calls).
export function encode(method, req) {
  return pkg.ProvingEngine.service[method].requestSerialize(req);
}

// A unary call with raw bytes as the request message (to send malformed protobuf).
export function rawCall(c, method, bytes) {
  return new Promise((resolve) => {
    c.makeUnaryRequest(METHOD(method), (b) => b, (b) => b, bytes, (err, res) => resolve({ err, res }));
  });
}

// One HTTP/2 request with our own headers and DATA; resolves {headers, trailers, data} or {error}.
export function h2Request(authority, socketPath, headers, body, { endStream = true } = {}) {
  return new Promise((resolve) => {
    const opts = socketPath ? { createConnection: () => net.connect(socketPath) } : {};
    const session = http2.connect(authority, opts);
    const out = { headers: null, trailers: null, data: Buffer.alloc(0) };
    session.on('error', (e) => resolve({ error: e.message }));
    const req = session.request(headers, { endStream: false });
    req.on('response', (h) => {
      out.headers = h;
      if (!endStream && h['grpc-status'] !== undefined) req.close(); // answered before we finished sending
    });
    req.on('trailers', (t) => (out.trailers = t));
    req.on('data', (d) => (out.data = Buffer.concat([out.data, d])));
    req.on('close', () => {
      session.close();
      resolve(out);
    });
    req.on('error', (e) => (out.error = e.message));
    if (body && body.length) req.write(body);
    if (endStream) req.end();
  });
}

// gRPC status of an h2Request result (trailers, or Trailers-Only headers).
export function h2Status(r) {
  const t = r.trailers && r.trailers['grpc-status'] !== undefined ? r.trailers : r.headers || {};
  return { code: t['grpc-status'] !== undefined ? Number(t['grpc-status']) : undefined,
           message: t['grpc-message'] ? decodeURIComponent(t['grpc-message']) : '' };
}

// Raw bytes on a fresh socket; resolves with what came back before the daemon closed it (or after ms).
export function rawSocket(socketPath, bytes, ms = 2000) {
  return new Promise((resolve) => {
    const s = net.connect(socketPath);
    let got = Buffer.alloc(0);
    let closed = false;
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ got, closed });
    }, ms);
    s.on('connect', () => s.write(bytes));
    s.on('data', (d) => (got = Buffer.concat([got, d])));
    s.on('close', () => {
      closed = true;
      clearTimeout(timer);
      resolve({ got, closed });
    });
    s.on('error', () => {});
  });
}

export function grpcFrame(msg, declaredLen) {
  const b = Buffer.alloc(5);
  b.writeUInt32BE(declaredLen === undefined ? msg.length : declaredLen, 1);
  return Buffer.concat([b, msg]);
}

// `cuzk verify-params VK WTNS PROOF` for each 192-byte proof in buf: number of proofs accepted.
export function verifyProofs(cuzk, vk, wtns, buf, dir, tag) {
  let accepted = 0;
  for (let i = 0; i * 192 < buf.length; i++) {
    const f = path.join(dir, `${tag}-${i}.bin`);
    fs.writeFileSync(f, buf.subarray(i * 192, (i + 1) * 192));
    try {
      execFileSync(cuzk, ['verify-params', vk, wtns, f], { stdio: 'pipe' });
      accepted++;
    } catch {
      /* rejected */
    }
  }
  return accepted;
}

// Exit status of `cuzk verify-params` on one proof (0 OK, 1 INVALID, 2 malformed).
export function verifyStatus(cuzk, vk, wtns, proof, file) {
  fs.writeFileSync(file, proof);
  try {
    execFileSync(cuzk, ['verify-params', vk, wtns, file], { stdio: 'pipe' });
    return 0;
  } catch (e) {
    return e.status;
  }
}
