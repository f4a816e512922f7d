// The inspector's page: the timeline of recorded ticks, the character list
// with its filters, and the picked character's and joint's details; the 3D
// view is inspector_scene.js. Everything comes from ikctl inspect's JSON
// (/api/recording, /api/tick?index=N). The URL's hash holds what is shown
// (#tick=N&character=ID&joint=NAME), so a link -- or a test -- can open
// any joint of any tick. When a tick is on screen, body[data-tick] is its
// index.
import { SceneView } from './inspector_scene.js';

const $ = (id) => document.getElementById(id);
const PLAY_INTERVAL_MS = 400;

const state = {
  recording: null,
  index: -1,
  tick: null,
  character: -1,  // index into tick.characters
  joint: -1,      // index into the character's rig joints
  want: { character: null, joint: null },  // from the hash, until found
  loads: 0,       // the latest tick request wins
  player: null,
};

const view = new SceneView($('canvas'), (character, joint) => {
  selectCharacter(character, joint);
});

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function fetchJson(url) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`${url}: ${response.status} ${await response.text()}`);
  }
  return response.json();
}

function number(value, digits = 4) {
  return value === null || value === undefined ? 'not finite'
                                               : value.toFixed(digits);
}

function formatVector(v) {
  return `(${v.map((x) => number(x)).join(', ')})`;
}

// A local rotation as sent: x y z w, and its angle and axis when it is a
// finite rotation.
function formatRotation(q) {
  const text = `x ${number(q[0])} y ${number(q[1])} z ${number(q[2])} ` +
               `w ${number(q[3])}`;
  if (q.some((c) => c === null)) return text;
  const norm = Math.hypot(...q);
  if (norm < 1e-12) return `${text} (zero)`;
  const w = Math.min(1, Math.abs(q[3] / norm));
  const angle = 2 * Math.acos(w) * 180 / Math.PI;
  const s = Math.sqrt(Math.max(0, 1 - w * w)) || 1;
  const sign = q[3] < 0 ? -1 : 1;
  const axis = q.slice(0, 3).map((c) => sign * c / norm / s);
  const unit = Math.abs(norm - 1) > 1e-3 ? `, norm ${norm.toFixed(4)}` : '';
  return `${text}\n= ${angle.toFixed(2)} deg about ${formatVector(axis)}${unit}`;
}

function quaternionOf(flat, j) { return flat.slice(4 * j, 4 * j + 4); }

function statusText(status) {
  return status.code === 0 ? 'OK' : `${status.code_name}: ${status.message}`;
}

function rigOf(character) {
  return state.recording.rigs[character.revision];
}

// The hash from what is shown, without adding to the history.
function writeHash() {
  const params = new URLSearchParams();
  params.set('tick', state.index);
  const character = state.tick?.characters[state.character];
  if (character) params.set('character', character.id);
  const rig = character && rigOf(character);
  if (rig && state.joint >= 0) params.set('joint', rig.joints[state.joint].name);
  history.replaceState(null, '', `#${params}`);
}

function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  return {
    tick: params.has('tick') ? Number(params.get('tick')) : 0,
    character: params.get('character'),
    joint: params.get('joint'),
  };
}

async function showTick(index) {
  const count = state.recording.ticks.length;
  index = Math.max(0, Math.min(count - 1, index));
  const load = ++state.loads;
  const tick = await fetchJson(`/api/tick?index=${index}`);
  if (load !== state.loads) return;  // a later step overtook this one
  const previous = state.tick?.characters[state.character];
  state.index = index;
  state.tick = tick;
  // Keep the same character (by id) and joint across ticks.
  const wantId = state.want.character ?? previous?.id;
  state.character = tick.characters.findIndex((c) => c.id === wantId);
  if (state.want.joint !== null && state.character >= 0) {
    const rig = rigOf(tick.characters[state.character]);
    state.joint = rig ? rig.joints.findIndex((j) => j.name === state.want.joint)
                      : -1;
  }
  state.want = { character: null, joint: null };
  $('tick-slider').value = index;
  for (const bar of $('tick-bars').children) {
    bar.classList.toggle('current', Number(bar.dataset.index) === index);
  }
  showTickLine(tick);
  view.showTick(state.recording, tick);
  showCharacterList();
  selectCharacter(state.character, state.joint);
  document.body.dataset.tick = String(index);
}

