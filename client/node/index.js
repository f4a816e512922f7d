// A Node.js client for ikd (ik.v1.IkService and grpc.health.v1.Health).
//
// The API is loaded from the .proto files at run time with
// @grpc/proto-loader (no generated code); google.rpc.Status and BadRequest,
// which ikd puts in the `grpc-status-details-bin` trailer of every error that
// names a field, are decoded with protobufjs. Messages are plain objects with
// the proto's own field names (snake_case, as in the rigs' JSON), enums as
// their names, 64-bit integers as decimal strings. A tick's characters go
// in the compact form (compact.js: tickCharacter, compactPose,
// finalRotations).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';

export {
  POSE_FORMS,
  QUANTIZED_BYTES,
  applyFinalRotations,
  changedRotations,
  compactPose,
  dequantizeRotations,
  finalRoot,
  finalRotations,
  flatRotations,
  plainPose,
  quantizeRotations,
  tickCharacter,
  widenedPose,
} from './compact.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

// A packed package (npm pack: pack_protos.sh) carries every .proto it
// loads in its own protos/.
const PACKED = path.join(HERE, 'protos');
const packed = fs.existsSync(path.join(PACKED, 'ik/v1/ik.proto'));

/** Where the .proto files are looked for unless ClientOptions say otherwise. */
export const DEFAULT_PROTO_PATHS = Object.freeze({
  // The package's own protos/ when packed, else the repository's proto/
  // (this package lives in client/node/).
  protoDir: process.env.IKD_PROTO_DIR ||
    (packed ? PACKED : path.resolve(HERE, '../../proto')),
  // Packed, or Debian's golang-github-gogo-googleapis-dev: google/rpc/*.proto.
  googleapisDir: process.env.IKD_GOOGLEAPIS_DIR ||
    (packed ? PACKED : '/usr/share/gocode/src/github.com/gogo/googleapis'),
  // Packed, or Debian's grpc-proto: grpc/health/v1/health.proto.
  grpcProtoDir: process.env.IKD_GRPC_PROTO_DIR ||
    (packed ? PACKED : '/usr/share/grpc-proto'),
});

/** The default deadline of every call, milliseconds. */
export const DEFAULT_DEADLINE_MS = 5000;

/** gRPC status codes by number and name. */
export const Code = Object.freeze({ ...grpc.status });
const CODE_NAMES = Object.fromEntries(
  Object.entries(grpc.status).map(([name, number]) => [number, name]));

/** The name of a gRPC status code ("NOT_FOUND"), or "CODE_<n>". */
export function codeName(code) {
  return CODE_NAMES[code] ?? `CODE_${code}`;
}

const LOADER_OPTIONS = {
  keepCase: true,   // proto field names, as in protobuf's JSON mapping
  longs: String,    // uint64 (sequence, wind seed) losslessly
  enums: String,    // enum values by name
  defaults: true,   // scalars and repeated fields always present
  oneofs: true,     // a oneof's name says which member is set
};

// Loaded definitions, cached per set of directories.
const definitions = new Map();

