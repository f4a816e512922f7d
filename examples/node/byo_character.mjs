#!/usr/bin/env node
// Bring your own character, from Node.js: a rig imported from glTF
// (`ikctl rigs import`), given a dynamic chain, registered, then solved,
// grounded and stepped through a running ikd with the client package; then
// the same three jobs in one tick, the pose sent as an engine holds it in the
// tick's compact form (float32 rotations by default).
//
//   ikctl rigs import examples/gltf/hero.gltf --name=hero > hero.json
//   node examples/node/byo_character.mjs --server 127.0.0.1:50051 --rig-json hero.json
//     [--ca ca.crt [--cert client.crt --key client.key]] [--token-file FILE]
//     [--pose-form float|quantized|pose]
//
// The server needs the `stairs` terrain (ikd --terrain_dir=examples/terrains)
// and an admin token when it asks for tokens (registering is an admin call).
// Output, one greppable line per answer:
//   registered hero sha256:... (created)
//   left_arm: reached=true residual=... iterations=... solver=... tip=(x, y, z)
//   ground left_leg: grounded=true reached=true contact=(x, y, z) moved=...
//   dynamics step 60: tip=(x, y, z)
//   tick hero (float): status=OK reached=1/1 grounded=2/2 turned=... states=...
// Errors print `error: CODE: message` and exit 1.
import fs from 'node:fs';
import { parseArgs } from 'node:util';

import {
  IkClient, IkError, POSE_FORMS, applyFinalRotations, changedRotations, tickCharacter,
} from '../../client/node/index.js';

const USAGE = 'usage: byo_character.mjs --server HOST:PORT --rig-json FILE ' +
  '[--ca FILE [--cert FILE --key FILE]] [--token-file FILE] ' +
  `[--pose-form ${POSE_FORMS.join('|')}]`;

