// The inspector's 3D view (three.js): one recorded tick's characters as
// bones -- the incoming pose ghosted, the corrected pose solid -- with goal
// targets, ground contacts and normals, pelvis drops, pose-check violations
// on their joints, dynamic chains and their colliders, over the terrains
// and planes the tick grounded on. World space as ikd's: metres, +Y up.
//
//   const view = new SceneView(canvas, (character, joint) => ...);
//   view.showTick(recording, tick);   // JSON of /api/recording, /api/tick
//   view.select(characterIndex, jointIndex);
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const COLORS = {
  background: 0x15181c,
  corrected: 0x5cc8ff,
  incoming: 0x9aa3ad,
  failed: 0xff8080,
  selected: 0xffd23f,
  selectedIncoming: 0xffffff,
  reached: 0x3fd47a,
  unreached: 0xff5d5d,
  contact: 0x3ff0e0,
  drop: 0xe26bff,
  violation: 0xff3b3b,
  dynamic: 0xff9f3f,
  terrain: 0x59616b,
  plane: 0x3b4a3f,
};
// Colliders are drawn for every character up to this many, else for the
// selected one only (a crowd's would hide the bones).
const ALL_COLLIDERS_UP_TO = 4;
const SELECTED_BONE_RADIUS = 0.012;  // metres
const NORMAL_LENGTH = 0.2;  // metres

// A round sprite for points, drawn here (nothing is fetched).
function discTexture() {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 64;
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.beginPath();
  context.arc(32, 32, 30, 0, 2 * Math.PI);
  context.fill();
  return new THREE.CanvasTexture(canvas);
}

// Point j of a flat [x, y, z, ...] array.
export function pointOf(flat, j) {
  return new THREE.Vector3(flat[3 * j], flat[3 * j + 1], flat[3 * j + 2]);
}

// Collects line segments and points, then builds one object of each.
class Batch {
  constructor() {
    this.lines = [];
    this.lineColors = [];
    this.points = [];
    this.pointColors = [];
  }
  line(a, b, color) {
    this.lines.push(a.x, a.y, a.z, b.x, b.y, b.z);
    const c = new THREE.Color(color);
    this.lineColors.push(c.r, c.g, c.b, c.r, c.g, c.b);
  }
  point(p, color) {
    this.points.push(p.x, p.y, p.z);
    const c = new THREE.Color(color);
    this.pointColors.push(c.r, c.g, c.b);
  }
  lineObject(options = {}) {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position',
        new THREE.Float32BufferAttribute(this.lines, 3));
    geometry.setAttribute('color',
        new THREE.Float32BufferAttribute(this.lineColors, 3));
    return new THREE.LineSegments(geometry, new THREE.LineBasicMaterial(
        { vertexColors: true, ...options }));
  }
  pointObject(size, texture, options = {}) {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position',
        new THREE.Float32BufferAttribute(this.points, 3));
    geometry.setAttribute('color',
        new THREE.Float32BufferAttribute(this.pointColors, 3));
    return new THREE.Points(geometry, new THREE.PointsMaterial({
      size, sizeAttenuation: false, vertexColors: true, map: texture,
      alphaTest: 0.5, ...options }));
  }
}

// Segments parent -> joint of a pose, for the joints `keep` accepts.
function addBones(batch, rig, positions, color, keep = () => true) {
  rig.joints.forEach((joint, j) => {
    if (joint.parent < 0 || !keep(j, joint.parent)) return;
    batch.line(pointOf(positions, joint.parent), pointOf(positions, j), color);
  });
}

// A bone of the selected character as a solid rod (lines are one pixel
// wide in WebGL).
function boneRod(from, to, material) {
  const axis = to.clone().sub(from);
  const rod = new THREE.Mesh(new THREE.CylinderGeometry(
      SELECTED_BONE_RADIUS, SELECTED_BONE_RADIUS, axis.length(), 8), material);
  rod.position.copy(from).add(to).multiplyScalar(0.5);
  if (axis.length() > 1e-9) {
    rod.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0),
                                      axis.normalize());
  }
  return rod;
}

