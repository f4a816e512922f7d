#!/usr/bin/python3
"""Checks an SVG of `ikctl render` against forward kinematics computed here,
independently of ikctl: check_render.py SVG RIG_JSON [SOLVE_JSON]

RIG_JSON is `ikctl --json rigs get NAME`; SOLVE_JSON, when given, is
`ikctl --json solve ...` for the same goal the picture shows (its rotations
pose the rig). Every joint dot of both views must sit where the picture's
own projection (data-scale, data-min-y, data-y0; per view data-axis,
data-min-h, data-x0) puts this script's forward kinematics, within 1e-6 px,
and the bones must join each joint to its parent. Prints what it checked."""
import json
import math
import sys
import xml.etree.ElementTree as ET

from quaternions import q_mul, q_rotate

SVG = "{http://www.w3.org/2000/svg}"


def quat(message):
    return tuple(float(message.get(k, 0.0)) for k in ("x", "y", "z", "w"))


def main():
    svg_path, rig_path = sys.argv[1], sys.argv[2]
    rig = json.load(open(rig_path))["rig"]
    turned = {}
    if len(sys.argv) > 3:
        for result in json.load(open(sys.argv[3]))["results"]:
            for joint in result.get("rotations", []):
                turned[joint["name"]] = quat(joint["rotation"])
    names, model = [], {}
    for joint in rig["joints"]:
        rest = joint.get("rest", {})
        t = tuple(float(rest.get("translation", {}).get(k, 0.0)) for k in "xyz")
        r = quat(rest["rotation"]) if "rotation" in rest else (0.0, 0.0, 0.0, 1.0)
        r = turned.get(joint["name"], r)
        parent = joint.get("parent")
        if parent is None and "parent_index" in joint:
            parent = rig["joints"][joint["parent_index"]]["name"]
        if parent:
            p_pos, p_rot = model[parent]
            offset = q_rotate(p_rot, t)
            model[joint["name"]] = (tuple(p_pos[i] + offset[i] for i in range(3)),
                                    q_mul(p_rot, r))
        else:
            model[joint["name"]] = (t, r)
        names.append((joint["name"], parent))

    root = ET.parse(svg_path).getroot()  # the SVG must parse as XML
    scale = float(root.get("data-scale"))
    min_y = float(root.get("data-min-y"))
    y0 = float(root.get("data-y0"))
    views = root.findall(f"{SVG}g[@class='view']")
    assert [v.get("id") for v in views] == ["front", "side"], views
    worst = 0.0
    for view in views:
        axis = {"x": 0, "z": 2}[view.get("data-axis")]
        min_h = float(view.get("data-min-h"))
        x0 = float(view.get("data-x0"))
        dots = {c.get("data-joint"): c for c in view.findall(f"{SVG}circle[@class='joint']")}
        assert set(dots) == set(model), (set(dots) ^ set(model))
        for name, (position, _) in model.items():
            sx = x0 + scale * (position[axis] - min_h)
            sy = y0 - scale * (position[1] - min_y)
            dot = dots[name]
            error = max(abs(float(dot.get("cx")) - sx), abs(float(dot.get("cy")) - sy))
            worst = max(worst, error)
            assert error <= 1e-6, (view.get("id"), name, error)
        bones = {b.get("data-joint"): b for b in view.findall(f"{SVG}line[@class='bone']")}
        for name, parent in names:
            if not parent:
                assert name not in bones, name
                continue
            bone = bones[name]
            assert math.isclose(float(bone.get("x1")), float(dots[parent].get("cx")),
                                abs_tol=1e-6), name
            assert math.isclose(float(bone.get("x2")), float(dots[name].get("cx")),
                                abs_tol=1e-6), name
    print(f"{svg_path}: {len(model)} joints in 2 views within {worst:.1e} px of "
          f"forward kinematics ({len(turned)} turned by the answer)")


if __name__ == "__main__":
    main()
