// The lane code of a group's substep (dynamics/step_lanes.h), for a lane
// width D of kLanes doubles: Substep's arithmetic (dynamics_substep.cc),
// term for term, on lanes [first, first + kLanes) of the group.
//
// Not a header to include anywhere else: a lane width's source file
// includes it inside an anonymous namespace of ik, after a lane width
// (base/lanes_sse2_kernel.h, base/lanes_avx_kernel.h) and
// base/vector_lanes_kernel.h. Deliberately without an include guard.

using dynamics_internal::ColliderSet;
using dynamics_internal::kAnimatedRow;
using dynamics_internal::kJointRows;
using dynamics_internal::kPositionRow;
using dynamics_internal::kPreviousRow;
using dynamics_internal::kStepLanes;
using dynamics_internal::kTestRows;
using dynamics_internal::LaneSubstep;
using dynamics_internal::PreparedJoint;

inline D LoadLanes(const double* at) {
  D d;
  std::memcpy(&d, at, sizeof(d));
  return d;
}
inline void StoreLanes(double* at, const D& d) {
  std::memcpy(at, &d, sizeof(d));
}
// The three rows from `at` on.
inline V3x LoadPoint(const double* at) {
  return {LoadLanes(at), LoadLanes(at + kStepLanes),
          LoadLanes(at + 2 * kStepLanes)};
}
inline void StorePoint(double* at, const V3x& v) {
  StoreLanes(at, v.x);
  StoreLanes(at + kStepLanes, v.y);
  StoreLanes(at + 2 * kStepLanes, v.z);
}
inline V3x SplatPoint(const Vec3& v) {
  return {Splat(v.x), Splat(v.y), Splat(v.z)};
}
inline Vec3 PointLane(const V3x& v, int lane) {
  return Vec3(v.x[lane], v.y[lane], v.z[lane]);
}
inline void SetPointLane(V3x& v, int lane, const Vec3& value) {
  v.x[lane] = value.x;
  v.y[lane] = value.y;
  v.z[lane] = value.z;
}
inline V3x Select(M mask, const V3x& yes, const V3x& no) {
  return {mask ? yes.x : no.x, mask ? yes.y : no.y, mask ? yes.z : no.z};
}
// A lane's collider set in a comparison's integer lanes.
using LaneSet = std::decay_t<decltype(M{}[0])>;
static_assert(sizeof(LaneSet) == sizeof(ColliderSet));

// The lanes of a group substep: the group's rows from lane `first` on.
struct StepRows {
  const LaneSubstep& in;
  int first;
  // Lanes of [first, first + kLanes) in use, as bits.
  unsigned active;

  double* Joint(int i) const {
    return in.joints + static_cast<ptrdiff_t>(i) * kJointRows * kStepLanes +
           first;
  }
  const double* Test(int c) const {
    return in.tests + static_cast<ptrdiff_t>(c) * kTestRows * kStepLanes +
           first;
  }
};

// OverlapBits (dynamics_substep.cc) with a lane per step: collider `c` of
// each lane's step against that lane's joint at `point`.
inline M OverlapLanes(const StepRows& rows, int c, const V3x& point,
                      double joint_radius) {
  const double* test = rows.Test(c);
  const V3x start = LoadPoint(test);
  const V3x axis = LoadPoint(test + 3 * kStepLanes);
  const D inverse_axis_sq = LoadLanes(test + 6 * kStepLanes);
  const D radius = LoadLanes(test + 7 * kStepLanes);
  const D w_x = point.x - start.x;
  const D w_y = point.y - start.y;
  const D w_z = point.z - start.z;
  // AtLeastZero, then AtMostOne (dynamics/lanes.h).
  D t = (w_x * axis.x + w_y * axis.y + w_z * axis.z) * inverse_axis_sq;
  t = t > Splat(0.0) ? t : Splat(0.0);
  t = t < Splat(1.0) ? t : Splat(1.0);
  const D gap_x = w_x - axis.x * t;
  const D gap_y = w_y - axis.y * t;
  const D gap_z = w_z - axis.z * t;
  const D reach = radius + Splat(joint_radius);
  return gap_x * gap_x + gap_y * gap_y + gap_z * gap_z < reach * reach;
}

// CollideNear (dynamics_substep.cc) for every lane: the overlap tests of
// every collider near any lane's joint (`any`) side by side, then, for a
// lane in use that touches one of its own `near` colliders, PushOut on its
// own.
inline void CollideLanes(const StepRows& rows, M near, ColliderSet any,
                         const PreparedJoint& joint, const V3x& parent,
                         const V3x& shift, V3x& next) {
  const V3x shifted = next - shift;
  M touching = near ^ near;
  for (ColliderSet rest = any; rest != 0; rest &= rest - 1) {
    const int c = absl::countr_zero(rest);
    touching |= OverlapLanes(rows, c, shifted, joint.radius) &
                static_cast<LaneSet>(ColliderSet{1} << c);
  }
  const unsigned contact =
      rows.active & ~MaskBits((touching & near) == LaneSet{0});
  for (int lane = 0; lane < kLanes; ++lane) {
    if (((contact >> lane) & 1u) == 0) continue;
    const Vec3 lane_shift = PointLane(shift, lane);
    SetPointLane(
        next, lane,
        dynamics_internal::PushOut(
            rows.in.colliders[rows.first + lane]->colliders,
            static_cast<ColliderSet>(near[lane]), joint,
            PointLane(parent, lane) - lane_shift, PointLane(shifted, lane)) +
            lane_shift);
  }
}

