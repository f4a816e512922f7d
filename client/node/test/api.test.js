// The client against a real ikd (plaintext): every method, the error model,
// deadlines. Run by client/node/test.sh IKD.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Code, IkClient, IkError } from '../index.js';
import { startIkd } from './ikd.js';

// --- forward kinematics in JS, on the rig as GetRig returns it -------------

function quatMul(a, b) {
  return {
    x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
    y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
    z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
    w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
  };
}

function rotate(q, v) {
  // v' = q v q*
  const p = quatMul(quatMul(q, { x: v.x, y: v.y, z: v.z, w: 0 }),
    { x: -q.x, y: -q.y, z: -q.z, w: q.w });
  return { x: p.x, y: p.y, z: p.z };
}

const IDENTITY = { x: 0, y: 0, z: 0, w: 1 };
const ZERO = { x: 0, y: 0, z: 0 };
const ONE = { x: 1, y: 1, z: 1 };

/** World transforms of every joint: rest pose, `overrides` (name -> local rotation). */
function forwardKinematics(rig, overrides) {
  const byName = new Map(rig.joints.map((joint, index) => [joint.name, index]));
  const world = [];
  rig.joints.forEach((joint, index) => {
    const rest = joint.rest ?? {};
    const t = rest.translation ?? ZERO;
    const s = rest.scale ?? ONE;
    const r = overrides.get(joint.name) ?? rest.rotation ?? IDENTITY;
    let parent = -1;
    if (joint.parent_ref === 'parent') parent = byName.get(joint.parent);
    else if (joint.parent_ref === 'parent_index') parent = joint.parent_index;
    assert.ok(parent < index, `joint ${joint.name}: parent after child`);
    if (parent < 0) {
      world.push({ t, r, s });
      return;
    }
    const p = world[parent];
    const scaled = { x: p.s.x * t.x, y: p.s.y * t.y, z: p.s.z * t.z };
    const moved = rotate(p.r, scaled);
    world.push({
      t: { x: p.t.x + moved.x, y: p.t.y + moved.y, z: p.t.z + moved.z },
      r: quatMul(p.r, r),
      s: { x: p.s.x * s.x, y: p.s.y * s.y, z: p.s.z * s.z },
    });
  });
  return new Map(rig.joints.map((joint, index) => [joint.name, world[index]]));
}

function distance(a, b) {
  return Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z);
}

// --- the tests --------------------------------------------------------------

let ikd;
let client;

before(async () => {
  ikd = await startIkd();
  client = new IkClient(ikd.target);
});

after(async () => {
  client?.close();
  const result = await ikd?.stop();
  assert.equal(result?.code, 0, `ikd exited with ${JSON.stringify(result)}:\n${ikd?.log()}`);
  assert.match(ikd.log(), /ikd: stopped/);
});

const TARGET = { x: 0.45, y: 1.2, z: 0.15 };

