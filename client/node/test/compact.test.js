// The tick's compact form (compact.js) against a real ikd: the 48-bit encoder
// held against codes computed here from the proto's description, and ticks of
// compact characters answered as the same characters sent as a Pose of the
// widened (or decoded) numbers. Run by client/node/test.sh IKD.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  Code, IkClient, applyFinalRotations, changedRotations, compactPose, dequantizeRotations,
  finalRoot, finalRotations, flatRotations, quantizeRotations, tickCharacter, widenedPose,
} from '../index.js';
import { startIkd } from './ikd.js';

// --- the encoding, from CompactPose.quantized_rotations' description --------
// bits 0-1: the largest component; then three 15-bit codes in x, y, z, w
// order; bit 47 zero. A component c is coded as the integer nearest
// (c * sqrt(2) + 1) * 0.5 * 32767, halves to even.

const SQRT2 = 1.4142135623730951;

function roundHalfEven(x) {
  let r = Math.round(x);              // halves up
  if (r - x === 0.5 && r % 2 !== 0) r -= 1;
  return r;
}

/** The 48 bits of q as a BigInt. */
function expectedBits(q) {
  const norm = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  let unit = q.map((c) => c / norm);
  let largest = 0;
  unit.forEach((c, i) => { if (Math.abs(c) > Math.abs(unit[largest])) largest = i; });
  if (unit[largest] < 0) unit = unit.map((c) => -c);
  let bits = BigInt(largest);
  let shift = 2n;
  unit.forEach((c, i) => {
    if (i === largest) return;
    const code = Math.min(Math.max(roundHalfEven((c * SQRT2 + 1) * 0.5 * 32767), 0), 32767);
    bits |= BigInt(code) << shift;
    shift += 15n;
  });
  return bits;
}

function bytesOf(...values) {
  const out = Buffer.alloc(6 * values.length);
  values.forEach((v, k) => {
    for (let b = 0; b < 6; b++) out[6 * k + b] = Number((v >> BigInt(8 * b)) & 0xFFn);
  });
  return out;
}

function decodedOf(bits) {
  const largest = Number(bits & 3n);
  const q = [0, 0, 0, 0];
  let squares = 0;
  let n = 0;
  for (let i = 0; i < 4; i++) {
    if (i === largest) continue;
    const code = Number((bits >> BigInt(2 + 15 * n++)) & 0x7FFFn);
    q[i] = (code / 32767 * 2 - 1) / SQRT2;
    squares += q[i] * q[i];
  }
  q[largest] = 1 - squares > 0 ? Math.sqrt(1 - squares) : 0;
  return q;
}

// A seeded generator (mulberry32) and uniform rotations (Shoemake).
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomRotation(next) {
  const [u1, u2, u3] = [next(), next(), next()];
  const a = Math.sqrt(1 - u1);
  const b = Math.sqrt(u1);
  const q = [a * Math.sin(2 * Math.PI * u2), a * Math.cos(2 * Math.PI * u2),
    b * Math.sin(2 * Math.PI * u3), b * Math.cos(2 * Math.PI * u3)];
  return next() < 0.5 ? q : q.map((c) => -c);
}

/** The angle of the rotation between unit quaternions a and b, radians. */
function angle(a, b) {
  const dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const s = dot < 0 ? -1 : 1;
  let minus = 0;
  let plus = 0;
  for (let i = 0; i < 4; i++) {
    minus += (a[i] - s * b[i]) ** 2;
    plus += (a[i] + s * b[i]) ** 2;
  }
  return 4 * Math.atan2(Math.sqrt(minus), Math.sqrt(plus));
}

function quat(flat, k) {
  return Array.from(flat.subarray(4 * k, 4 * k + 4));
}

// The next double above x > 0.
function nextUp(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  return view.getFloat64(0);
}