// PredictPosition (dynamics_substep.cc) on the lanes; a lane without a bone
// direction takes the whole gravity.
inline V3x PredictLanes(const PreparedJoint& joint, D dt_sq, const V3x& wind,
                        const V3x& shift, const V3x& current,
                        const V3x& previous, const V3x& parent_previous,
                        const V3x& animated) {
  const V3x gravity = SplatPoint(joint.gravity);
  const V3x bone = current - parent_previous;
  const D bone_sq = Dot(bone, bone);
  const V3x normal_gravity =
      Select(bone_sq >= Splat(kMinDirectionSquared),
             gravity - (Dot(gravity, bone) / bone_sq) * bone, gravity);
  V3x next = current + (current - previous) * Splat(joint.keep) +
             (normal_gravity + wind * Splat(joint.wind_scale)) * dt_sq;
  if (joint.stiffness != 0.0) {
    next = next + ((animated + shift) - next) * Splat(joint.stiffness);
  }
  return next;
}

// CorrectLength (dynamics_substep.cc) on the lanes; a lane in use whose
// joint lies on its parent takes CorrectDegenerateLength's answer.
inline V3x CorrectLengthLanes(const StepRows& rows, const PreparedJoint& joint,
                              int i, const V3x& parent, const V3x& next) {
  const V3x offset = next - parent;
  const D offset_sq = Dot(offset, offset);
  V3x corrected =
      parent + offset * ((Splat(joint.length) / offset_sq) * Sqrt(offset_sq));
  const unsigned degenerate =
      rows.active & ~MaskBits(offset_sq >= Splat(kMinDirectionSquared));
  for (int lane = 0; lane < kLanes; ++lane) {
    if (((degenerate >> lane) & 1u) == 0) continue;
    SetPointLane(corrected, lane,
                 dynamics_internal::CorrectDegenerateLength(
                     joint, rows.in.animated[rows.first + lane], i,
                     PointLane(parent, lane)));
  }
  return corrected;
}

// SubstepJoints (dynamics_substep.cc) on the lanes: every joint, parent
// before child; in a strand the parent's new and old positions stay in
// registers from one joint to the next.
template <bool kStrand>
void SubstepLanes(const StepRows& rows) {
  const LaneSubstep& in = rows.in;
  const dynamics_internal::ChainView& chain = *in.chain;
  const double substep = chain.chain->substep;
  const D dt_sq = Splat(substep * substep);
  const V3x shift = LoadPoint(&in.shift[0][rows.first]);
  const V3x wind = LoadPoint(&in.wind[0][rows.first]);
  V3x parent_position = LoadPoint(rows.Joint(0) + kPositionRow * kStepLanes);
  V3x parent_previous = LoadPoint(rows.Joint(0) + kPreviousRow * kStepLanes);
  for (int i = 1; i < chain.count; ++i) {
    const PreparedJoint& joint = chain.joints[i];
    double* const at = rows.Joint(i);
    const V3x current = LoadPoint(at + kPositionRow * kStepLanes);
    const V3x parent_was =
        kStrand
            ? parent_previous
            : LoadPoint(rows.Joint(joint.parent) + kPreviousRow * kStepLanes);
    V3x next =
        PredictLanes(joint, dt_sq, wind, shift, current,
                     LoadPoint(at + kPreviousRow * kStepLanes), parent_was,
                     LoadPoint(at + kAnimatedRow * kStepLanes));
    const V3x parent =
        kStrand
            ? parent_position
            : LoadPoint(rows.Joint(joint.parent) + kPositionRow * kStepLanes);
    next = CorrectLengthLanes(rows, joint, i, parent, next);
    M near;
    ColliderSet any = 0;
    for (int lane = 0; lane < kLanes; ++lane) {
      const ColliderSet lane_near =
          in.colliders[rows.first + lane]->candidates[i];
      near[lane] = static_cast<LaneSet>(lane_near);
      any |= lane_near;
    }
    if (any != 0) CollideLanes(rows, near, any, joint, parent, shift, next);
    StorePoint(at + kPreviousRow * kStepLanes, current);
    StorePoint(at + kPositionRow * kStepLanes, next);
    if (kStrand) {
      parent_position = next;
      parent_previous = current;
    }
  }
}

// The substep of lanes [first, first + kLanes).
inline void SubstepLanesFrom(const LaneSubstep& in, int first) {
  const unsigned in_use = in.lanes > first ? in.lanes - first : 0;
  const StepRows rows{in, first,
                      in_use >= static_cast<unsigned>(kLanes)
                          ? (1u << kLanes) - 1
                          : (1u << in_use) - 1};
  if (in.chain->strand) {
    SubstepLanes<true>(rows);
  } else {
    SubstepLanes<false>(rows);
  }
}
