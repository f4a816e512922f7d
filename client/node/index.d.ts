// Types of the ikd Node.js client (hand-written; index.js is the code).
// Messages use the proto's field names (snake_case), enums their names and
// 64-bit integers decimal strings (numbers are accepted in requests). In
// answers every scalar and repeated field is present (proto3 defaults) and an
// unset message field is null; a oneof's name holds the name of the member
// that is set (e.g. `Joint.parent_ref === 'parent'`).
import type { Metadata } from '@grpc/grpc-js';

// ---- values ----------------------------------------------------------------

export interface Vec3 { x?: number; y?: number; z?: number; }
export interface Quat { x?: number; y?: number; z?: number; w?: number; }
export interface Transform { translation?: Vec3 | null; rotation?: Quat | null; scale?: Vec3 | null; }
export interface JointPose {
  name?: string;
  index?: number;
  local?: Transform | null;
}
export interface Pose {
  root?: Transform | null;
  joints?: JointPose[];
  /** Packed local rotations, x, y, z, w per joint in rig order. */
  rotations?: number[];
}
export interface JointRotation { name: string; index: number; rotation: Required<Quat>; }

export type Solver =
  'SOLVER_UNSPECIFIED' | 'SOLVER_AUTO' | 'SOLVER_TWO_BONE' | 'SOLVER_FABRIK' |
  'SOLVER_CCD' | 'SOLVER_TORQUE';
export type StopReason =
  'STOP_REASON_UNSPECIFIED' | 'STOP_REASON_REACHED' | 'STOP_REASON_ITERATION_CAP' |
  'STOP_REASON_NO_IMPROVEMENT' | 'STOP_REASON_OUT_OF_REACH';
/** A uint64 (e.g. a tick's sequence): a decimal string in answers. */
export type Uint64 = string | number | bigint;

/** Any other message of ik.v1 (see proto/ik/v1/*.proto). */
export type Message = { [field: string]: unknown };

// ---- rigs -----------------------------------------------------------------

export interface Joint {
  name: string;
  parent?: string;
  parent_index?: number;
  parent_ref?: 'parent' | 'parent_index';
  rest?: Transform | null;
  limit?: Message | null;
}
export interface Chain {
  name: string;
  root: string;
  tip: string;
  solver?: Solver;
  max_iterations?: number;
  tolerance?: number;
  [field: string]: unknown;
}
export interface Rig {
  name: string;
  joints: Joint[];
  chains?: Chain[];
  legs?: Message[];
  dynamic_chains?: Message[];
  colliders?: Message[];
  forward?: Vec3 | null;
}
export interface RegisterRigRequest { rig: Rig; replace?: boolean; }
export interface RegisterRigResponse { name: string; revision: string; created: boolean; replaced: boolean; }
export interface GetRigRequest { name: string; }
export interface GetRigResponse { rig: Rig; revision: string; }
export interface RigSummary { name: string; revision: string; joint_count: number; chains: string[]; }
export interface ListRigsResponse { rigs: RigSummary[]; }
export interface DeleteRequest { name: string; revision?: string; }
export interface DeleteResponse { revision: string; }

// ---- SolveChain ------------------------------------------------------------

export interface ChainGoal {
  chain?: string;
  ad_hoc_chain?: { root: string; tip: string };
  target: Vec3;
  pole?: Vec3;
  solver?: Solver;
  max_iterations?: number;
  tolerance?: number;
  orientation?: Quat;
  orientation_weight?: number;
  swivel?: number;
  history_free?: boolean;
}
export interface SolveChainRequest {
  rig: string;
  revision?: string;
  pose?: Pose;
  goals: ChainGoal[];
}
export interface GoalResult {
  chain: string;
  rotations: JointRotation[];
  reached: boolean;
  residual: number;
  iterations: number;
  stop_reason: StopReason;
  effector: Required<Vec3>;
  solver: Solver;
  limited_joints: string[];
  near_singularity: boolean;
  singularity_angle: number;
  branch_switch: boolean;
}
export interface SolveChainResponse { revision: string; results: GoalResult[]; }