describe('solveChain', () => {
  test('a reachable target is reached, and FK of the answer gives the effector', async () => {
    const answer = await client.solveChain({
      rig: 'humanoid', goals: [{ chain: 'left_arm', target: TARGET }],
    });
    assert.match(answer.revision, /^sha256:[0-9a-f]{16}$/);
    assert.equal(answer.results.length, 1);
    const result = answer.results[0];
    assert.equal(result.chain, 'left_arm');
    assert.equal(result.reached, true);
    assert.equal(result.stop_reason, 'STOP_REASON_REACHED');
    assert.equal(result.solver, 'SOLVER_TWO_BONE');
    assert.ok(result.residual <= 1e-6, `residual ${result.residual}`);
    assert.ok(distance(result.effector, TARGET) <= 1e-6,
      `effector ${JSON.stringify(result.effector)}`);
    assert.deepEqual(result.rotations.map((r) => r.name), ['left_shoulder', 'left_elbow']);

    // Forward kinematics from the rig as stored, with the answer's rotations.
    const { rig, revision } = await client.getRig({ name: 'humanoid' });
    assert.equal(revision, answer.revision);
    const overrides = new Map(result.rotations.map((r) => [r.name, r.rotation]));
    const wrist = forwardKinematics(rig, overrides).get('left_wrist');
    assert.ok(distance(wrist.t, result.effector) <= 1e-6,
      `FK tip ${JSON.stringify(wrist.t)} vs effector ${JSON.stringify(result.effector)}`);
    // And the rest pose does not already reach (the answer did the work).
    const restWrist = forwardKinematics(rig, new Map()).get('left_wrist');
    assert.ok(distance(restWrist.t, TARGET) > 0.1);
  });

  test('an unreachable target is an answer with reached=false', async () => {
    const far = { x: 3, y: 1.2, z: 0 };
    const answer = await client.solveChain({
      rig: 'humanoid', goals: [{ chain: 'left_arm', target: far }],
    });
    const result = answer.results[0];
    assert.equal(result.reached, false);
    assert.notEqual(result.stop_reason, 'STOP_REASON_REACHED');
    assert.ok(result.residual > 1, `residual ${result.residual}`);
    assert.ok(Math.abs(distance(result.effector, far) - result.residual) < 1e-9);
  });

  test('a NaN target is INVALID_ARGUMENT naming goals[0].target', async () => {
    await assert.rejects(client.solveChain({
      rig: 'humanoid', goals: [{ chain: 'left_arm', target: { x: 0, y: NaN, z: 0 } }],
    }), (error) => {
      assert.ok(error instanceof IkError);
      assert.equal(error.code, Code.INVALID_ARGUMENT);
      assert.equal(error.codeName, 'INVALID_ARGUMENT');
      assert.equal(error.fieldPath, 'goals[0].target');
      assert.match(error.message, /^goals\[0\]\.target: not finite/);
      assert.equal(error.fieldViolations.length, 1);
      assert.equal(error.fieldViolations[0].field, 'goals[0].target');
      assert.match(error.fieldViolations[0].description, /not finite/);
      return true;
    });
  });

  test('an unknown chain is NOT_FOUND naming goals[0].chain', async () => {
    await assert.rejects(client.solveChain({
      rig: 'humanoid', goals: [{ chain: 'tentacle', target: TARGET }],
    }), (error) => {
      assert.ok(error instanceof IkError);
      assert.equal(error.code, Code.NOT_FOUND);
      assert.equal(error.codeName, 'NOT_FOUND');
      assert.equal(error.fieldPath, 'goals[0].chain');
      assert.equal(error.message, "goals[0].chain: rig 'humanoid' has no chain 'tentacle'");
      return true;
    });
  });

  test('a tiny deadline is DEADLINE_EXCEEDED; the default deadline still serves', async () => {
    // A 1,000-character tick cannot be sent, solved and answered in 1 ms.
    const characters = Array.from({ length: 1000 }, (_, i) => ({
      id: `c${i}`, rig: 'humanoid',
      goals: [{ chain: 'left_arm', target: TARGET },
        { chain: 'right_arm', target: { x: -0.45, y: 1.2, z: 0.15 } }],
    }));
    await assert.rejects(client.tick({ characters }, { deadlineMs: 1 }), (error) => {
      assert.ok(error instanceof IkError);
      assert.equal(error.code, Code.DEADLINE_EXCEEDED);
      assert.equal(error.codeName, 'DEADLINE_EXCEEDED');
      return true;
    });
    await assert.rejects(client.solveChain({
      rig: 'humanoid', goals: [{ chain: 'left_arm', target: TARGET }],
    }, { deadlineMs: 0 }), (error) => error.code === Code.DEADLINE_EXCEEDED);
    const answer = await client.solveChain({
      rig: 'humanoid', goals: [{ chain: 'left_arm', target: TARGET }],
    });
    assert.equal(answer.results[0].reached, true);
  });
});

