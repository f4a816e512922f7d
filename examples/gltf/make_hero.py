#!/usr/bin/python3
"""Writes examples/gltf/hero.gltf: a small humanoid skeleton as a game
engine or DCC tool exports it -- Mixamo bone names (``mixamorig:LeftArm``),
centimetres under an ``Armature`` node scaled by 0.01, +Y up, facing +Z --
plus a three-bone ponytail (``hair_1`` .. ``hair_3``) behind the head. A
skin with no mesh: all ``ikctl rigs import`` reads.

    /usr/bin/python3 examples/gltf/make_hero.py > examples/gltf/hero.gltf
"""
import json
import sys

# name, parent (index into BONES, -1: under the armature), translation (cm)
BONES = [
    ("mixamorig:Hips", -1, (0, 95, 0)),
    ("mixamorig:Spine", 0, (0, 12, 0)),
    ("mixamorig:Spine2", 1, (0, 15, 0)),
    ("mixamorig:Neck", 2, (0, 20, 0)),
    ("mixamorig:Head", 3, (0, 10, 0)),
    ("mixamorig:LeftShoulder", 2, (4, 17, 0)),
    ("mixamorig:LeftArm", 5, (12, 0, 0)),
    ("mixamorig:LeftForeArm", 6, (28, 0, 0)),
    ("mixamorig:LeftHand", 7, (25, 0, 0)),
    ("mixamorig:RightShoulder", 2, (-4, 17, 0)),
    ("mixamorig:RightArm", 9, (-12, 0, 0)),
    ("mixamorig:RightForeArm", 10, (-28, 0, 0)),
    ("mixamorig:RightHand", 11, (-25, 0, 0)),
    ("mixamorig:LeftUpLeg", 0, (9, -5, 0)),
    ("mixamorig:LeftLeg", 13, (0, -42, 0)),
    ("mixamorig:LeftFoot", 14, (0, -40, 0)),
    ("mixamorig:LeftToeBase", 15, (0, -6, 12)),
    ("mixamorig:RightUpLeg", 0, (-9, -5, 0)),
    ("mixamorig:RightLeg", 17, (0, -42, 0)),
    ("mixamorig:RightFoot", 18, (0, -40, 0)),
    ("mixamorig:RightToeBase", 19, (0, -6, 12)),
    ("hair_1", 4, (0, 8, -9)),
    ("hair_2", 21, (0, 0, -12)),
    ("hair_3", 22, (0, 0, -12)),
]


def main():
    nodes = [{"name": "Armature", "scale": [0.01, 0.01, 0.01], "children": []}]
    for name, parent, translation in BONES:
        nodes.append({"name": name, "translation": [float(v) for v in translation]})
        nodes[0 if parent < 0 else parent + 1].setdefault("children", []).append(
            len(nodes) - 1)
    gltf = {
        "asset": {"version": "2.0", "generator": "examples/gltf/make_hero.py"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "skins": [{"name": "hero", "joints": list(range(1, len(nodes)))}],
    }
    json.dump(gltf, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