// ---- StepDynamics ----------------------------------------------------------

export interface DynamicChainState {
  chain: string;
  revision: string;
  positions: Required<Vec3>[];
  previous_positions: Required<Vec3>[];
  rotations: Required<Quat>[];
  time_remainder: number;
  noise_time: number;
  packed: number[];
  /** The same numbers as float32: how a tick answers a compact character. */
  packed_floats: number[];
}
export interface StepDynamicsRequest {
  rig: string;
  revision?: string;
  pose?: Pose;
  delta_time: number;
  chains?: string[];
  /** The previous answer's states, sent back as they came. */
  states?: DynamicChainState[];
  reset?: boolean;
  wind?: Message;
}
export interface DynamicChainResult {
  chain: string;
  joints: string[];
  rotations: JointRotation[];
  state: DynamicChainState;
  substeps: number;
  clamped: boolean;
  reset: 'DYNAMICS_RESET_NONE' | 'DYNAMICS_RESET_EMPTY_STATE' |
    'DYNAMICS_RESET_REQUESTED' | 'DYNAMICS_RESET_TELEPORT';
}
export interface StepDynamicsResponse { revision: string; results: DynamicChainResult[]; }

// ---- GroundFeet and terrains ----------------------------------------------

export interface Ground {
  planes?: Message[];
  heightfields?: Message[];
  /** Registered terrains by name. */
  terrains?: string[];
}
export interface GroundFeetRequest {
  rig: string;
  revision?: string;
  pose?: Pose;
  ground: Ground;
  /** Planted weight per leg in [0, 1]. */
  weights?: number[];
  smoothing?: Message;
  tolerance?: number;
}
export interface FootResult {
  leg: string;
  ground_found: boolean;
  contact_point: Required<Vec3> | null;
  contact_normal: Required<Vec3> | null;
  grounded: boolean;
  goal: Required<Vec3> | null;
  reached: boolean;
  moved: number;
  foot_offset: Required<Vec3> | null;
  tilt: number;
  tilt_clamped: boolean;
  branch_switch: boolean;
}
export interface GroundFeetResponse {
  revision: string;
  pelvis_drop: number;
  pelvis_drop_target: number;
  pelvis_drop_clamped: boolean;
  root_offset: Required<Vec3> | null;
  rotations: JointRotation[];
  feet: FootResult[];
  terrain_revisions: string[];
}
export interface Terrain {
  name: string;
  heightfield?: {
    origin?: Vec3; spacing_x: number; spacing_z: number; columns: number; rows: number;
    heights: number[];
  };
  mesh?: { vertices: number[]; indices: number[] };
}
export interface RegisterTerrainRequest { terrain: Terrain; replace?: boolean; }
export interface RegisterTerrainResponse { name: string; revision: string; created: boolean; replaced: boolean; }
export interface TerrainSummary {
  name: string;
  revision: string;
  kind: 'TERRAIN_KIND_UNSPECIFIED' | 'TERRAIN_KIND_HEIGHTFIELD' | 'TERRAIN_KIND_MESH';
  vertex_count: number;
  triangle_count: number;
  bounds_min: Required<Vec3> | null;
  bounds_max: Required<Vec3> | null;
}
export interface ListTerrainsResponse { terrains: TerrainSummary[]; }

// ---- Tick -------------------------------------------------------------------

/**
 * The tick's compact form of a pose (proto/ik/v1/tick.proto): float32 or
 * 48-bit quantized local rotations by joint index, float32 translations for
 * the joints whose bone differs from the rig's. Build one with compactPose.
 */