function colliderMesh(collider) {
  const start = new THREE.Vector3(...collider.start);
  const end = new THREE.Vector3(...collider.end);
  const material = new THREE.MeshBasicMaterial({
    color: COLORS.dynamic, wireframe: true, transparent: true, opacity: 0.25 });
  if (collider.shape === 'sphere') {
    const mesh = new THREE.Mesh(
        new THREE.SphereGeometry(collider.radius, 10, 6), material);
    mesh.position.copy(start);
    return mesh;
  }
  const axis = end.clone().sub(start);
  const mesh = new THREE.Mesh(new THREE.CapsuleGeometry(
      collider.radius, axis.length(), 3, 8), material);
  mesh.position.copy(start).add(end).multiplyScalar(0.5);
  if (axis.length() > 1e-9) {
    mesh.quaternion.setFromUnitVectors(
        new THREE.Vector3(0, 1, 0), axis.normalize());
  }
  return mesh;
}

// A plane of ground as a patch: its rectangle, its radius, or 8 m square.
function planeMesh(plane) {
  const normal = new THREE.Vector3(...plane.normal).normalize();
  const point = new THREE.Vector3(...plane.point);
  let width = 8;
  let depth = 8;
  if (plane.rectangle_xz) {
    const [minX, maxX, minZ, maxZ] = plane.rectangle_xz;
    width = maxX - minX;
    depth = maxZ - minZ;
    point.x = (minX + maxX) / 2;
    point.z = (minZ + maxZ) / 2;
    if (Math.abs(normal.y) > 1e-9) {
      point.y -= ((point.x - plane.point[0]) * normal.x +
                  (point.z - plane.point[2]) * normal.z) / normal.y;
    }
  } else if (plane.radius) {
    width = depth = 2 * plane.radius;
  }
  const mesh = new THREE.Mesh(new THREE.PlaneGeometry(width, depth),
      new THREE.MeshLambertMaterial({ color: COLORS.plane,
        side: THREE.DoubleSide, transparent: true, opacity: 0.6 }));
  mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), normal);
  mesh.position.copy(point);
  return mesh;
}

function terrainMesh(terrain) {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position',
      new THREE.Float32BufferAttribute(terrain.vertices, 3));
  geometry.setIndex(terrain.indices);
  geometry.computeVertexNormals();
  return new THREE.Mesh(geometry, new THREE.MeshLambertMaterial({
    color: COLORS.terrain, side: THREE.DoubleSide, flatShading: true }));
}

export class SceneView {
  // `onPick(characterIndex, jointIndex)` is called when a joint is clicked.
  constructor(canvas, onPick) {
    this.canvas = canvas;
    this.onPick = onPick;
    this.renderer = new THREE.WebGLRenderer(
        { canvas, antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(window.devicePixelRatio);
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(COLORS.background);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x303030, 2.0));
    const sun = new THREE.DirectionalLight(0xffffff, 1.5);
    sun.position.set(3, 6, 4);
    this.scene.add(sun);
    const grid = new THREE.GridHelper(20, 20, 0x39414a, 0x272c33);
    this.scene.add(grid);
    this.camera = new THREE.PerspectiveCamera(45, 1, 0.01, 500);
    this.camera.position.set(3, 2.5, 4);
    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.addEventListener('change', () => this.render());
    this.disc = discTexture();
    this.tickGroup = new THREE.Group();
    this.selectionGroup = new THREE.Group();
    this.scene.add(this.tickGroup, this.selectionGroup);
    this.framed = false;
    this.listenForPicks();
    new ResizeObserver(() => this.resize()).observe(canvas);
    this.resize();
  }

  resize() {
    const width = this.canvas.clientWidth || 1;
    const height = this.canvas.clientHeight || 1;
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    this.render();
  }

  render() { this.renderer.render(this.scene, this.camera); }

  // A click (not a drag) picks the corrected joint nearest the ray.
  listenForPicks() {
    let down = null;
    this.canvas.addEventListener('pointerdown', (e) => {
      down = [e.clientX, e.clientY];
    });
    this.canvas.addEventListener('pointerup', (e) => {
      if (!down || Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 4) {
        return;
      }
      const rect = this.canvas.getBoundingClientRect();
      const ndc = new THREE.Vector2(
          ((e.clientX - rect.left) / rect.width) * 2 - 1,
          -((e.clientY - rect.top) / rect.height) * 2 + 1);
      const picked = this.pick(ndc);
      if (picked) this.onPick(picked[0], picked[1]);
    });
  }