// Nanoseconds as milliseconds with their unit ("0.214 ms").
function milliseconds(nanos) {
  return `${(Number(nanos) / 1e6).toFixed(3)} ms`;
}

function showTickLine(tick) {
  const line = tick.line;
  const count = state.recording.ticks.length;
  const single = !line.method.startsWith('Tick');
  const where = line.method === 'TickStream'
      ? `stream ${line.stream}, tick ${line.stream_tick}` : 'unary';
  const what = single
      ? `${line.method} (a single call, drawn as one character)`
      : `${line.method} (${where}), sequence ${line.sequence}, ` +
        `${line.characters} character(s)`;
  $('tick-label').textContent =
      `tick ${tick.index + 1} of ${count}: ${what}; ` +
      `queued ${milliseconds(line.queued_nanos)}, ` +
      `ran ${milliseconds(line.ran_nanos)}`;
  const failed = tick.tick_code !== 0;
  $('tick-status').textContent = failed
      ? `failed: ${line.code_name} ${tick.tick_message}`
      : `${line.failed} failed, ${line.violations} with violations, ` +
        `${line.unreached} with unreached goals`;
  $('tick-status').className = failed ? 'failed' : '';
}

function filters() {
  return {
    failed: $('filter-failed').checked,
    violation: $('filter-violation').checked,
    unreached: $('filter-unreached').checked,
  };
}

// A character passes when no filter is on, or it has one of the flags on.
function passes(character, on) {
  const search = $('character-search').value.trim().toLowerCase();
  if (search && !(character.id ?? '').toLowerCase().includes(search)) {
    return false;
  }
  if (!on.failed && !on.violation && !on.unreached) return true;
  return (on.failed && character.failed) ||
         (on.violation && character.has_violation) ||
         (on.unreached && character.has_unreached);
}

function showCharacterList() {
  const list = $('character-list');
  list.replaceChildren();
  const on = filters();
  let shown = 0;
  state.tick.characters.forEach((character, index) => {
    if (!passes(character, on)) return;
    ++shown;
    const item = document.createElement('li');
    item.dataset.index = index;
    item.dataset.id = character.id;
    const flags = [];
    if (character.failed) flags.push('<span class="failed">failed</span>');
    if (character.has_violation) {
      flags.push('<span class="violation">violation</span>');
    }
    if (character.has_unreached) {
      flags.push('<span class="unreached">unreached</span>');
    }
    if (character.goals.some((goal) => goal.branch_switch)) {
      flags.push('<span class="flag">branch switch</span>');
    }
    if (character.goals.some((goal) => goal.near_singularity)) {
      flags.push('<span class="flag">near singular</span>');
    }
    item.innerHTML = `<span>${escapeHtml(character.id || '(no id)')} ` +
        `<span class="muted">${escapeHtml(character.rig_name)}</span></span>` +
        `<span class="flags">${flags.join(' ')}</span>`;
    item.classList.toggle('selected', index === state.character);
    item.addEventListener('click', () => selectCharacter(index, state.joint));
    list.append(item);
  });
  $('character-count').textContent =
      `${shown} of ${state.tick.characters.length} characters`;
}

function selectCharacter(index, joint) {
  state.character = index;
  const character = state.tick.characters[index];
  const rig = character && rigOf(character);
  state.joint = rig && joint >= 0 && joint < rig.joints.length ? joint : -1;
  for (const item of $('character-list').children) {
    item.classList.toggle('selected', Number(item.dataset.index) === index);
  }
  showCharacterDetails(character);
  showJointSelect(character, rig);
  showJoint();
  view.select(index, state.joint);
  // A picked character: the camera on it, the crowd faded (or hidden).
  if (character) view.focus(index);
  view.fadeCrowd(!character ? 1 : $('isolate').checked ? 0 : 0.2);
  showTrack(character).catch(report);
  writeHash();
}

// A goal's flags: the answer may have jumped (branch switch) or turns fast
// near a singular direction of its plane.
function goalFlags(goal) {
  const flags = [];
  if (goal.branch_switch) flags.push('branch switch');
  if (goal.near_singularity) flags.push('near a singular direction');
  return flags;
}