describe('tick', () => {
  test('two characters: the bad one fails alone', async () => {
    const answer = await client.tick({
      characters: [
        { id: 'npc-1', rig: 'humanoid', goals: [{ chain: 'left_arm', target: TARGET }] },
        { id: 'npc-2', rig: 'humanoid', goals: [{ chain: 'tentacle', target: TARGET }] },
      ],
    });
    assert.equal(answer.characters.length, 2);
    const [good, bad] = answer.characters;
    assert.equal(good.id, 'npc-1');
    assert.equal(good.status, null);
    assert.equal(good.goals_status, null);
    assert.equal(good.goals.length, 1);
    assert.equal(good.goals[0].reached, true);
    assert.ok(good.joints.length >= 2, 'the final pose lists the turned joints');
    assert.equal(good.rotations.length, 4 * good.joints.length);
    assert.equal(bad.id, 'npc-2');
    assert.equal(bad.status, null);
    assert.equal(bad.goals_status.code, Code.NOT_FOUND);
    assert.equal(bad.goals_status.field, 'characters[1].goals[0].chain');
    assert.match(bad.goals_status.message, /has no chain 'tentacle'/);
    assert.equal(bad.joints.length, 0);
  });

  test('the tick stream: several ticks on one stream, matched by sequence', async () => {
    const stream = client.tickStream();
    try {
      const request = (i) => ({
        characters: [{
          id: `walker-${i}`, rig: 'humanoid',
          goals: [{ chain: 'left_arm', target: { x: 0.4, y: 1.1 + 0.02 * i, z: 0.15 } }],
        }],
      });
      // Sequential ticks with sequences assigned by the stream.
      for (let i = 1; i <= 3; i++) {
        const answer = await stream.tick(request(i));
        assert.equal(answer.sequence, String(i));
        assert.equal(answer.characters[0].id, `walker-${i}`);
        assert.equal(answer.characters[0].goals[0].reached, true);
      }
      // Several in flight at once, with the caller's own sequences.
      const answers = await Promise.all([10, 11, 12, 13].map((sequence, i) =>
        stream.tick({ ...request(i), sequence })));
      assert.deepEqual(answers.map((a) => a.sequence), ['10', '11', '12', '13']);
      answers.forEach((a, i) => assert.equal(a.characters[0].id, `walker-${i}`));
      // A tick that fails as a whole rejects; the stream goes on.
      await assert.rejects(stream.tick({ characters: [] }), (error) => {
        assert.ok(error instanceof IkError);
        assert.equal(error.code, Code.INVALID_ARGUMENT);
        return true;
      });
      const last = await stream.tick(request(5));
      assert.equal(last.characters[0].goals[0].reached, true);
    } finally {
      await stream.close();
    }
  });
});

describe('rigs', () => {
  const arm = {
    name: 'node_arm',
    joints: [
      { name: 'shoulder', rest: { translation: { x: 0, y: 1, z: 0 } } },
      { name: 'elbow', parent: 'shoulder', rest: { translation: { x: 0.3, y: 0, z: 0 } } },
      { name: 'wrist', parent: 'elbow', rest: { translation: { x: 0.25, y: 0, z: 0 } } },
    ],
    chains: [{ name: 'arm', root: 'shoulder', tip: 'wrist' }],
  };

  test('register, get, list, solve, delete', async () => {
    const registered = await client.registerRig({ rig: arm });
    assert.equal(registered.name, 'node_arm');
    assert.equal(registered.created, true);
    assert.match(registered.revision, /^sha256:[0-9a-f]{16}$/);
    const again = await client.registerRig({ rig: arm });
    assert.equal(again.created, false);
    assert.equal(again.revision, registered.revision);

    const { rig, revision } = await client.getRig({ name: 'node_arm' });
    assert.equal(revision, registered.revision);
    assert.deepEqual(rig.joints.map((j) => j.name), ['shoulder', 'elbow', 'wrist']);
    assert.deepEqual(rig.chains.map((c) => c.name), ['arm']);

    const { rigs } = await client.listRigs();
    assert.deepEqual(rigs.map((r) => r.name), ['humanoid', 'node_arm', 'tail']);
    const summary = rigs.find((r) => r.name === 'node_arm');
    assert.equal(summary.joint_count, 3);
    assert.deepEqual(summary.chains, ['arm']);

    const answer = await client.solveChain({
      rig: 'node_arm', revision, goals: [{ chain: 'arm', target: { x: 0.2, y: 1.3, z: 0.1 } }],
    });
    assert.equal(answer.results[0].reached, true);

    const deleted = await client.deleteRig({ name: 'node_arm' });
    assert.equal(deleted.revision, registered.revision);
    await assert.rejects(client.getRig({ name: 'node_arm' }), (error) => {
      assert.equal(error.code, Code.NOT_FOUND);
      assert.equal(error.fieldPath, 'name');
      return true;
    });
  });

  test('different content under a registered name is ALREADY_EXISTS without replace', async () => {
    const humanoid = (await client.getRig({ name: 'humanoid' })).rig;
    await assert.rejects(client.registerRig({ rig: { ...arm, name: 'humanoid' } }),
      (error) => error.code === Code.ALREADY_EXISTS && error.fieldPath === 'rig.name');
    assert.ok(humanoid.joints.length > 3);
  });
});