function loadDefinitions(paths) {
  const key = JSON.stringify([paths.protoDir, paths.googleapisDir, paths.grpcProtoDir]);
  let loaded = definitions.get(key);
  if (loaded) return loaded;
  for (const [name, file] of [
    ['protoDir', path.join(paths.protoDir, 'ik/v1/ik.proto')],
    ['googleapisDir', path.join(paths.googleapisDir, 'google/rpc/error_details.proto')],
    ['grpcProtoDir', path.join(paths.grpcProtoDir, 'grpc/health/v1/health.proto')],
  ]) {
    if (!fs.existsSync(file)) {
      const variable = { protoDir: 'IKD_PROTO_DIR', googleapisDir: 'IKD_GOOGLEAPIS_DIR',
        grpcProtoDir: 'IKD_GRPC_PROTO_DIR' }[name];
      throw new Error(`ikd client: ${file} not found (set ClientOptions.${name} or ` +
        `${variable}; a package made by npm pack carries its protos, and in the ` +
        'repository scripts/setup.sh installs the Debian packages)');
    }
  }
  const ik = grpc.loadPackageDefinition(protoLoader.loadSync('ik/v1/ik.proto', {
    ...LOADER_OPTIONS, includeDirs: [paths.protoDir],
  }));
  const health = grpc.loadPackageDefinition(protoLoader.loadSync(
    'grpc/health/v1/health.proto', { ...LOADER_OPTIONS, includeDirs: [paths.grpcProtoDir] }));

  // google.rpc.Status and BadRequest for the status details trailer.
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => {
    if (path.isAbsolute(target)) return target;
    for (const dir of [paths.googleapisDir, '/usr/include']) {
      const candidate = path.join(dir, target);
      if (fs.existsSync(candidate)) return candidate;
    }
    return target;   // google/protobuf/*: protobufjs has them built in
  };
  root.loadSync(['google/rpc/status.proto', 'google/rpc/error_details.proto']);
  loaded = {
    IkService: ik.ik.v1.IkService,
    Health: health.grpc.health.v1.Health,
    RpcStatus: root.lookupType('google.rpc.Status'),
    BadRequest: root.lookupType('google.rpc.BadRequest'),
  };
  definitions.set(key, loaded);
  return loaded;
}

/**
 * An error ikd (or the transport) answered with.
 * - `code`: the gRPC status code number (`Code.NOT_FOUND` is 5)
 * - `codeName`: its name ("NOT_FOUND")
 * - `message`: ikd's message, which starts with the field path
 * - `fieldPath`: the field the error names (from google.rpc.BadRequest in the
 *   status details), or null
 * - `fieldViolations`: every `{field, description}` of the BadRequest
 * - `metadata`: the trailers (a grpc.Metadata), when there were any
 */