function goalRows(character) {
  return character.goals.map((goal) => {
    if (goal.reached === undefined) {
      return `<tr><td>${escapeHtml(goal.chain)}</td><td>no answer</td></tr>`;
    }
    const stop = (goal.stop_reason ?? '').replace(/^STOP_REASON_/, '')
        .toLowerCase().replaceAll('_', ' ');
    const limited = goal.limited_joints?.length
        ? `; on a limit: ${goal.limited_joints.join(', ')}` : '';
    const flags = goalFlags(goal).map(
        (flag) => `<span class="flag">${escapeHtml(flag)}</span>`).join(' ');
    return `<tr><td>${escapeHtml(goal.chain)}</td><td class="goal">` +
           `${escapeHtml(`${goal.reached ? 'reached' : 'not reached'}, ` +
           `residual ${goal.residual.toExponential(2)} m, ` +
           `${goal.iterations} it., stop: ${stop}${limited}`)} ${flags}` +
           `</td></tr>`;
  }).join('');
}

// A pose check violation's amount with its unit (tick.proto's
// PoseViolationKind): the repair's turn in radians, a bone's difference in
// metres, the rest unitless; three significant digits, so 1.3e-5 rad does
// not read as 0.
const VIOLATION_UNITS = { OUTSIDE_LIMIT: ' rad', TRANSLATION: ' m' };
function violationAmount(violation) {
  if (violation.amount === null || violation.amount === undefined) {
    return 'not finite';
  }
  return `${violation.amount.toPrecision(3)}` +
         `${VIOLATION_UNITS[violation.kind] ?? ''}`;
}

function groundRows(ground) {
  const feet = ground.feet.map((foot) =>
      `<tr><td>${escapeHtml(foot.leg)}</td><td>` +
      `${foot.grounded ? 'grounded' : 'not grounded'}, contact ` +
      `${formatVector(foot.contact_point)} normal ` +
      `${formatVector(foot.contact_normal)}</td></tr>`).join('');
  return `<tr><td>pelvis drop</td><td>${number(ground.pelvis_drop)} m ` +
         `(target ${number(ground.pelvis_drop_target)}` +
         `${ground.pelvis_drop_clamped ? ', clamped' : ''})</td></tr>${feet}`;
}

function showCharacterDetails(character) {
  const panel = $('character-details');
  if (!character) {
    panel.innerHTML = '<p class="hint">Pick a character from the list, ' +
                      'or a joint in the view.</p>';
    return;
  }
  const jobs = Object.entries(character.jobs ?? {}).map(([job, status]) =>
      `<tr><td>${job}</td><td class="status ${status.code ? 'failed' : ''}">` +
      `${escapeHtml(statusText(status))}</td></tr>`).join('');
  const violations = character.violations.map((v) =>
      `<tr><td>${escapeHtml(v.name ?? v.joint)}</td><td>` +
      `${escapeHtml(v.kind)} ${violationAmount(v)}</td></tr>`).join('');
  const dynamics = (character.dynamics ?? []).map((chain) =>
      `<tr><td>${escapeHtml(chain.chain)}</td><td>${chain.substeps ?? '-'} ` +
      `substeps, colliders ${chain.colliders.map((c) => c.name).join(', ')}` +
      `</td></tr>`).join('');
  panel.innerHTML =
      `<h2 id="character-id">${escapeHtml(character.id || '(no id)')}</h2>` +
      `<div class="muted">${escapeHtml(character.rig_name)} ` +
      `${escapeHtml(character.revision)}</div>` +
      (character.note ? `<p class="muted">${escapeHtml(character.note)}</p>` : '') +
      `<table><tr><td>status</td><td class="status ` +
      `${character.status.code ? 'failed' : ''}">` +
      `${escapeHtml(statusText(character.status))}</td></tr>${jobs}</table>` +
      (character.goals.length ? `<h3>goals</h3><table>${goalRows(character)}</table>` : '') +
      (character.ground ? `<h3>ground</h3><table>${groundRows(character.ground)}</table>` : '') +
      (violations ? `<h3>pose check violations</h3><table>${violations}</table>` : '') +
      (dynamics ? `<h3>dynamic chains</h3><table>${dynamics}</table>` : '');
}

function showJointSelect(character, rig) {
  const select = $('joint-select');
  const names = rig ? rig.joints.map((joint) => joint.name) : [];
  const options = ['<option value="-1">(none)</option>', ...names.map(
      (name, j) => `<option value="${j}">${escapeHtml(name)}</option>`)];
  select.innerHTML = options.join('');
  select.value = String(state.joint);
}

