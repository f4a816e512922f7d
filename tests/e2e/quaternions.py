"""Quaternion arithmetic for the e2e tests' own forward kinematics, written
apart from ikd's: (x, y, z, w) tuples, Hamilton products."""


def q_mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def q_rotate(q, v):
    """v turned by the unit quaternion q (q v q*)."""
    x, y, z, _ = q_mul(q_mul(q, (v[0], v[1], v[2], 0.0)),
                       (-q[0], -q[1], -q[2], q[3]))
    return (x, y, z)
