// The tick's compact form (ik.v1 CompactPose, proto/ik/v1/tick.proto): a
// character's pose as an engine holds it -- local rotations by joint index as
// float32 (x, y, z, w per joint) or 48-bit "smallest three" codes (6 bytes a
// joint), and float32 translations only for the joints whose bone differs
// from the rig's. A tick answers a character sent this way in the same form:
// `compact_pose` holds the joints the jobs turned and their rotations in the
// request's encoding, and the dynamics states come as `packed_floats` (send
// them back as they came).
//
// Written from the proto's description of the encoding. Rotations are taken
// as a flat array-like of numbers (Float32Array, Float64Array, number[]:
// x, y, z, w per joint) or an array of [x, y, z, w] or {x, y, z, w}.

/** Bytes per joint of CompactPose.quantized_rotations. */
export const QUANTIZED_BYTES = 6;

/** The forms tickCharacter can send a pose in (the first is the default). */
export const POSE_FORMS = Object.freeze(['float', 'quantized', 'pose']);

const SQRT2 = 1.4142135623730951;   // sqrt(2), correctly rounded
const CODE_MAX = 32767;              // 15-bit codes
const TWO_POW_32 = 2 ** 32;

/**
 * The rotations as one flat Float64Array, x, y, z, w per joint.
 * @param {ArrayLike<number> | Array<ArrayLike<number> | {x:number,y:number,z:number,w:number}>} rotations
 */
export function flatRotations(rotations) {
  const n = rotations?.length ?? 0;
  if (n === 0) return new Float64Array(0);
  const first = rotations[0];
  if (typeof first === 'number') {
    if (n % 4 !== 0) throw new RangeError(`${n} numbers: not 4 a joint (x, y, z, w)`);
    return Float64Array.from(rotations);
  }
  const out = new Float64Array(4 * n);
  for (let k = 0; k < n; k++) {
    const q = rotations[k];
    if (q !== null && typeof q === 'object' && 'w' in q) {
      out[4 * k] = q.x ?? 0;
      out[4 * k + 1] = q.y ?? 0;
      out[4 * k + 2] = q.z ?? 0;
      out[4 * k + 3] = q.w ?? 0;
    } else if (q?.length === 4) {
      for (let i = 0; i < 4; i++) out[4 * k + i] = q[i];
    } else {
      throw new RangeError(`rotation ${k}: not [x, y, z, w] or {x, y, z, w}`);
    }
  }
  return out;
}

// The integer nearest x, halves to the even one (C's nearbyint); x - floor(x)
// is exact for the magnitudes met here.
function nearestEven(x) {
  const below = Math.floor(x);
  const rest = x - below;
  if (rest > 0.5) return below + 1;
  if (rest < 0.5) return below;
  return below % 2 === 0 ? below : below + 1;
}

// The 48-bit code of rotation q[4k .. 4k+3], written at out[6k .. 6k+5].
function pack(q, k, out) {
  let x = q[4 * k];
  let y = q[4 * k + 1];
  let z = q[4 * k + 2];
  let w = q[4 * k + 3];
  const norm = Math.sqrt(x * x + y * y + z * z + w * w);
  if (Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z) &&
      Number.isFinite(w) && norm > 0) {
    x /= norm; y /= norm; z /= norm; w /= norm;
  } else {
    x = 0; y = 0; z = 0; w = 1;
  }
  const c = [x, y, z, w];
  let largest = 0;
  for (let i = 1; i < 4; i++) {
    if (Math.abs(c[i]) > Math.abs(c[largest])) largest = i;
  }
  const sign = c[largest] < 0 ? -1 : 1;
  let value = largest;
  let scale = 4;   // 2 ** shift, shift = 2, 17, 32
  for (let i = 0; i < 4; i++) {
    if (i === largest) continue;
    const code = Math.min(Math.max(
      nearestEven((sign * c[i] * SQRT2 + 1) * 0.5 * CODE_MAX), 0), CODE_MAX);
    value += code * scale;
    scale *= 2 ** 15;
  }
  out.writeUIntLE(value, QUANTIZED_BYTES * k, QUANTIZED_BYTES);
}

/**
 * The rotations as CompactPose.quantized_rotations: 6 bytes a joint. Each is
 * normalised (one not finite, or zero, is encoded as the identity), negated
 * if its largest component (the first of equal magnitude, in x, y, z, w
 * order) is negative, and each other component c stored as the 15-bit code
 * nearest (c * sqrt(2) + 1) / 2 * 32767, halves to even. Decoded, a rotation
 * is within 1.4e-4 rad of the one encoded.
 * @returns {Buffer}
 */
export function quantizeRotations(rotations) {
  const q = flatRotations(rotations);
  const joints = q.length / 4;
  const out = Buffer.alloc(QUANTIZED_BYTES * joints);
  for (let k = 0; k < joints; k++) pack(q, k, out);
  return out;
}

