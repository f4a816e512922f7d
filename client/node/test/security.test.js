// TLS, client certificates and bearer tokens against a real ikd
// (certificates from tests/e2e/make_certs.sh).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { Code, IkClient, IkError } from '../index.js';
import { REPO, startIkd, tempDir } from './ikd.js';

const READ_TOKEN = 'read-token-0123456789abcdef';
const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
const TARGET = { x: 0.45, y: 1.2, z: 0.15 };
const ARM = {
  name: 'node_secure_arm',
  joints: [
    { name: 'a', rest: { translation: { x: 0, y: 1, z: 0 } } },
    { name: 'b', parent: 'a', rest: { translation: { x: 0.3, y: 0, z: 0 } } },
    { name: 'c', parent: 'b', rest: { translation: { x: 0.25, y: 0, z: 0 } } },
  ],
  chains: [{ name: 'arm', root: 'a', tip: 'c' }],
};

let dir;
let certs;
let tokenFile;
const servers = [];
const clients = [];

before(() => {
  dir = tempDir();
  certs = path.join(dir, 'certs');
  execFileSync(path.join(REPO, 'tests/e2e/make_certs.sh'), [certs], { stdio: 'ignore' });
  tokenFile = path.join(dir, 'tokens');
  fs.writeFileSync(tokenFile, `read ${READ_TOKEN}\nadmin ${ADMIN_TOKEN}\n`);
});

after(async () => {
  for (const client of clients) client.close();
  for (const server of servers) {
    const result = await server.stop();
    assert.equal(result.code, 0, `ikd exited with ${JSON.stringify(result)}:\n${server.log()}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

function track(client) {
  clients.push(client);
  return client;
}

describe('mutual TLS and tokens', () => {
  let ikd;
  const tls = () => ({
    ca: path.join(certs, 'ca.crt'),
    cert: path.join(certs, 'client.crt'),
    key: path.join(certs, 'client.key'),
    // The certificate's name (it has IP:127.0.0.1 too; a name avoids Node's
    // warning about an IP address as the TLS server name).
    serverName: 'localhost',
  });

  before(async () => {
    ikd = await startIkd([
      `--tls_cert=${certs}/server.crt`, `--tls_key=${certs}/server.key`,
      `--tls_client_ca=${certs}/ca.crt`, `--token_file=${tokenFile}`,
    ]);
    servers.push(ikd);
  });

  test('an admin token registers and deletes; a read token solves', async () => {
    const admin = track(new IkClient(ikd.target, { tls: tls(), token: ADMIN_TOKEN }));
    const registered = await admin.registerRig({ rig: ARM });
    assert.equal(registered.created, true);
    const reader = track(new IkClient(ikd.target, { tls: tls(), token: READ_TOKEN }));
    const answer = await reader.solveChain({
      rig: 'humanoid', goals: [{ chain: 'left_arm', target: TARGET }],
    });
    assert.equal(answer.results[0].reached, true);
    const { rigs } = await reader.listRigs();
    assert.ok(rigs.some((r) => r.name === ARM.name));
    // A read token may not change the registry.
    await assert.rejects(reader.registerRig({ rig: { ...ARM, name: 'node_other_arm' } }),
      (error) => {
        assert.ok(error instanceof IkError);
        assert.equal(error.code, Code.PERMISSION_DENIED);
        assert.equal(error.codeName, 'PERMISSION_DENIED');
        assert.match(error.message, /RegisterRig needs an admin token/);
        return true;
      });
    await assert.rejects(reader.deleteRig({ name: ARM.name }),
      (error) => error.code === Code.PERMISSION_DENIED);
    // A per-call token overrides the client's.
    const deleted = await reader.deleteRig({ name: ARM.name }, { token: ADMIN_TOKEN });
    assert.equal(deleted.revision, registered.revision);
  });

  test('no token is UNAUTHENTICATED; health needs none', async () => {
    const anonymous = track(new IkClient(ikd.target, { tls: tls() }));
    await assert.rejects(anonymous.solveChain({
      rig: 'humanoid', goals: [{ chain: 'left_arm', target: TARGET }],
    }), (error) => {
      assert.ok(error instanceof IkError);
      assert.equal(error.code, Code.UNAUTHENTICATED);
      assert.equal(error.codeName, 'UNAUTHENTICATED');
      return true;
    });
    await assert.rejects(anonymous.listRigs({}, { token: 'not-a-token-0123456789' }),
      (error) => error.code === Code.UNAUTHENTICATED);
    assert.equal(await anonymous.health(), 'SERVING');
  });

  test('the tick stream carries the token', async () => {
    const reader = track(new IkClient(ikd.target, { tls: tls(), token: READ_TOKEN }));
    const stream = reader.tickStream();
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await stream.tick({
          characters: [{ id: 'x', rig: 'humanoid', goals: [{ chain: 'left_arm', target: TARGET }] }],
        });
        assert.equal(answer.characters[0].goals[0].reached, true);
      }
    } finally {
      await stream.close();
    }
    const anonymous = track(new IkClient(ikd.target, { tls: tls() }));
    const refused = anonymous.tickStream();
    await assert.rejects(refused.tick({
      characters: [{ id: 'x', rig: 'humanoid', goals: [{ chain: 'left_arm', target: TARGET }] }],
    }), (error) => error.code === Code.UNAUTHENTICATED);
    await refused.close();
  });

  test('without a client certificate, or in plaintext, the call is UNAVAILABLE', async () => {
    const noCert = track(new IkClient(ikd.target, {
      tls: { ca: path.join(certs, 'ca.crt'), serverName: 'localhost' }, token: ADMIN_TOKEN, deadlineMs: 3000,
    }));
    await assert.rejects(noCert.listRigs(), (error) => error.code === Code.UNAVAILABLE);
    const plain = track(new IkClient(ikd.target, { token: ADMIN_TOKEN, deadlineMs: 3000 }));
    await assert.rejects(plain.listRigs(), (error) => error.code === Code.UNAVAILABLE);
  });
});

describe('tokens on a plaintext channel', () => {
  let ikd;
  before(async () => {
    ikd = await startIkd([`--token_file=${tokenFile}`]);
    servers.push(ikd);
  });

  test('the bearer token is sent as metadata without TLS', async () => {
    const reader = track(new IkClient(ikd.target, { token: READ_TOKEN }));
    const answer = await reader.solveChain({
      rig: 'humanoid', goals: [{ chain: 'left_arm', target: TARGET }],
    });
    assert.equal(answer.results[0].reached, true);
    await assert.rejects(reader.registerRig({ rig: ARM }),
      (error) => error.code === Code.PERMISSION_DENIED);
    const anonymous = track(new IkClient(ikd.target));
    await assert.rejects(anonymous.listRigs(), (error) => error.code === Code.UNAUTHENTICATED);
  });
});