describe('terrains', () => {
  test('register, list, delete', async () => {
    const terrain = {
      name: 'node_patch',
      heightfield: {
        origin: { x: -1, y: 0, z: -1 }, spacing_x: 1, spacing_z: 1, columns: 3, rows: 3,
        heights: [0, 0, 0, 0, 0.1, 0, 0, 0, 0],
      },
    };
    const registered = await client.registerTerrain({ terrain });
    assert.equal(registered.created, true);
    const { terrains } = await client.listTerrains();
    assert.deepEqual(terrains.map((t) => t.name), ['node_patch', 'slope', 'stairs']);
    const patch = terrains.find((t) => t.name === 'node_patch');
    assert.equal(patch.kind, 'TERRAIN_KIND_HEIGHTFIELD');
    assert.equal(patch.revision, registered.revision);
    const deleted = await client.deleteTerrain({ name: 'node_patch' });
    assert.equal(deleted.revision, registered.revision);
    await assert.rejects(client.deleteTerrain({ name: 'node_patch' }),
      (error) => error.code === Code.NOT_FOUND && error.fieldPath === 'name');
  });
});

describe('groundFeet', () => {
  test('both feet grounded on the stairs tread', async () => {
    const answer = await client.groundFeet({
      rig: 'humanoid',
      pose: { root: { translation: { x: 0, y: 0, z: 0.45 } } },
      ground: { terrains: ['stairs'] },
      weights: [1, 1],
    });
    assert.equal(answer.feet.length, 2);
    assert.deepEqual(answer.feet.map((f) => f.leg), ['left_leg', 'right_leg']);
    for (const foot of answer.feet) {
      assert.equal(foot.grounded, true, `${foot.leg} grounded`);
      assert.equal(foot.reached, true, `${foot.leg} reached`);
      assert.ok(Math.abs(foot.contact_point.y - 0.3) < 1e-6,
        `${foot.leg} contact ${JSON.stringify(foot.contact_point)}`);
      assert.ok(Math.abs(foot.contact_normal.y - 1) < 1e-9);
      assert.ok(foot.moved > 0.29 && foot.moved < 0.31, `${foot.leg} moved ${foot.moved}`);
    }
    assert.ok(answer.rotations.length > 0);
    assert.equal(answer.terrain_revisions.length, 1);
  });

  test('an unknown terrain is NOT_FOUND naming ground.terrains[0]', async () => {
    await assert.rejects(client.groundFeet({
      rig: 'humanoid', ground: { terrains: ['atlantis'] },
    }), (error) => error.code === Code.NOT_FOUND && error.fieldPath === 'ground.terrains[0]');
  });
});

describe('stepDynamics', () => {
  test('the state is carried from step to step', async () => {
    let states = [];
    let tip = null;
    const tips = [];
    for (let step = 0; step < 30; step++) {
      const answer = await client.stepDynamics({
        rig: 'humanoid', delta_time: 1 / 60, states,
      });
      assert.equal(answer.results.length, 1);
      const result = answer.results[0];
      assert.equal(result.chain, 'ponytail');
      assert.equal(result.reset, step === 0 ? 'DYNAMICS_RESET_EMPTY_STATE' : 'DYNAMICS_RESET_NONE');
      assert.ok(result.substeps >= 1);
      assert.equal(result.state.chain, 'ponytail');
      const positions = result.state.positions;
      assert.equal(positions.length, 7);
      tip = positions[positions.length - 1];
      tips.push(tip);
      states = [result.state];
    }
    // The ponytail starts straight back from the head and swings down.
    assert.ok(tips[29].y < tips[0].y - 0.05, `tip ${JSON.stringify(tips[0])} -> ${JSON.stringify(tip)}`);
    // A state without its history restarts at rest: carrying it matters.
    const fresh = await client.stepDynamics({ rig: 'humanoid', delta_time: 1 / 60 });
    assert.equal(fresh.results[0].reset, 'DYNAMICS_RESET_EMPTY_STATE');
  });
});

describe('health', () => {
  test('the server and the API are SERVING', async () => {
    assert.equal(await client.health(), 'SERVING');
    assert.equal(await client.health('ik.v1.IkService'), 'SERVING');
  });
});