export class IkError extends Error {
  constructor(code, message, { fieldViolations = [], metadata = null, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'IkError';
    this.code = code;
    this.codeName = codeName(code);
    this.fieldViolations = fieldViolations;
    this.fieldPath = fieldViolations.length > 0 ? fieldViolations[0].field : null;
    this.metadata = metadata;
  }

  toString() {
    return `IkError: ${this.codeName}: ${this.message}`;
  }
}

/** The field violations of a `grpc-status-details-bin` trailer's value. */
function decodeFieldViolations(defs, bytes) {
  const status = defs.RpcStatus.decode(bytes);
  const violations = [];
  for (const any of status.details ?? []) {
    const typeName = String(any.type_url ?? any.typeUrl ?? '').split('/').pop();
    if (typeName !== 'google.rpc.BadRequest') continue;
    const badRequest = defs.BadRequest.decode(any.value);
    for (const v of badRequest.field_violations ?? badRequest.fieldViolations ?? []) {
      violations.push({ field: v.field, description: v.description });
    }
  }
  return violations;
}

function toIkError(defs, error) {
  if (error instanceof IkError) return error;
  const code = typeof error?.code === 'number' ? error.code : grpc.status.UNKNOWN;
  const metadata = error?.metadata ?? null;
  let fieldViolations = [];
  const details = metadata?.get?.('grpc-status-details-bin') ?? [];
  if (details.length > 0) {
    try {
      fieldViolations = decodeFieldViolations(defs, details[0]);
    } catch {
      // Not a google.rpc.Status: keep the code and message.
    }
  }
  const message = typeof error?.details === 'string' && error.details !== ''
    ? error.details : String(error?.message ?? error);
  return new IkError(code, message, { fieldViolations, metadata, cause: error });
}

function readFile(file) {
  return file ? fs.readFileSync(file) : null;
}

/** Unary methods: the client's method name -> the service's. */
const UNARY_METHODS = {
  registerRig: 'RegisterRig',
  getRig: 'GetRig',
  listRigs: 'ListRigs',
  deleteRig: 'DeleteRig',
  solveChain: 'SolveChain',
  stepDynamics: 'StepDynamics',
  groundFeet: 'GroundFeet',
  registerTerrain: 'RegisterTerrain',
  listTerrains: 'ListTerrains',
  deleteTerrain: 'DeleteTerrain',
  tick: 'Tick',
};

/**
 * A client of one ikd (or a balanced set of them).
 *
 *   const client = new IkClient('127.0.0.1:50051', { token, tls: { ca } });
 *   const answer = await client.solveChain({ rig: 'humanoid', goals: [...] });
 */
export class IkClient {
  /**
   * @param {string} [target] host:port (any gRPC target)
   * @param {import('./index.js').ClientOptions} [options]
   */
  constructor(target = '127.0.0.1:50051', options = {}) {
    this.target = target;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.token = options.token ?? null;
    const paths = {
      protoDir: options.protoDir ?? DEFAULT_PROTO_PATHS.protoDir,
      googleapisDir: options.googleapisDir ?? DEFAULT_PROTO_PATHS.googleapisDir,
      grpcProtoDir: options.grpcProtoDir ?? DEFAULT_PROTO_PATHS.grpcProtoDir,
    };
    this._defs = loadDefinitions(paths);

    let credentials;
    const channelOptions = {
      // A tick's answer can exceed gRPC's default 4 MiB (README: C++ client).
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      ...(options.channelOptions ?? {}),
    };
    const tls = options.tls;
    if (tls) {
      credentials = grpc.credentials.createSsl(
        readFile(tls.ca), readFile(tls.key), readFile(tls.cert));
      if (tls.serverName) {
        channelOptions['grpc.ssl_target_name_override'] = tls.serverName;
        channelOptions['grpc.default_authority'] = tls.serverName;
      }
    } else {
      credentials = grpc.credentials.createInsecure();
    }
    // The bearer token goes into every call's metadata (not call
    // credentials: grpc-js refuses those on plaintext channels).
    this._ik = new this._defs.IkService(target, credentials, channelOptions);
    this._health = new this._defs.Health(target, credentials, channelOptions);
    for (const [name, method] of Object.entries(UNARY_METHODS)) {
      this[name] = (request = {}, callOptions = {}) =>
        this._unary(this._ik, method, request, callOptions);
    }
  }

  _metadata(callOptions) {
    const metadata = new grpc.Metadata();
    const token = callOptions.token ?? this.token;
    if (token) metadata.set('authorization', `Bearer ${token}`);
    for (const [key, value] of Object.entries(callOptions.metadata ?? {})) {
      metadata.set(key, value);
    }
    return metadata;
  }

  _deadline(callOptions) {
    if (callOptions.deadline !== undefined) return callOptions.deadline;
    const ms = callOptions.deadlineMs ?? this.deadlineMs;
    return ms === Infinity ? Infinity : new Date(Date.now() + ms);
  }

  _unary(stub, method, request, callOptions) {
    return new Promise((resolve, reject) => {
      stub[method](request, this._metadata(callOptions),
        { deadline: this._deadline(callOptions) }, (error, response) => {
          if (error) reject(toIkError(this._defs, error));
          else resolve(response);
        });
    });
  }

  /**
   * grpc.health.v1 Check: "SERVING", "NOT_SERVING", ... ("" is the server
   * as a whole, "ik.v1.IkService" the API).
   */
  async health(service = '', callOptions = {}) {
    const answer = await this._unary(this._health, 'Check', { service }, callOptions);
    return answer.status;
  }

  /** Opens a TickStream (one bidirectional stream, ticks matched by sequence). */
  tickStream(options = {}) {
    return new TickStream(this, options);
  }