export interface CompactPose {
  root?: Transform | null;
  /** The joints the rotations are for, ascending; empty: 0, 1, 2, ... */
  joints?: number[];
  /** float32 rotations, x, y, z, w per joint. */
  rotations?: number[];
  /** 6 bytes a joint (smallest three); in answers a Buffer. */
  quantized_rotations?: Uint8Array | string;
  translated_joints?: number[];
  /** float32, x, y, z per translated joint. */
  translations?: number[];
}

/** A job's status inside a tick answer (null when OK). */
export interface JobStatus { code: number; message: string; field: string; }
export interface TickCharacter {
  id?: string;
  rig: string;
  revision?: string;
  /** The pose as a Pose of doubles; at most one of pose and compact_pose. */
  pose?: Pose;
  /** The pose in the compact form (answered in the same form). */
  compact_pose?: CompactPose;
  ground?: Omit<GroundFeetRequest, 'rig' | 'ground'> & { ground?: Ground };
  goals?: ChainGoal[];
  dynamics?: Omit<StepDynamicsRequest, 'rig'>;
  check?: { tolerance?: number };
}
export interface TickRequest {
  characters: TickCharacter[];
  shared_ground?: Ground;
  /** Echoed in the answer; a TickStream assigns one when it is unset. */
  sequence?: Uint64;
  job_rotations?: boolean;
  detail?: 'TICK_DETAIL_FULL' | 'TICK_DETAIL_POSE';
}
export interface TickCharacterResult {
  id: string;
  revision: string;
  status: JobStatus | null;
  root: Transform | null;
  /** Joints the jobs changed (indices, ascending) and their packed rotations. */
  joints: number[];
  rotations: number[];
  /**
   * For a character sent with compact_pose, its final pose instead of root,
   * joints and rotations: the joints changed, their rotations in the
   * request's encoding (quantized_rotations a Buffer). Read it with
   * changedRotations / finalRotations.
   */
  compact_pose: (CompactPose & { quantized_rotations: Buffer }) | null;
  ground_status: JobStatus | null;
  ground: GroundFeetResponse | null;
  goals_status: JobStatus | null;
  goals: GoalResult[];
  dynamics_status: JobStatus | null;
  dynamics: StepDynamicsResponse | null;
  check_status: JobStatus | null;
  check: Message | null;
}
export interface TickResponse {
  characters: TickCharacterResult[];
  sequence: string;
  status: JobStatus | null;
}

// ---- the compact form (compact.js) -------------------------------------------

/**
 * Rotations as an engine holds them: a flat array-like, x, y, z, w per joint
 * (Float32Array, Float64Array, number[]), or one [x, y, z, w] or {x, y, z, w}
 * a joint.
 */
export type Rotations = ArrayLike<number> | ReadonlyArray<ArrayLike<number> | Required<Quat>>;
/** Translations by joint index: {5: [x, y, z]} or a Map. */
export type Translations =
  Record<number, ArrayLike<number> | Vec3> | Map<number, ArrayLike<number> | Vec3>;
export type PoseForm = 'float' | 'quantized' | 'pose';

export interface CompactPoseOptions {
  /** The character's root, model space -> world space (unset: identity). */
  root?: Transform | null;
  /** 48-bit rotations (6 bytes a joint, within 1.4e-4 rad) instead of float32. */
  quantized?: boolean;
  /** The joints the rotations are for, ascending (default: 0, 1, 2, ...). */
  joints?: ArrayLike<number> | null;
  /** The joints whose bone differs from the rig's rest translation. */
  translations?: Translations | null;
}