// The picked joint's positions, rotations before and after, limit and the
// jobs that moved it.
function showJoint() {
  const character = state.tick.characters[state.character];
  const rig = character && rigOf(character);
  const j = state.joint;
  const fields = ['joint-position', 'joint-position-incoming',
                  'joint-rotation-before', 'joint-rotation-after',
                  'joint-limit', 'joint-moved-by'];
  for (const id of fields) $(id).textContent = '';
  // The text rounds; data-x, data-y and data-z hold the numbers served.
  const showPosition = (element, pose) => {
    for (const axis of ['x', 'y', 'z']) delete element.dataset[axis];
    if (!pose) {
      element.textContent = 'no answer';
      return;
    }
    const p = pose.positions.slice(3 * j, 3 * j + 3);
    element.textContent = formatVector(p);
    [element.dataset.x, element.dataset.y, element.dataset.z] = p.map(String);
  };
  if (!rig || j < 0 || !character.incoming) {
    for (const id of ['joint-position', 'joint-position-incoming']) {
      showPosition($(id), null);
      $(id).textContent = '';
    }
    return;
  }
  const corrected = character.corrected;
  const incoming = character.incoming;
  showPosition($('joint-position'), corrected);
  showPosition($('joint-position-incoming'), incoming);
  const outside = (pose) => (pose.outside_limit[j] > 0
      ? `outside its limit by ${(pose.outside_limit[j] * 180 / Math.PI).toFixed(2)} deg`
      : 'within its limit');
  $('joint-rotation-before').textContent =
      `${formatRotation(quaternionOf(incoming.locals, j))}\n${outside(incoming)}`;
  $('joint-rotation-after').textContent = corrected
      ? `${formatRotation(quaternionOf(corrected.locals, j))}\n${outside(corrected)}`
      : 'no answer';
  $('joint-limit').textContent = rig.joints[j].limit.text;
  const moved = character.moved_by?.[j] ?? [];
  const violations = character.violations.filter((v) => v.joint === j)
      .map((v) => `violation: ${v.kind} ${violationAmount(v)}`);
  const jobs = !corrected ? 'no answer' : moved.length ? moved.join(', ')
                                                       : 'no job';
  $('joint-moved-by').textContent = [
    jobs,
    ...(moved.length && !character.moved_by_exact
        ? ['(from the parts that hold it; the tick did not ask for job_rotations)']
        : []),
    ...violations,
  ].join('\n');
}

// A track tick worth stopping at: a failure, a broken pose, a missed goal,
// a flag, or a joint turned by more than 20 degrees since the tick before.
const EVENT_TURN = 20 * Math.PI / 180;
function isEvent(entry) {
  return entry.failed || entry.violation || entry.unreached ||
         entry.branch_switch || entry.near_singularity ||
         entry.turn > EVENT_TURN;
}

// The picked character across the recording's ticks (/api/track): a cell
// per tick that has it, marked where something happened; a click opens the
// tick.
async function showTrack(character) {
  const strip = $('character-track');
  if (!character) {
    state.track = null;
    strip.replaceChildren();
    $('track-summary').textContent = '';
    return;
  }
  if (state.track?.id !== character.id) {
    state.track = await fetchJson(
        `/api/track?id=${encodeURIComponent(character.id)}`);
  }
  strip.replaceChildren(...state.track.ticks.map((entry) => {
    const cell = document.createElement('span');
    cell.className = 'track-cell' + (entry.failed ? ' failed' : '') +
        (entry.violation ? ' violation' : '') +
        (entry.unreached ? ' unreached' : '') +
        (isEvent(entry) ? ' event' : '') +
        (entry.tick === state.index ? ' current' : '');
    cell.dataset.tick = entry.tick;
    cell.title = `tick ${entry.tick + 1}: residual ` +
        `${entry.residual.toExponential(2)} m, largest turn ` +
        `${entry.turn < 0 ? 'unknown' : `${(entry.turn * 180 / Math.PI)
            .toFixed(1)}°`}${entry.branch_switch ? ', branch switch' : ''}` +
        `${entry.near_singularity ? ', near a singular direction' : ''}`;
    cell.addEventListener('click', () => showTick(entry.tick).catch(report));
    return cell;
  }));
  const events = state.track.ticks.filter(isEvent).length;
  $('track-summary').textContent =
      `${state.track.ticks.length} tick(s), ${events} with an event`;
}