  pick(ndc) {
    if (!this.pickPoints) return null;
    const raycaster = new THREE.Raycaster();
    raycaster.setFromCamera(ndc, this.camera);
    raycaster.params.Points.threshold = 0.05;
    const hits = raycaster.intersectObject(this.pickPoints);
    if (hits.length === 0) return null;
    hits.sort((a, b) => a.distanceToRay - b.distanceToRay ||
                        a.distance - b.distance);
    return this.pickOwners[hits[0].index];
  }

  clear(group) {
    for (const child of [...group.children]) {
      group.remove(child);
      child.traverse((object) => {
        object.geometry?.dispose();
        object.material?.dispose();
      });
    }
  }

  // Draws every character of `tick`; frames the camera on the first call.
  showTick(recording, tick) {
    this.recording = recording;
    this.tick = tick;
    this.clear(this.tickGroup);
    this.addGround(recording, tick);
    const bones = new Batch();
    const ghosts = new Batch();
    const marks = new Batch();
    const violations = new Batch();
    const picks = new Batch();
    this.pickOwners = [];
    tick.characters.forEach((character, index) => {
      const rig = recording.rigs[character.revision];
      if (!rig || !character.incoming) return;
      this.addCharacter(character, index, rig,
          { bones, ghosts, marks, violations, picks });
    });
    const crowd = [
        ghosts.lineObject({ transparent: true, opacity: 0.35 }),
        bones.lineObject(),
        marks.lineObject(),
        marks.pointObject(8, this.disc),
        violations.pointObject(16, this.disc),
        bones.pointObject(5, this.disc)];
    for (const object of crowd) {
      object.userData.crowd = true;
      object.material.transparent = true;
      object.userData.opacity = object.material.opacity;
    }
    this.tickGroup.add(...crowd);
    this.pickPoints = picks.pointObject(1, this.disc, { visible: false });
    this.pickPoints.visible = false;
    if (tick.characters.length <= ALL_COLLIDERS_UP_TO) {
      for (const character of tick.characters) {
        for (const chain of character.dynamics ?? []) {
          for (const c of chain.colliders) {
            this.tickGroup.add(colliderMesh(c));
          }
        }
      }
    }
    if (!this.framed) this.frame(bones.points);
    this.render();
  }

  addGround(recording, tick) {
    for (const revision of tick.terrains) {
      const terrain = recording.terrains[revision];
      if (terrain) this.tickGroup.add(terrainMesh(terrain));
    }
    for (const plane of tick.planes) this.tickGroup.add(planeMesh(plane));
  }

  // One character into the batches: bones of both poses, its dynamic
  // chains, goals, contacts, pelvis drop and violations.
  addCharacter(character, index, rig, { bones, ghosts, marks, violations,
                                        picks }) {
    const incoming = character.incoming.positions;
    const shown = character.corrected ?? character.incoming;
    const positions = shown.positions;
    addBones(ghosts, rig, incoming, COLORS.incoming);
    const dynamic = new Set();
    for (const chain of character.dynamics ?? []) {
      chain.joints.slice(1).forEach((j) => dynamic.add(j));
    }
    const boneColor = character.failed ? COLORS.failed : COLORS.corrected;
    addBones(bones, rig, positions, boneColor, (j) => !dynamic.has(j));
    addBones(bones, rig, positions, COLORS.dynamic, (j) => dynamic.has(j));
    rig.joints.forEach((joint, j) => {
      const p = pointOf(positions, j);
      bones.point(p, dynamic.has(j) ? COLORS.dynamic : boneColor);
      picks.point(p, 0xffffff);
      this.pickOwners.push([index, j]);
    });
    for (const goal of character.goals) {
      const target = new THREE.Vector3(...goal.target);
      const reached = goal.reached === true;
      marks.point(target, reached ? COLORS.reached : COLORS.unreached);
      if (goal.effector && !reached) {
        marks.line(new THREE.Vector3(...goal.effector), target,
                   COLORS.unreached);
      }
    }
    for (const foot of character.ground?.feet ?? []) {
      if (!foot.ground_found) continue;
      const contact = new THREE.Vector3(...foot.contact_point);
      const normal = new THREE.Vector3(...foot.contact_normal);
      marks.point(contact, COLORS.contact);
      marks.line(contact, contact.clone().addScaledVector(normal,
                 NORMAL_LENGTH), COLORS.contact);
    }
    if (character.ground && character.corrected) {
      marks.line(pointOf(incoming, 0), pointOf(positions, 0), COLORS.drop);
    }
    for (const violation of character.violations) {
      violations.point(pointOf(incoming, violation.joint), COLORS.violation);
    }
  }

