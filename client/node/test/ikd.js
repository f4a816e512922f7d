// Test helper: starts a real ikd (the binary in $IKD, else the repository's
// build/server/ikd) on a free loopback port, waits for its "ikd: listening
// on HOST:PORT ..." line and stops it with SIGTERM (by its pid) at the end.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export function ikdBinary() {
  const ikd = process.env.IKD || path.join(REPO, 'build/server/ikd');
  if (!fs.existsSync(ikd)) {
    throw new Error(`no ikd binary at ${ikd}: build it (scripts/build.sh) or set IKD to one`);
  }
  return ikd;
}

export function tempDir(prefix = 'ikd-node-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Starts ikd serving examples/rigs and examples/terrains with `extraArgs`.
 * Resolves with {target, pid, log(), stop()}.
 */
export function startIkd(extraArgs = [], { timeoutMs = 120000 } = {}) {
  const args = ['--listen=127.0.0.1:0', `--rig_dir=${REPO}/examples/rigs`,
    `--terrain_dir=${REPO}/examples/terrains`, ...extraArgs];
  const child = spawn(ikdBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let exited = null;
  const exit = new Promise((resolve) => {
    child.on('exit', (code, signal) => { exited = { code, signal }; resolve(exited); });
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ikd did not start listening within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => { clearTimeout(timer); reject(error); });
    exit.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`ikd exited (${code ?? signal}) before listening:\n${stderr}`));
    });
    child.stderr.setEncoding('utf8');
    let listening = false;
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (listening) return;
      const match = /^ikd: listening on (\S+) /m.exec(stderr);
      if (!match) return;
      listening = true;
      clearTimeout(timer);
      resolve({
        target: match[1],
        pid: child.pid,
        log: () => stderr,
        async stop() {
          if (exited) return exited;
          process.kill(child.pid, 'SIGTERM');
          const killer = setTimeout(() => process.kill(child.pid, 'SIGKILL'), 20000);
          const result = await exit;
          clearTimeout(killer);
          return result;
        },
      });
    });
  });
}