function parseArguments() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        server: { type: 'string' },
        'rig-json': { type: 'string' },
        ca: { type: 'string' },
        cert: { type: 'string' },
        key: { type: 'string' },
        'token-file': { type: 'string' },
        'pose-form': { type: 'string', default: 'float' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    console.error(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (!values.server || !values['rig-json']) {
    console.error(USAGE);
    process.exit(2);
  }
  if (Boolean(values.cert) !== Boolean(values.key)) {
    console.error(`--cert and --key go together\n${USAGE}`);
    process.exit(2);
  }
  if (!POSE_FORMS.includes(values['pose-form'])) {
    console.error(`--pose-form: one of ${POSE_FORMS.join(', ')}\n${USAGE}`);
    process.exit(2);
  }
  if ((values.cert || values.key) && !values.ca) {
    console.error(`--cert and --key need --ca (TLS)\n${USAGE}`);
    process.exit(2);
  }
  return values;
}

// --- The rig's JSON -> the client's message objects -------------------------
//
// `ikctl rigs import` prints protobuf's JSON mapping with the proto's field
// names (`dynamic_chains`, `ankle_height`), enums by name, 64-bit integers
// as strings, and each oneof as the member that is set (a Joint's
// `parent_ref` oneof appears as `"parent": "mixamorig_Hips"` or
// `"parent_index": 0`). The client loads the protos with keepCase, so its
// messages take exactly those names: protobufjs reads a oneof from whichever
// member is present (the `parent_ref` key the client adds to *answers* is
// only a marker and ignored in requests). What protobuf's JSON parsers also
// accept but a keepCase message would silently drop is converted here:
// lowerCamelCase keys (`dynamicChains`, the json_name form other tools
// print) become the proto names, and "NaN" / "Infinity" strings become
// numbers (the server then refuses them with the field's path).
function snakeCase(key) {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function toMessage(value) {
  if (Array.isArray(value)) return value.map(toMessage);
  if (value === 'NaN') return NaN;
  if (value === 'Infinity') return Infinity;
  if (value === '-Infinity') return -Infinity;
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [key, member] of Object.entries(value)) out[snakeCase(key)] = toMessage(member);
  return out;
}

// --- Forward kinematics of the rest pose, in JS -------------------------------

const IDENTITY = { x: 0, y: 0, z: 0, w: 1 };

function vec(v) {
  return { x: v?.x ?? 0, y: v?.y ?? 0, z: v?.z ?? 0 };
}

function quat(q) {
  // An unset (or all-zero, i.e. defaulted) rotation is the identity.
  if (!q || (!q.x && !q.y && !q.z && !q.w)) return IDENTITY;
  const n = Math.hypot(q.x ?? 0, q.y ?? 0, q.z ?? 0, q.w ?? 0);
  return { x: (q.x ?? 0) / n, y: (q.y ?? 0) / n, z: (q.z ?? 0) / n, w: (q.w ?? 0) / n };
}

function qmul(a, b) {
  return {
    x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
    y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
    z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
    w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
  };
}

function rotate(q, v) {
  // v + 2w (u x v) + 2 u x (u x v), u = (q.x, q.y, q.z)
  const tx = 2 * (q.y * v.z - q.z * v.y);
  const ty = 2 * (q.z * v.x - q.x * v.z);
  const tz = 2 * (q.x * v.y - q.y * v.x);
  return {
    x: v.x + q.w * tx + (q.y * tz - q.z * ty),
    y: v.y + q.w * ty + (q.z * tx - q.x * tz),
    z: v.z + q.w * tz + (q.x * ty - q.y * tx),
  };
}

function add(a, b) { return { x: a.x + b.x, y: a.y + b.y, z: a.z + b.z }; }

function scaleOf(s) {
  // Unset (or defaulted to zeros): unit scale.
  if (!s || (!s.x && !s.y && !s.z)) return { x: 1, y: 1, z: 1 };
  return vec(s);
}

// A transform (scale, then rotation, then translation) applied to another:
// parent * local, scale carried through without shear as ikd does.
function compose(parent, local) {
  const scaled = {
    x: parent.s.x * local.t.x, y: parent.s.y * local.t.y, z: parent.s.z * local.t.z,
  };
  return {
    t: add(parent.t, rotate(parent.r, scaled)),
    r: qmul(parent.r, local.r),
    s: { x: parent.s.x * local.s.x, y: parent.s.y * local.s.y, z: parent.s.z * local.s.z },
  };
}

function fromProto(transform) {
  return {
    t: vec(transform?.translation),
    r: quat(transform?.rotation),
    s: scaleOf(transform?.scale),
  };
}

/** Model-space rest transforms of every joint, by name. */
function restModelTransforms(rig) {
  const model = new Map();
  rig.joints.forEach((joint, index) => {
    let parent = null;
    if (joint.parent !== undefined && joint.parent !== '') parent = joint.parent;
    else if (joint.parent_index !== undefined) parent = rig.joints[joint.parent_index]?.name;
    if (parent !== null && !model.has(parent)) {
      throw new Error(`joints[${index}] '${joint.name}': parent '${parent}' is not an earlier joint`);
    }
    const local = fromProto(joint.rest);
    model.set(joint.name, parent === null ? local : compose(model.get(parent), local));
  });
  return model;
}

function fmt(v, digits = 4) {
  return `(${v.x.toFixed(digits)}, ${v.y.toFixed(digits)}, ${v.z.toFixed(digits)})`;
}

// --- The program ---------------------------------------------------------------

async function main() {
  const args = parseArguments();
  const rig = toMessage(JSON.parse(fs.readFileSync(args['rig-json'], 'utf8')));
  rig.dynamic_chains = rig.dynamic_chains ?? [];
  rig.colliders = rig.colliders ?? [];

  // The importer proposes chains and legs from bone names but never a
  // dynamic chain (nothing in a glTF skin says which bones are hair or
  // cloth), so the ponytail is added here: hair_1 follows the head, hair_2
  // and hair_3 swing under gravity, a little drag, no pull back to the
  // animated pose, and a sphere around the head to keep them out of it.
  const names = new Set(rig.joints.map((joint) => joint.name));
  for (const needed of ['hair_1', 'mixamorig_Head']) {
    if (!names.has(needed)) throw new Error(`${args['rig-json']}: the rig has no joint '${needed}'`);
  }
  if (!rig.colliders.some((collider) => collider.name === 'head')) {
    rig.colliders.push({
      name: 'head', joint: 'mixamorig_Head',
      sphere: { center: { x: 0, y: 0.08, z: 0 }, radius: 0.08 },
    });
  }
  rig.dynamic_chains = rig.dynamic_chains.filter((chain) => chain.name !== 'ponytail');
  rig.dynamic_chains.push({
    name: 'ponytail',
    root: 'hair_1',
    drag: 0.08,
    stiffness: 0,
    radius: 0.02,
    substep: 1 / 120,
    max_substeps: 8,
    follow_the_leader: 0.9,
    colliders: ['head'],
  });

  const tls = args.ca ? { ca: args.ca, cert: args.cert, key: args.key } : undefined;
  const token = args['token-file']
    ? fs.readFileSync(args['token-file'], 'utf8').trim() : undefined;
  const client = new IkClient(args.server, { deadlineMs: 10000, tls, token });
  try {
    // Register (replacing an earlier registration of the same name).
    const registered = await client.registerRig({ rig, replace: true });
    const how = registered.created ? (registered.replaced ? 'replaced' : 'created') : 'unchanged';
    console.log(`registered ${registered.name} ${registered.revision} (${how})`);

    // Solve left_arm to a point 0.4 m forward and down from the shoulder
    // (the chain's root), found by forward kinematics of the rest pose.
    const rest = restModelTransforms(rig);
    const arm = rig.chains.find((chain) => chain.name === 'left_arm');
    if (!arm) throw new Error(`${args['rig-json']}: the rig has no chain 'left_arm'`);
    const shoulder = rest.get(arm.root).t;
    const dir = { x: 0.15, y: -0.5, z: 0.85 };   // a little out, down, mostly forward (+Z)
    const len = Math.hypot(dir.x, dir.y, dir.z);
    const target = add(shoulder, { x: 0.4 * dir.x / len, y: 0.4 * dir.y / len, z: 0.4 * dir.z / len });
    console.log(`left_arm: shoulder ${arm.root} at ${fmt(shoulder)}, target ${fmt(target)}`);
    const solved = await client.solveChain({
      rig: rig.name, revision: registered.revision,
      goals: [{ chain: 'left_arm', target }],
    });
    const result = solved.results[0];
    console.log(`left_arm: reached=${result.reached} residual=${result.residual.toExponential(3)}` +
      ` iterations=${result.iterations} solver=${result.solver} tip=${fmt(result.effector)}`);
    for (const { name, rotation: q } of result.rotations) {
      console.log(`  ${name} rotation (${q.x.toFixed(6)}, ${q.y.toFixed(6)}, ${q.z.toFixed(6)}, ${q.w.toFixed(6)})`);
    }

    // Ground the feet on the `stairs` terrain, the character half a metre
    // forward as in the README's ground example (its feet over the first tread).
    const root = { translation: { x: 0, y: 0, z: 0.45 } };
    const grounded = await client.groundFeet({
      rig: rig.name, revision: registered.revision,
      pose: { root }, ground: { terrains: ['stairs'] },
    });
    console.log(`ground: pelvis_drop=${grounded.pelvis_drop.toFixed(4)}` +
      ` root_offset=${fmt(grounded.root_offset)} terrains=${grounded.terrain_revisions.join(',')}`);
    for (const foot of grounded.feet) {
      const contact = foot.ground_found ? fmt(foot.contact_point) : 'none';
      console.log(`ground ${foot.leg}: grounded=${foot.grounded} reached=${foot.reached}` +
        ` contact=${contact} moved=${foot.moved.toFixed(4)} tilt=${foot.tilt.toFixed(4)}`);
    }

    // Step the ponytail: 60 steps of 1/60 s, each sending back the state the
    // previous one returned. The character stands still at the origin.
    let states = [];
    for (let step = 1; step <= 60; step++) {
      const answer = await client.stepDynamics({
        rig: rig.name, revision: registered.revision,
        delta_time: 1 / 60, chains: ['ponytail'], states,
      });
      const chain = answer.results[0];
      const positions = chain.state.positions;
      const tip = positions[positions.length - 1];
      if (step === 1) {
        // The chain's last joint, at rest (world = model: the root is unset).
        const tipName = chain.joints[chain.joints.length - 1];
        console.log(`dynamics rest: tip ${tipName} at ${fmt(rest.get(tipName).t)}`);
      }
      if ([1, 10, 30, 60].includes(step)) {
        console.log(`dynamics step ${step}: tip=${fmt(tip)} substeps=${chain.substeps}` +
          ` reset=${chain.reset} joints=${chain.joints.join(',')}`);
      }
      states = [chain.state];
    }

    // The same three jobs in one tick, as a game sends its crowd: the pose
    // as the engine holds it (here the rest rotations, 4 floats a joint) in
    // the compact form, answered in the same form; the engine applies the
    // turned joints to its own array.
    const form = args['pose-form'];
    const engine = new Float32Array(4 * rig.joints.length);
    rig.joints.forEach((joint, j) => {
      const q = joint.rest?.rotation ?? { x: 0, y: 0, z: 0, w: 1 };
      engine.set([q.x ?? 0, q.y ?? 0, q.z ?? 0, q.w ?? 0], 4 * j);
    });
    const offset = root.translation;
    const ticked = await client.tick({
      characters: [tickCharacter(rig.name, engine, {
        id: 'hero', revision: registered.revision, form, root,
        goals: [{ chain: 'left_arm', target: add(target, offset) }],
        ground: { ground: { terrains: ['stairs'] } },
        dynamics: { delta_time: 1 / 60, chains: ['ponytail'] },
      })],
    });
    const hero = ticked.characters[0];
    const status = hero.status ? `${hero.status.code} ${hero.status.message}` : 'OK';
    const turned = changedRotations(hero).joints.map((j) => rig.joints[j].name);
    applyFinalRotations(hero, engine);
    const [ponytail] = hero.dynamics?.results ?? [];
    const state = ponytail?.state;
    console.log(`tick hero (${form}): status=${status}` +
      ` reached=${hero.goals.filter((g) => g.reached).length}/${hero.goals.length}` +
      ` grounded=${(hero.ground?.feet ?? []).filter((f) => f.grounded).length}/2` +
      ` turned=${turned.length}` +
      ` states=${state?.packed_floats.length ? 'float32' : 'double'}` +
      ` compact=${hero.compact_pose !== null}`);
    console.log(`tick hero turned: ${turned.join(',')}`);
  } finally {
    client.close();
  }
}

main().catch((error) => {
  if (error instanceof IkError) {
    console.error(`error: ${error.codeName}: ${error.message}`);
  } else {
    console.error(`error: ${error.message}`);
  }
  process.exit(1);
});