/** 6: bytes per joint of CompactPose.quantized_rotations. */
export declare const QUANTIZED_BYTES: 6;
/** 'float' (the default of tickCharacter), 'quantized', 'pose'. */
export declare const POSE_FORMS: readonly PoseForm[];
/** The rotations as one flat Float64Array, x, y, z, w per joint. */
export declare function flatRotations(rotations: Rotations): Float64Array;
/** The rotations as CompactPose.quantized_rotations (6 bytes a joint). */
export declare function quantizeRotations(rotations: Rotations): Buffer;
/** Quantized rotations decoded as ikd reads them: flat x, y, z, w per joint. */
export declare function dequantizeRotations(bytes: Uint8Array | string): Float64Array;
/** A CompactPose of the engine's rotations (float32, or quantized). */
export declare function compactPose(rotations?: Rotations, options?: CompactPoseOptions): CompactPose;
/** The same engine data as a Pose of doubles (the form every RPC takes). */
export declare function plainPose(rotations?: Rotations, options?: Omit<CompactPoseOptions, 'quantized'>): Pose;
/**
 * A TickCharacter whose pose is the engine's rotations: in the compact form
 * ('float', the default, or 'quantized') or as a Pose ('pose').
 */
export declare function tickCharacter(
  rig: string, rotations?: Rotations,
  options?: Omit<CompactPoseOptions, 'quantized'> & { form?: PoseForm } &
    Omit<TickCharacter, 'rig' | 'pose' | 'compact_pose'>): TickCharacter;
/** The Pose whose doubles are a CompactPose's numbers, widened or decoded. */
export declare function widenedPose(pose: CompactPose): Pose;
/** The joints a tick's jobs turned and their final rotations, from either form of the answer. */
export declare function changedRotations(result: TickCharacterResult):
  { joints: number[]; rotations: Float64Array };
/** Writes the turned joints' rotations into `target` (flat), in place; returns it. */
export declare function applyFinalRotations<T extends { [index: number]: number; readonly length: number }>(
  result: TickCharacterResult, target: T): T;
/** A copy of `base` (flat: of the same type) with the turned joints' rotations. */
export declare function finalRotations<T extends Float32Array | Float64Array | number[]>(
  result: TickCharacterResult, base: T): T;
export declare function finalRotations(
  result: TickCharacterResult, base: ReadonlyArray<ArrayLike<number> | Required<Quat>>): Float64Array;
/** The final root (after grounding), from either form of the answer. */
export declare function finalRoot(result: TickCharacterResult): Transform | null;

// ---- the client ------------------------------------------------------------

export interface TlsOptions {
  /** PEM CA bundle that signs ikd's certificate (file path). */
  ca?: string;
  /** PEM client certificate (ikd --tls_client_ca), file path. */
  cert?: string;
  /** PEM key of `cert`, file path. */
  key?: string;
  /** The name to check ikd's certificate against, when not the target's host. */
  serverName?: string;
}

export interface ClientOptions {
  /** Default deadline of every call, milliseconds (5000). */
  deadlineMs?: number;
  /** Bearer token (ikd --token_file): `authorization: Bearer <token>` on every call. */
  token?: string | null;
  /** TLS (and client certificate) files; plaintext without. */
  tls?: TlsOptions | null;
  /** grpc-js channel options (e.g. a service config). */
  channelOptions?: Record<string, unknown>;
  /** The API's proto root (default: the repository's proto/, or $IKD_PROTO_DIR). */
  protoDir?: string;
  /** googleapis root with google/rpc/*.proto (default: Debian's golang-github-gogo-googleapis-dev). */
  googleapisDir?: string;
  /** Root with grpc/health/v1/health.proto (default: Debian's grpc-proto, /usr/share/grpc-proto). */
  grpcProtoDir?: string;
}

export interface CallOptions {
  /** This call's deadline, milliseconds from now (overrides the client's). */
  deadlineMs?: number;
  /** An absolute deadline (wins over deadlineMs). */
  deadline?: Date | number;
  /** This call's token (overrides the client's). */
  token?: string;
  /** Extra metadata. */
  metadata?: Record<string, string | Buffer>;
}

export interface FieldViolation { field: string; description: string; }