  // Points the camera at the box around `flat` positions.
  frame(flat) {
    if (flat.length === 0) return;
    const box = new THREE.Box3().setFromArray(flat);
    const center = box.getCenter(new THREE.Vector3());
    const size = Math.max(box.getSize(new THREE.Vector3()).length(), 1.5);
    this.controls.target.copy(center);
    this.camera.position.copy(center).add(
        new THREE.Vector3(0.55, 0.35, 0.75).multiplyScalar(size * 1.3));
    this.controls.update();
    this.framed = true;
  }

  // Where joint `joint` of character `index` (its corrected pose, else
  // its incoming one) is on the canvas, CSS pixels from the page's corner:
  // what a click there picks.
  screenPosition(index, joint) {
    const character = this.tick?.characters[index];
    const shown = character?.corrected ?? character?.incoming;
    if (!shown) return null;
    const ndc = pointOf(shown.positions, joint).project(this.camera);
    const rect = this.canvas.getBoundingClientRect();
    return { x: rect.left + (ndc.x + 1) / 2 * rect.width,
             y: rect.top + (1 - ndc.y) / 2 * rect.height };
  }

  // The crowd's opacity: as drawn (1), faded behind a picked character
  // (0.2) or hidden (0).
  fadeCrowd(share) {
    for (const object of this.tickGroup.children) {
      if (object.userData.crowd) {
        object.material.opacity = object.userData.opacity * share;
        object.visible = share > 0;
      }
    }
    this.render();
  }

  // Points the camera at character `index`'s root (its corrected pose, else
  // its incoming one), keeping the camera's offset from its target.
  focus(index) {
    const character = this.tick?.characters[index];
    const shown = character?.corrected ?? character?.incoming;
    if (!shown) return;
    const root = pointOf(shown.positions, 0);
    const offset = this.camera.position.clone().sub(this.controls.target);
    this.controls.target.copy(root);
    this.camera.position.copy(root).add(offset);
    this.controls.update();
    this.render();
  }

  // Highlights character `index` of the tick shown (both poses, its
  // colliders) and its joint `joint` (-1: none).
  select(index, joint) {
    this.clear(this.selectionGroup);
    const character = this.tick?.characters[index];
    const rig = character && this.recording.rigs[character.revision];
    if (!rig || !character.incoming) {
      this.render();
      return;
    }
    const batch = new Batch();
    const shown = character.corrected ?? character.incoming;
    addBones(batch, rig, character.incoming.positions,
             COLORS.selectedIncoming);
    const rods = new THREE.MeshLambertMaterial({ color: COLORS.selected });
    rig.joints.forEach((bone, j) => {
      if (bone.parent < 0) return;
      this.selectionGroup.add(boneRod(pointOf(shown.positions, bone.parent),
                                      pointOf(shown.positions, j), rods));
    });
    const highlight = new Batch();
    if (joint >= 0) {
      highlight.point(pointOf(shown.positions, joint), COLORS.selected);
      highlight.point(pointOf(character.incoming.positions, joint),
                      COLORS.selectedIncoming);
    }
    this.selectionGroup.add(batch.lineObject({ depthTest: false }),
                            highlight.pointObject(14, this.disc,
                                                  { depthTest: false }));
    if (this.tick.characters.length > ALL_COLLIDERS_UP_TO) {
      for (const chain of character.dynamics ?? []) {
        for (const c of chain.colliders) {
          this.selectionGroup.add(colliderMesh(c));
        }
      }
    }
    this.render();
  }
}
