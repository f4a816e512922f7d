#include "ik/base/trig.h"

#include <sleef.h>

namespace ik {

double Sin(double x) { return Sleef_cinz_sind1_u35purec(x); }

double Cos(double x) { return Sleef_cinz_cosd1_u35purec(x); }

double Atan2(double y, double x) { return Sleef_cinz_atan2d1_u35purec(y, x); }

double Acos(double x) { return Sleef_cinz_acosd1_u35purec(x); }

double Asin(double x) { return Sleef_cinz_asind1_u35purec(x); }

double Pow(double x, double y) { return Sleef_cinz_powd1_u10purec(x, y); }

}  // namespace ik