/** gRPC status codes by name (Code.NOT_FOUND === 5). */
export declare const Code: Readonly<Record<string, number>> & {
  readonly OK: 0; readonly CANCELLED: 1; readonly UNKNOWN: 2; readonly INVALID_ARGUMENT: 3;
  readonly DEADLINE_EXCEEDED: 4; readonly NOT_FOUND: 5; readonly ALREADY_EXISTS: 6;
  readonly PERMISSION_DENIED: 7; readonly RESOURCE_EXHAUSTED: 8; readonly FAILED_PRECONDITION: 9;
  readonly ABORTED: 10; readonly OUT_OF_RANGE: 11; readonly UNIMPLEMENTED: 12; readonly INTERNAL: 13;
  readonly UNAVAILABLE: 14; readonly DATA_LOSS: 15; readonly UNAUTHENTICATED: 16;
};
export declare function codeName(code: number): string;
export declare const DEFAULT_DEADLINE_MS: number;
export declare const DEFAULT_PROTO_PATHS: Readonly<{ protoDir: string; googleapisDir: string; grpcProtoDir: string }>;

/** Every rejected promise of the client is an IkError. */
export declare class IkError extends Error {
  constructor(code: number, message: string,
    options?: { fieldViolations?: FieldViolation[]; metadata?: Metadata | null; cause?: unknown });
  readonly name: 'IkError';
  /** gRPC status code number. */
  readonly code: number;
  /** Its name, e.g. "INVALID_ARGUMENT". */
  readonly codeName: string;
  /** The field the error names (google.rpc.BadRequest), e.g. "goals[0].target"; null when none. */
  readonly fieldPath: string | null;
  /** Every field violation of the status details' google.rpc.BadRequest. */
  readonly fieldViolations: FieldViolation[];
  /** The call's trailers, when there were any. */
  readonly metadata: Metadata | null;
}

export declare class TickStream {
  /** Sends a tick; resolves with the answer echoing its sequence. */
  tick(request: TickRequest, callOptions?: { deadlineMs?: number }): Promise<TickResponse>;
  /** Ends the client's side and waits for the stream to close. */
  close(): Promise<void>;
  /** Cancels the stream at once. */
  cancel(): void;
}

export interface TickStreamOptions {
  /** Deadline per tick, milliseconds (default: the client's). */
  tickDeadlineMs?: number;
  /** Deadline of the whole stream, milliseconds (default: none). */
  deadlineMs?: number;
  /** Token for the stream (default: the client's). */
  token?: string;
  metadata?: Record<string, string | Buffer>;
}

export declare class IkClient {
  constructor(target?: string, options?: ClientOptions);
  readonly target: string;
  deadlineMs: number;
  token: string | null;

  solveChain(request: SolveChainRequest, options?: CallOptions): Promise<SolveChainResponse>;
  groundFeet(request: GroundFeetRequest, options?: CallOptions): Promise<GroundFeetResponse>;
  stepDynamics(request: StepDynamicsRequest, options?: CallOptions): Promise<StepDynamicsResponse>;
  tick(request: TickRequest, options?: CallOptions): Promise<TickResponse>;
  /** One TickStream kept open; its ticks are matched to answers by `sequence`. */
  tickStream(options?: TickStreamOptions): TickStream;

  registerRig(request: RegisterRigRequest, options?: CallOptions): Promise<RegisterRigResponse>;
  getRig(request: GetRigRequest, options?: CallOptions): Promise<GetRigResponse>;
  listRigs(request?: Record<string, never>, options?: CallOptions): Promise<ListRigsResponse>;
  deleteRig(request: DeleteRequest, options?: CallOptions): Promise<DeleteResponse>;
  registerTerrain(request: RegisterTerrainRequest, options?: CallOptions): Promise<RegisterTerrainResponse>;
  listTerrains(request?: Record<string, never>, options?: CallOptions): Promise<ListTerrainsResponse>;
  deleteTerrain(request: DeleteRequest, options?: CallOptions): Promise<DeleteResponse>;

  /** grpc.health.v1 Check ("" for the server, "ik.v1.IkService" for the API). */
  health(service?: string, options?: CallOptions): Promise<'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN'>;
  /** Closes the channels. */
  close(): void;
}