describe('quantizeRotations', () => {
  test('the identity packs the documented layout', () => {
    // w largest (3); x, y, z = 0: 16383.5, rounded to even: 16384.
    const identity = 3n | 16384n << 2n | 16384n << 17n | 16384n << 32n;
    assert.equal(identity, 0x400080010003n);
    assert.deepEqual(quantizeRotations([0, 0, 0, 1]), bytesOf(identity));
    assert.deepEqual(quantizeRotations([[0, 0, 0, 1], { x: 0, y: 0, z: 0, w: 1 }]),
      bytesOf(identity, identity));
    const [x, y, z, w] = dequantizeRotations(bytesOf(identity));
    assert.equal(x, (16384 / 32767 * 2 - 1) / SQRT2);
    assert.deepEqual([x, y, z, w], decodedOf(identity));
  });

  test('golden vectors', () => {
    const c = BigInt(roundHalfEven((0.5 * SQRT2 + 1) / 2 * 32767));
    assert.equal(c, 27968n);
    assert.deepEqual(quantizeRotations([0.5, 0.5, 0.5, 0.5]),
      bytesOf(0n | c << 2n | c << 17n | c << 32n));
    // z largest and negative: negated, so x = -0.1 is stored as +0.1.
    const q = [-0.1, 0.2, -0.9, 0.3];
    const bits = expectedBits(q);
    assert.equal(bits & 3n, 2n);
    assert.deepEqual(quantizeRotations(q), bytesOf(bits));
    assert.ok(Math.abs(decodedOf(bits)[0] - 0.1 / Math.hypot(...q)) < 3e-5);
    // Not a rotation: the identity.
    for (const bad of [[0, 0, 0, 0], [NaN, 0, 0, 1], [0, Infinity, 0, 1]]) {
      assert.deepEqual(quantizeRotations(bad), quantizeRotations([0, 0, 0, 1]));
    }
  });

  test('halves round to even', () => {
    // x stepped one double at a time (w making the norm exactly 1) until the
    // scaled component is exactly k + 0.5.
    const found = [0, 0];
    for (let k = 20000; k < 20400; k++) {
      let x = ((k + 0.5) / 32767 / 0.5 - 1) / SQRT2;
      for (let step = 0; step < 400; step++) {
        x = nextUp(x);
        const w = Math.sqrt(1 - x * x);
        if (x * x + w * w !== 1 || (x * SQRT2 + 1) * 0.5 * 32767 !== k + 0.5) continue;
        const bytes = quantizeRotations([x, 0, 0, w]);
        assert.equal(bytes[0] & 3, 3);
        const code = (bytes.readUInt32LE(0) >>> 2) & 0x7FFF;
        assert.equal(code, k % 2 === 0 ? k : k + 1, `k ${k} x ${x}`);
        found[k % 2]++;
        break;
      }
    }
    assert.ok(found[0] > 0 && found[1] > 0, `found ${found}`);
  });

  test('random rotations: the independent codes, back within 1.4e-4 rad', () => {
    const next = random(7);
    const rotations = Array.from({ length: 20000 }, () => randomRotation(next));
    const packed = quantizeRotations(new Float64Array(rotations.flat()));
    assert.deepEqual(packed, bytesOf(...rotations.map(expectedBits)));
    const back = dequantizeRotations(new Uint8Array(packed));
    let worst = 0;
    rotations.forEach((q, k) => {
      assert.deepEqual(quat(back, k), decodedOf(expectedBits(q)));
      assert.equal(packed[6 * k + 5] & 0x80, 0);
      worst = Math.max(worst, angle(q, quat(back, k)));
    });
    assert.ok(worst < 1.4e-4 && worst > 5e-5, `worst ${worst}`);
  });

  test('bad bytes are refused', () => {
    assert.throws(() => dequantizeRotations(Buffer.alloc(7)), /7 bytes: not 6 a joint/);
    assert.throws(() => dequantizeRotations(Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80])),
      /byte 6: bit 47/);
    assert.throws(() => compactPose([0, 0, 0, 1, 0]), /5 numbers: not 4 a joint/);
    assert.throws(() => compactPose([[0, 0, 0, 1], [0, 0, 0, 1]], { joints: [4, 2] }),
      /joints\[1\]: joint 2 does not come after 4/);
    assert.throws(() => tickCharacter('humanoid', [], { form: 'double' }), /form 'double'/);
  });
});

// --- ticks against a real ikd -------------------------------------------------

let ikd;
let client;
let rest;   // the humanoid's rest rotations, flat