  /** Closes the channels; calls in flight are cancelled. */
  close() {
    this._ik.close();
    this._health.close();
  }
}

/**
 * One `TickStream` kept open: `tick(request)` sends a TickRequest and resolves
 * with the TickResponse that echoes its `sequence` (assigned 1, 2, 3, ...
 * when the request has none). Each tick has its own deadline (the client's
 * default, or `callOptions.deadlineMs`); the stream itself has none unless
 * `options.deadlineMs` is given. A tick that fails as a whole
 * (`TickResponse.status`) rejects with an IkError; the stream stays open.
 */
export class TickStream {
  constructor(client, options = {}) {
    this._client = client;
    this._defs = client._defs;
    this._pending = new Map();    // sequence (string) -> {resolve, reject, timer}
    this._nextSequence = 1n;
    this._closed = false;
    this._error = null;
    this._tickDeadlineMs = options.tickDeadlineMs ?? client.deadlineMs;
    const deadline = options.deadlineMs === undefined
      ? Infinity : new Date(Date.now() + options.deadlineMs);
    this._call = client._ik.TickStream(client._metadata(options), { deadline });
    this._ended = new Promise((resolve) => {
      this._call.on('status', () => resolve());
    });
    this._call.on('data', (response) => this._onResponse(response));
    this._call.on('error', (error) => this._fail(toIkError(this._defs, error)));
    this._call.on('end', () => {
      this._fail(new IkError(grpc.status.UNAVAILABLE, 'the tick stream ended'));
    });
  }

  _onResponse(response) {
    const key = String(response.sequence);
    let entry = this._pending.get(key);
    if (!entry) {
      // Answers come in request order: one that does not echo a known
      // sequence (a request that did not parse) is the oldest tick's.
      if (!(response.status && response.status.code !== 0)) return;
      const oldest = this._pending.keys().next();
      if (oldest.done) return;
      entry = this._pending.get(oldest.value);
      this._pending.delete(oldest.value);
    } else {
      this._pending.delete(key);
    }
    clearTimeout(entry.timer);
    const status = response.status;
    if (status && status.code !== 0) {
      const violations = status.field
        ? [{ field: status.field, description: status.message }] : [];
      entry.reject(new IkError(status.code, status.message, { fieldViolations: violations }));
    } else {
      entry.resolve(response);
    }
  }

  _fail(error) {
    if (!this._error) this._error = error;
    this._closed = true;
    for (const entry of this._pending.values()) {
      clearTimeout(entry.timer);
      entry.reject(this._error);
    }
    this._pending.clear();
  }

  /**
   * Sends one tick; resolves with its answer.
   * @param {object} request a TickRequest
   * @param {{deadlineMs?: number}} [callOptions]
   */
  tick(request, callOptions = {}) {
    if (this._closed) {
      return Promise.reject(this._error ??
        new IkError(grpc.status.CANCELLED, 'the tick stream is closed'));
    }
    let sequence = request.sequence;
    if (sequence === undefined || sequence === null || String(sequence) === '0') {
      sequence = String(this._nextSequence++);
      request = { ...request, sequence };
    }
    const key = String(sequence);
    if (this._pending.has(key)) {
      return Promise.reject(new Error(`TickStream: sequence ${key} is already in flight`));
    }
    return new Promise((resolve, reject) => {
      const ms = callOptions.deadlineMs ?? this._tickDeadlineMs;
      const timer = ms === Infinity ? null : setTimeout(() => {
        if (this._pending.delete(key)) {
          reject(new IkError(grpc.status.DEADLINE_EXCEEDED,
            `tick ${key}: no answer within ${ms} ms`));
        }
      }, ms);
      this._pending.set(key, { resolve, reject, timer });
      this._call.write(request);
    });
  }

  /** Closes the client's side and waits for the stream to end. */
  async close() {
    if (!this._closed) {
      this._closed = true;
      this._call.end();
    }
    await this._ended;
  }

  /** Cancels the stream at once (ticks in flight reject with CANCELLED). */
  cancel() {
    this._call.cancel();
  }
}
