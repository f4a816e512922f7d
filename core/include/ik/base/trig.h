// Elementary functions with the same bits on every machine.
//
// glibc picks an FMA or a plain build of sin, cos, atan2, acos, asin and pow
// per CPU when it loads (ifuncs), and the two may differ in the last bit, so
// replicas on different CPU generations could disagree. Every solver path of
// the core calls these instead: SLEEF's "consistent" scalar builds
// (Sleef_cinz_*d1_*purec), plain C with no FMA, whose results SLEEF keeps
// bit-identical across platforms. sqrt, fmod and remainder are exact in
// IEEE 754 and stay std::.
//
// Accuracy: 3.5 ULP (sin, cos, atan2, acos, asin), 1 ULP (pow).
//
//   const double w = ik::Cos(0.5 * angle);
//   const double heading = ik::Atan2(forward.x, forward.z);
#ifndef IK_BASE_TRIG_H_
#define IK_BASE_TRIG_H_

namespace ik {

double Sin(double x);
double Cos(double x);
double Atan2(double y, double x);
double Acos(double x);
double Asin(double x);
double Pow(double x, double y);

}  // namespace ik

#endif  // IK_BASE_TRIG_H_