before(async () => {
  ikd = await startIkd();
  client = new IkClient(ikd.target, { deadlineMs: 30000 });
  const { rig } = await client.getRig({ name: 'humanoid' });
  rest = flatRotations(rig.joints.map((j) => j.rest?.rotation ?? { x: 0, y: 0, z: 0, w: 1 }));
});

after(async () => {
  client?.close();
  const result = await ikd?.stop();
  assert.equal(result?.code, 0, `ikd exited with ${JSON.stringify(result)}:\n${ikd?.log()}`);
});

function quatMul(a, b) {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

/** Every joint's rest rotation turned by up to 0.15 rad, as float32 (an engine's). */
function animated(seed) {
  const next = random(seed);
  const out = new Float32Array(rest.length);
  for (let k = 0; k < rest.length / 4; k++) {
    const axis = [next() - 0.5, next() - 0.5, next() - 0.5];
    const half = next() * 0.075;
    const s = Math.sin(half) / Math.hypot(...axis);
    out.set(quatMul(quat(rest, k), [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(half)]), 4 * k);
  }
  return out;
}

function jobs(k) {
  return {
    goals: [
      { chain: 'left_arm', target: { x: 0.4, y: 1.1, z: 0.55 + 0.01 * k } },
      { chain: 'right_arm', target: { x: -0.45, y: 1.2, z: 0.6 } },
    ],
    ground: { ground: { terrains: ['stairs'] } },
    dynamics: { delta_time: 1 / 60, states: [] },
  };
}

/** The compact answer ikd gives, made from the Pose answer to the widened pose. */
function compactFromWidened(form, want, got) {
  const expected = structuredClone(want);
  expected.id = got.id;
  expected.compact_pose = {
    root: want.root,
    joints: want.joints,
    rotations: form === 'float' ? want.rotations.map(Math.fround) : [],
    // The package's encoder makes ikd's bytes from ikd's doubles.
    quantized_rotations: form === 'float' ? Buffer.alloc(0) : quantizeRotations(want.rotations),
    translated_joints: [],
    translations: [],
  };
  expected.root = null;
  expected.joints = [];
  expected.rotations = [];
  for (const chain of expected.dynamics.results) {
    assert.ok(chain.state.packed.length > 0);
    chain.state.packed_floats = chain.state.packed.map(Math.fround);
    chain.state.packed = [];
  }
  return expected;
}

describe('a tick in the compact form', () => {
  test('answered as the widened Pose, final pose in the same form, states carried', async () => {
    const forms = ['float', 'quantized', 'float', 'quantized'];
    const sent = forms.map((form, k) => animated(100 + k));
    const compact = forms.map((form, k) => tickCharacter('humanoid', sent[k], {
      id: `compact-${k}`, form, ...jobs(k),
      root: { translation: { x: 0.05 * k, y: 0, z: 0.45 },
        rotation: { x: 0, y: Math.sin(0.15 * k), z: 0, w: Math.cos(0.15 * k) } },
      // The second pair moves both clavicles' bones.
      translations: k >= 2 ? { 5: [0.09, 0.05, 0], 9: [-0.09, 0.05, 0] } : null,
    }));
    const reference = compact.map((c, k) => ({
      id: `reference-${k}`, rig: 'humanoid', pose: widenedPose(c.compact_pose), ...jobs(k),
    }));
    const n = forms.length;
    const stream = client.tickStream();
    try {
      for (let tick = 1; tick <= 3; tick++) {
        const answer = await stream.tick({
          job_rotations: true, characters: [...compact, ...reference],
        });
        for (let k = 0; k < n; k++) {
          const got = answer.characters[k];
          const want = answer.characters[n + k];
          assert.equal(got.status, null, got.status?.message);
          assert.ok(got.compact_pose, 'a compact answer');
          assert.equal(want.compact_pose, null);
          assert.ok(want.joints.length > 8);
          assert.deepEqual(got, compactFromWidened(forms[k], want, got), `tick ${tick} ${got.id}`);
          // The final rotations, read from either answer.
          const final = finalRotations(got, sent[k]);
          assert.ok(final instanceof Float32Array);
          const wanted = finalRotations(want, flatRotations(reference[k].pose.rotations));
          const { joints } = changedRotations(got);
          assert.deepEqual(joints, want.joints);
          for (const j of joints) {
            if (forms[k] === 'float') {
              assert.deepEqual(quat(final, j), quat(wanted, j).map(Math.fround));
            } else {
              assert.ok(angle(quat(final, j), quat(wanted, j)) < 1.4e-4, `joint ${j}`);
            }
          }
          assert.deepEqual(finalRoot(got), want.root);
          const [chain] = got.dynamics.results;
          assert.equal(chain.state.packed.length, 0);
          assert.equal(chain.state.packed_floats.length, 70);
          assert.equal(chain.reset, tick === 1 ? 'DYNAMICS_RESET_EMPTY_STATE' : 'DYNAMICS_RESET_NONE');
          // The next tick: the compact answer's states as they came, the same
          // numbers (doubles) for the reference.
          const states = got.dynamics.results.map((r) => r.state);
          compact[k].dynamics.states = states;
          reference[k].dynamics.states = states.map((s) => ({
            ...s, packed: s.packed_floats, packed_floats: [],
          }));
          // The engine applies the answer to its own array.
          const engine = sent[k].slice();
          applyFinalRotations(got, engine);
          assert.deepEqual(engine, final);
        }
      }
    } finally {
      await stream.close();
    }
  });

  test('the Pose form is answered in its own form', async () => {
    const rotations = animated(9);
    const character = tickCharacter('humanoid', rotations, { id: 'pose', form: 'pose', ...jobs(0) });
    assert.equal(character.compact_pose, undefined);
    assert.deepEqual(character.pose.rotations, Array.from(rotations));
    const plain = { id: 'pose', rig: 'humanoid', pose: { rotations: Array.from(rotations) }, ...jobs(0) };
    const { characters: [got, want] } = await client.tick({ characters: [character, plain] });
    assert.equal(got.compact_pose, null);
    assert.deepEqual(got, want);
    const final = finalRotations(got, rotations);
    assert.deepEqual(changedRotations(got).joints, got.joints);
    got.joints.forEach((j, k) => assert.deepEqual(quat(final, j),
      got.rotations.slice(4 * k, 4 * k + 4).map(Math.fround)));
  });

  test('a bad compact pose fails its character with its path', async () => {
    const identity = quantizeRotations([0, 0, 0, 1]);
    const flagged = Buffer.concat([identity, identity]);
    flagged[11] |= 0x80;
    const bad = {
      'compact_pose.rotations': { rotations: [0, 0, 0, 1, 0] },
      'compact_pose.quantized_rotations[6]': { quantized_rotations: flagged },
      'compact_pose.quantized_rotations': { quantized_rotations: Buffer.concat([identity, Buffer.alloc(1)]) },
      'compact_pose.rotations[4]': { rotations: [0, 0, 0, 1, 0, 0, 0, 2] },
      'compact_pose.joints[1]': { joints: [4, 2], rotations: [0, 0, 0, 1, 0, 0, 0, 1] },
      'compact_pose.translations': { translations: [0, 0.1, 0] },
    };
    const characters = [tickCharacter('humanoid', rest, { id: 'good' })];
    for (const [field, pose] of Object.entries(bad)) {
      characters.push({ id: field, rig: 'humanoid', compact_pose: pose, ...jobs(0) });
    }
    characters.push({ id: 'compact_pose', rig: 'humanoid', compact_pose: compactPose(rest),
      pose: { rotations: [0, 0, 0, 1] } });
    const answer = await client.tick({ characters });
    assert.equal(answer.characters[0].status, null);
    answer.characters.slice(1).forEach((result, i) => {
      const field = `characters[${i + 1}].${result.id}`;
      assert.equal(result.status?.code, Code.INVALID_ARGUMENT, result.id);
      assert.equal(result.status.field, field);
      assert.ok(result.status.message.startsWith(`${field}: `), result.status.message);
      assert.equal(result.compact_pose, null);
      assert.equal(result.goals.length, 0);
    });
    const message = (id) => answer.characters.find((r) => r.id === id).status.message;
    assert.match(message('compact_pose.rotations'), /5 numbers: not 4 a joint/);
    assert.match(message('compact_pose.quantized_rotations[6]'), /bit 47/);
    assert.match(message('compact_pose.rotations[4]'), /joint 1/);
  });
});