// Opens the next tick after the current one where the picked character
// had an event; false when there is none.
function nextEvent() {
  const next = state.track?.ticks.find(
      (entry) => entry.tick > state.index && isEvent(entry));
  if (!next) return false;
  showTick(next.tick).catch(report);
  return true;
}

function step(delta) {
  const next = state.index + delta;
  if (next < 0 || next >= state.recording.ticks.length) return false;
  showTick(next).catch(report);
  return true;
}

function togglePlay() {
  if (state.player) {
    clearInterval(state.player);
    state.player = null;
    $('play').textContent = 'play';
    return;
  }
  if (state.index >= state.recording.ticks.length - 1) showTick(0).catch(report);
  $('play').textContent = 'pause';
  state.player = setInterval(() => {
    if (!step(1)) togglePlay();
  }, PLAY_INTERVAL_MS);
}

function report(error) {
  $('tick-status').textContent = String(error);
  $('tick-status').className = 'failed';
  console.error(error);
}

function showRecordingInfo(recording) {
  const header = recording.headers[0];
  const parts = [
    `${recording.ticks.length} tick(s) in ${recording.files.length} file(s)`,
    header ? `recording ${header.recording}, ikd ${header.ikd_version}` : '',
    recording.other_calls ? `${recording.other_calls} other call(s) not shown` : '',
    recording.dropped ? `${recording.dropped} record(s) dropped by the server` : '',
    ...recording.warnings, ...recording.rig_errors,
  ];
  $('recording-info').textContent = parts.filter(Boolean).join('; ');
}

function applyHash() {
  const wanted = readHash();
  state.want = { character: wanted.character, joint: wanted.joint };
  return showTick(wanted.tick);
}

function listen() {
  $('previous').addEventListener('click', () => step(-1));
  $('next').addEventListener('click', () => step(1));
  $('play').addEventListener('click', togglePlay);
  $('tick-slider').addEventListener('input', (e) => {
    showTick(Number(e.target.value)).catch(report);
  });
  for (const id of ['filter-failed', 'filter-violation', 'filter-unreached']) {
    $(id).addEventListener('change', showCharacterList);
  }
  $('character-search').addEventListener('input', showCharacterList);
  $('next-event').addEventListener('click', () => nextEvent());
  $('character-search').addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    const first = $('character-list').firstElementChild;
    if (first) selectCharacter(Number(first.dataset.index), -1);
  });
  $('isolate').addEventListener('change', () =>
    selectCharacter(state.character, state.joint));
  $('joint-select').addEventListener('change', (e) => {
    selectCharacter(state.character, Number(e.target.value));
  });
  window.addEventListener('hashchange', () => applyHash().catch(report));
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT') return;
    if (e.key === 'ArrowLeft') step(-1);
    if (e.key === 'ArrowRight') step(1);
    if (e.key === ' ') {
      e.preventDefault();
      togglePlay();
    }
  });
}

// The timeline: a bar per tick, as tall as its run time against the
// longest, red where characters failed, orange where a pose broke the rules
// (grey otherwise); a click opens the tick.
function showTimeline(ticks) {
  const longest = Math.max(1, ...ticks.map((t) => Number(t.ran_nanos)));
  $('tick-bars').replaceChildren(...ticks.map((t, index) => {
    const bar = document.createElement('span');
    bar.className = 'timeline-bar' + (t.failed > 0 ? ' failed' : '') +
        (t.violations > 0 ? ' violation' : '');
    bar.style.height = `${Math.max(2, 24 * Number(t.ran_nanos) / longest)}px`;
    bar.dataset.index = index;
    bar.title = `tick ${index + 1}: ran ${milliseconds(t.ran_nanos)}, ` +
        `queued ${milliseconds(t.queued_nanos)}; ${t.failed} failed, ` +
        `${t.violations} with violations, ${t.unreached} with unreached goals`;
    bar.addEventListener('click', () => showTick(index).catch(report));
    return bar;
  }));
}

async function main() {
  state.recording = await fetchJson('/api/recording');
  showRecordingInfo(state.recording);
  showTimeline(state.recording.ticks);
  $('tick-slider').max = Math.max(0, state.recording.ticks.length - 1);
  listen();
  if (state.recording.ticks.length === 0) {
    $('tick-label').textContent = 'the recording holds no Tick or TickStream call';
    document.body.dataset.tick = 'none';
    return;
  }
  await applyHash();
}

// For tests and the console: the view and what is shown.
window.inspector = { view, state, selectCharacter, nextEvent };

main().catch(report);