function asBuffer(bytes) {
  if (Buffer.isBuffer(bytes)) return bytes;
  if (typeof bytes === 'string') return Buffer.from(bytes, 'base64');
  if (ArrayBuffer.isView(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Buffer.from(bytes ?? []);
}

/**
 * CompactPose.quantized_rotations decoded, as ikd reads them: a flat
 * Float64Array, x, y, z, w per 6 bytes. Throws a RangeError when the length
 * is not a multiple of 6 or a rotation's bit 47 is set.
 * @param {Uint8Array | string} bytes (a string: base64)
 */
export function dequantizeRotations(bytes) {
  const data = asBuffer(bytes);
  if (data.length % QUANTIZED_BYTES !== 0) {
    throw new RangeError(`${data.length} bytes: not ${QUANTIZED_BYTES} a joint`);
  }
  const joints = data.length / QUANTIZED_BYTES;
  const out = new Float64Array(4 * joints);
  for (let k = 0; k < joints; k++) {
    const offset = QUANTIZED_BYTES * k;
    if (data[offset + 5] & 0x80) throw new RangeError(`byte ${offset}: bit 47 of the 48 is set`);
    const low = data.readUInt32LE(offset);            // bits 0-31
    const high = data.readUInt16LE(offset + 4);       // bits 32-47
    const largest = low & 3;
    const codes = [(low >>> 2) & 0x7FFF, (low >>> 17) & 0x7FFF, high & 0x7FFF];
    let squares = 0;
    let n = 0;
    for (let i = 0; i < 4; i++) {
      if (i === largest) continue;
      const c = (codes[n++] / CODE_MAX * 2 - 1) / SQRT2;
      out[4 * k + i] = c;
      squares += c * c;
    }
    const rest = 1 - squares;
    out[4 * k + largest] = rest > 0 ? Math.sqrt(rest) : 0;
  }
  return out;
}

function jointList(joints, count) {
  const listed = Array.from(joints, Number);
  listed.forEach((joint, k) => {
    if (!Number.isInteger(joint) || joint < 0) {
      throw new RangeError(`joints[${k}]: ${joint} is not a joint index`);
    }
    if (k > 0 && joint <= listed[k - 1]) {
      throw new RangeError(`joints[${k}]: joint ${joint} does not come after ` +
        `${listed[k - 1]}: joints are given ascending, each once`);
    }
  });
  if (listed.length !== count) {
    throw new RangeError(`${count} rotations for ${listed.length} joints: one a joint`);
  }
  return listed;
}

// [[joint, [x, y, z]], ...] ascending, from a Map or an object keyed by
// joint index whose values are [x, y, z] or {x, y, z}.
function translationList(translations) {
  if (!translations) return [];
  const entries = translations instanceof Map
    ? [...translations.entries()] : Object.entries(translations);
  return entries.map(([joint, t]) => {
    const index = Number(joint);
    if (!Number.isInteger(index) || index < 0) {
      throw new RangeError(`translations: ${joint} is not a joint index`);
    }
    const v = t !== null && typeof t === 'object' && 'x' in t
      ? [t.x ?? 0, t.y ?? 0, t.z ?? 0] : Array.from(t);
    if (v.length !== 3) throw new RangeError(`translation of joint ${joint}: not 3 numbers`);
    return [index, v];
  }).sort((a, b) => a[0] - b[0]);
}

/**
 * A CompactPose of the local rotations an engine holds.
 * @param rotations x, y, z, w per joint (flat, or one [x, y, z, w] or
 *   {x, y, z, w} a joint): joints 0, 1, 2, ... or those `joints` names;
 *   joints not given keep their rest rotation
 * @param options.root the character's root transform (unset: identity)
 * @param options.quantized 48-bit rotations (6 bytes a joint, within
 *   1.4e-4 rad) instead of float32 (within 1.2e-7 rad)
 * @param options.joints the joints the rotations are for, ascending
 * @param options.translations {joint: [x, y, z]} (or a Map) for the joints
 *   whose bone differs from the rig's rest translation
 * Numbers are rounded to float32 here, as they travel. ikd answers in the
 * encoding the rotations came in; a pose without rotations (the rest pose,
 * moved by its root) is answered as float32.
 */
export function compactPose(rotations = [], options = {}) {
  const { root = null, quantized = false, joints = null, translations = null } = options;
  const q = flatRotations(rotations);
  const pose = { root };
  if (joints !== null && joints !== undefined) pose.joints = jointList(joints, q.length / 4);
  if (quantized) pose.quantized_rotations = quantizeRotations(q);
  else pose.rotations = Array.from(q, Math.fround);
  const moved = translationList(translations);
  if (moved.length > 0) {
    pose.translated_joints = moved.map(([joint]) => joint);
    pose.translations = moved.flatMap(([, t]) => t.map(Math.fround));
  }
  return pose;
}

/**
 * The same engine data as compactPose, as a Pose of doubles: the form every
 * RPC takes (Pose.rotations for joints 0, 1, 2, ...; one JointPose a joint
 * when `options.joints` names them).
 */
export function plainPose(rotations = [], options = {}) {
  const { root = null, joints = null, translations = null } = options;
  const q = flatRotations(rotations);
  const pose = { root };
  const byJoint = new Map();
  if (joints === null || joints === undefined) {
    pose.rotations = Array.from(q);
  } else {
    pose.joints = jointList(joints, q.length / 4).map((joint, k) => {
      const entry = {
        index: joint,
        local: { rotation: { x: q[4 * k], y: q[4 * k + 1], z: q[4 * k + 2], w: q[4 * k + 3] } },
      };
      byJoint.set(joint, entry);
      return entry;
    });
  }
  for (const [joint, [x, y, z]] of translationList(translations)) {
    let entry = byJoint.get(joint);
    if (!entry) {
      entry = { index: joint, local: {} };
      (pose.joints ??= []).push(entry);
    }
    entry.local.translation = { x, y, z };
  }
  pose.joints?.sort((a, b) => a.index - b.index);
  return pose;
}

/**
 * A TickCharacter whose pose is the engine's rotations.
 * @param options.form 'float' (the default) or 'quantized': a compactPose,
 *   answered in the same form; 'pose': a plainPose, answered in `root`,
 *   `joints` and `rotations` (doubles)
 * The other options (`id`, `root`, `joints`, `translations`, and the
 * character's fields: `goals`, `ground`, `dynamics`, `check`, `revision`)
 * go where they belong.
 */
export function tickCharacter(rig, rotations = [], options = {}) {
  const { form = 'float', root, joints, translations, ...fields } = options;
  if (!POSE_FORMS.includes(form)) {
    throw new RangeError(`form '${form}': one of ${POSE_FORMS.join(', ')}`);
  }
  const character = { ...fields, rig };
  if (form === 'pose') {
    character.pose = plainPose(rotations, { root, joints, translations });
  } else {
    character.compact_pose = compactPose(rotations, {
      root, joints, translations, quantized: form === 'quantized',
    });
  }
  return character;
}

function compactRotations(pose) {
  const bytes = pose.quantized_rotations;
  if (bytes && bytes.length > 0) {
    if (pose.rotations?.length > 0) throw new RangeError('both rotations and quantized_rotations are set');
    return dequantizeRotations(bytes);
  }
  return Float64Array.from(pose.rotations ?? [], Math.fround);
}

/**
 * The Pose whose doubles are a CompactPose's numbers, float32 widened and
 * quantized rotations decoded: by the precision contract of CompactPose,
 * ikd answers a compact character as it answers this pose.
 */
export function widenedPose(pose) {
  const joints = pose.joints?.length > 0 ? pose.joints : null;
  const translated = pose.translated_joints ?? [];
  const numbers = pose.translations ?? [];
  if (numbers.length !== 3 * translated.length) {
    throw new RangeError(`${numbers.length} translation numbers for ` +
      `${translated.length} translated joints: 3 a joint`);
  }
  const translations = new Map(translated.map((joint, k) =>
    [joint, [0, 1, 2].map((i) => Math.fround(numbers[3 * k + i]))]));
  return plainPose(compactRotations(pose), { root: pose.root ?? null, joints, translations });
}

/**
 * The joints a tick's jobs turned, ascending, and their final local
 * rotations (flat, x, y, z, w per joint), from the answer's compact_pose
 * (float32 or quantized) or, for a character sent as a Pose, its `joints`
 * and `rotations`. Empty for a failed character.
 * @returns {{joints: number[], rotations: Float64Array}}
 */
export function changedRotations(result) {
  const compact = result.compact_pose;
  const joints = compact ? compact.joints : result.joints;
  const rotations = compact ? compactRotations(compact) : Float64Array.from(result.rotations ?? []);
  if (rotations.length !== 4 * (joints?.length ?? 0)) {
    throw new RangeError(`${rotations.length / 4} rotations for ${joints?.length ?? 0} joints`);
  }
  return { joints: Array.from(joints ?? []), rotations };
}

/**
 * Writes the joints the jobs turned into `target`, a flat array-like of x, y,
 * z, w per joint (a Float32Array the engine holds, say), in place; the other
 * joints are left as they are. Returns `target`.
 */
export function applyFinalRotations(result, target) {
  const { joints, rotations } = changedRotations(result);
  joints.forEach((joint, k) => {
    if (4 * joint + 4 > target.length) {
      throw new RangeError(`the answer turns joint ${joint}; the target holds ${target.length / 4} joints`);
    }
    for (let i = 0; i < 4; i++) target[4 * joint + i] = rotations[4 * k + i];
  });
  return target;
}

/**
 * Every joint's final local rotation: a copy of `base` (the rotations sent,
 * flat, of the same type) with the joints the jobs turned replaced.
 */
export function finalRotations(result, base) {
  const copy = typeof base[0] === 'number' || base.length === 0
    ? base.slice() : flatRotations(base);
  return applyFinalRotations(result, copy);
}

/** The character's final root (after grounding lowered it), from either form of the answer. */
export function finalRoot(result) {
  return result.compact_pose ? result.compact_pose.root : result.root;
}
