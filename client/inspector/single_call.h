// A recorded single call (SolveChain, GroundFeet, StepDynamics) read as the
// one-character tick that does the same job, so the inspector draws it as it
// draws a tick: the request's rig, revision and pose become the character's
// (its id is the method's name), its job the character's only job, and the
// answer that job's answer with the final pose it leaves -- the incoming pose
// with the answer's rotations applied (by joint index, as the single answers
// give them) and, for GroundFeet, the root lowered by its root_offset. The
// tick asks for job_rotations, so the page knows which joints the job turned.
//
//   v1::TickRequest request;
//   v1::TickResponse response;
//   if (SingleCallAsTick(call, request, response)) ...
#ifndef IK_CLIENT_INSPECTOR_SINGLE_CALL_H_
#define IK_CLIENT_INSPECTOR_SINGLE_CALL_H_

#include <string>

#include "ik/v1/recording.pb.h"
#include "ik/v1/tick.pb.h"

namespace ik::inspector {

// Whether `method` is a single call this file reads as a tick.
bool IsSingleCall(const std::string& method);

// `call` (a single call, IsSingleCall) as a one-character tick. False when
// its request's bytes do not parse (a failed call's empty answer parses as
// an empty one: the call's code then says it failed).
bool SingleCallAsTick(const v1::RecordedCall& call, v1::TickRequest& request,
                      v1::TickResponse& response);

}  // namespace ik::inspector

#endif  // IK_CLIENT_INSPECTOR_SINGLE_CALL_H_
