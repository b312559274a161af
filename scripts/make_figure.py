#!/usr/bin/env python3
"""Writes assets/character/figure.gltf and figure.bin: the worked example's character.

A stylised humanoid about 1.8 units tall, standing on y = 0 and facing +z, built from
bevelled boxes, each skinned rigidly (weight 1) to one joint of a 22-joint skin with the
conventional names (Hips, Spine, Spine1, Spine2, Neck, Head, Left/Right Shoulder, Arm,
ForeArm, Hand, UpLeg, Leg, Foot, Toe). Six clips: Idle (2.0 s loop), Walk (1.0 s loop),
Run (0.7 s loop), Jump (1.2 s, once), Wave (1.5 s loop, Spine2 and above only) and Breathe
(3.0 s loop, additive against its first frame).

Python 3 standard library only. The output is the same bytes on every run: every number
is rounded to 6 decimals before it is stored as a float, and the JSON is written in a
fixed order. Run from anywhere: `python3 scripts/make_figure.py` (writes next to the
scene in assets/character/; `--out DIR` writes elsewhere).

Conventions. Every joint's rest rotation is the identity, so a joint's local axes are the
world axes in the rest pose: x points to the figure's left, y up, z forward. A positive
rotation about x swings a limb that hangs down backwards (a knee bends positive, an elbow
negative, a thigh swings forward negative); about z it swings the left limbs out (the
right limbs out with a negative angle). Euler angles (degrees) compose as
yaw(y) * pitch(x) * roll(z): roll first, then pitch, then yaw, each in the parent's frame.

Feet. Idle and Jump place the hips' height by forward kinematics so that the lowest
vertex of the shoes is exactly on y = 0 while a foot is down (plus the jump's flight).
Walk and Run solve their legs by two-bone inverse kinematics from ankle paths (class Gait):
a planted ankle moves back at exactly the gait's ground speed, so the feet do not slide
when the game moves the character at that speed, and no shoe goes below y = 0.
"""

import argparse
import json
import math
import os
import struct

FPS = 30  # animation keys per second

# ----------------------------------------------------------------------------------------
# Quaternions (x, y, z, w) and small vector helpers.


def q_axis(axis, degrees):
    h = math.radians(degrees) * 0.5
    s = math.sin(h)
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(h))


def q_mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def q_conj(q):
    return (-q[0], -q[1], -q[2], q[3])


def q_norm(q):
    n = math.sqrt(sum(c * c for c in q))
    q = tuple(c / n for c in q)
    return q if q[3] >= 0.0 else tuple(-c for c in q)


def q_rotate(q, v):
    p = q_mul(q_mul(q, (v[0], v[1], v[2], 0.0)), q_conj(q))
    return (p[0], p[1], p[2])


def euler(pitch=0.0, yaw=0.0, roll=0.0):
    """yaw(y) * pitch(x) * roll(z), degrees."""
    return q_norm(
        q_mul(q_axis((0, 1, 0), yaw), q_mul(q_axis((1, 0, 0), pitch), q_axis((0, 0, 1), roll))))


def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def r6(x):
    """Rounds to 6 decimals (and never returns -0.0), so libm's last bits never show."""
    v = round(x, 6)
    return 0.0 if v == 0.0 else v


# ----------------------------------------------------------------------------------------
# The skeleton: name, parent, rest position in the world (every rest rotation is identity).

JOINTS = [
    ("Hips", None, (0.0, 0.96, 0.0)),
    ("Spine", "Hips", (0.0, 1.04, 0.0)),
    ("Spine1", "Spine", (0.0, 1.16, 0.0)),
    ("Spine2", "Spine1", (0.0, 1.28, 0.0)),
    ("Neck", "Spine2", (0.0, 1.50, 0.0)),
    ("Head", "Neck", (0.0, 1.59, 0.0)),
    ("LeftShoulder", "Spine2", (0.05, 1.45, 0.0)),
    ("LeftArm", "LeftShoulder", (0.215, 1.435, 0.0)),
    ("LeftForeArm", "LeftArm", (0.215, 1.155, 0.0)),
    ("LeftHand", "LeftForeArm", (0.215, 0.905, 0.0)),
    ("RightShoulder", "Spine2", (-0.05, 1.45, 0.0)),
    ("RightArm", "RightShoulder", (-0.215, 1.435, 0.0)),
    ("RightForeArm", "RightArm", (-0.215, 1.155, 0.0)),
    ("RightHand", "RightForeArm", (-0.215, 0.905, 0.0)),
    ("LeftUpLeg", "Hips", (0.095, 0.91, 0.0)),
    ("LeftLeg", "LeftUpLeg", (0.095, 0.50, 0.0)),
    ("LeftFoot", "LeftLeg", (0.095, 0.09, 0.0)),
    ("LeftToe", "LeftFoot", (0.095, 0.03, 0.13)),
    ("RightUpLeg", "Hips", (-0.095, 0.91, 0.0)),
    ("RightLeg", "RightUpLeg", (-0.095, 0.50, 0.0)),
    ("RightFoot", "RightLeg", (-0.095, 0.09, 0.0)),
    ("RightToe", "RightFoot", (-0.095, 0.03, 0.13)),
]
JOINT_INDEX = {name: i for i, (name, _, _) in enumerate(JOINTS)}
PARENT = {name: parent for name, parent, _ in JOINTS}
REST = {name: pos for name, _, pos in JOINTS}


def local_rest(name):
    parent = PARENT[name]
    return REST[name] if parent is None else sub(REST[name], REST[parent])


# ----------------------------------------------------------------------------------------
# Materials (baseColorFactor only; linear RGB) and the boxes.

MATERIALS = [
    ("Skin", (0.80, 0.52, 0.38)),
    ("Shirt", (0.13, 0.36, 0.62)),
    ("Trousers", (0.075, 0.085, 0.13)),
    ("Shoes", (0.11, 0.06, 0.035)),
    ("Hair", (0.16, 0.085, 0.04)),
]
MATERIAL_INDEX = {name: i for i, (name, _) in enumerate(MATERIALS)}


def box(joint, material, x, y, z, taper=(1.0, 1.0), bevel=None):
    """A box over [x0, x1] x [y0, y1] x [z0, z1] in the rest pose, on one joint.

    taper = (sx, sz): the x and z half-widths at the bottom (y0) are scaled by these about
    the box's own centre line (1: a plain box), so limbs narrow towards the wrist or knee.
    bevel: the chamfer on every edge (default: a quarter of the smallest half-size).
    """
    return {"joint": joint, "material": material, "x": x, "y": y, "z": z, "taper": taper,
            "bevel": bevel}


def mirrored(b):
    """The same box on the right side (x negated, Left* joints to Right*)."""
    m = dict(b)
    m["joint"] = b["joint"].replace("Left", "Right")
    m["x"] = (-b["x"][1], -b["x"][0])
    return m


LEFT_BOXES = [
    box("LeftShoulder", "Shirt", (0.04, 0.265), (1.385, 1.485), (-0.075, 0.075)),
    box("LeftArm", "Shirt", (0.168, 0.262), (1.135, 1.455), (-0.052, 0.052), (0.85, 0.85)),
    box("LeftForeArm", "Shirt", (0.176, 0.254), (0.905, 1.17), (-0.044, 0.044), (0.82, 0.85)),
    box("LeftHand", "Skin", (0.192, 0.238), (0.765, 0.915), (-0.048, 0.048), (0.9, 0.8), 0.014),
    box("LeftHand", "Skin", (0.205, 0.238), (0.83, 0.895), (0.04, 0.072), bevel=0.01),  # thumb
    box("LeftUpLeg", "Trousers", (0.025, 0.168), (0.48, 0.95), (-0.078, 0.078), (0.82, 0.8)),
    box("LeftLeg", "Trousers", (0.042, 0.148), (0.1, 0.52), (-0.06, 0.06), (0.86, 0.84)),
    box("LeftFoot", "Shoes", (0.043, 0.147), (0.0, 0.118), (-0.075, 0.13), bevel=0.02),
    box("LeftToe", "Shoes", (0.045, 0.145), (0.0, 0.07), (0.125, 0.215), bevel=0.02),
]

BOXES = [
    # Pelvis and torso: trousers at the hips, the shirt from the waist up.
    box("Hips", "Trousers", (-0.155, 0.155), (0.845, 1.06), (-0.1, 0.1), (0.95, 0.95)),
    box("Spine", "Shirt", (-0.138, 0.138), (1.0, 1.19), (-0.094, 0.098), bevel=0.022),
    box("Spine1", "Shirt", (-0.152, 0.152), (1.12, 1.33), (-0.1, 0.108), (0.93, 0.95), 0.025),
    box("Spine2", "Shirt", (-0.172, 0.172), (1.25, 1.49), (-0.11, 0.12), (0.9, 0.93), 0.035),
    # Neck and head, with hair, a nose and eyes so the face reads at a glance.
    box("Neck", "Skin", (-0.048, 0.048), (1.46, 1.615), (-0.05, 0.046), bevel=0.015),
    box("Head", "Skin", (-0.105, 0.105), (1.575, 1.81), (-0.108, 0.118), (0.9, 0.85), 0.035),
    box("Head", "Hair", (-0.113, 0.113), (1.745, 1.835), (-0.122, 0.105), bevel=0.035),
    box("Head", "Hair", (-0.113, 0.113), (1.63, 1.79), (-0.124, -0.055), bevel=0.03),
    box("Head", "Skin", (-0.016, 0.016), (1.655, 1.705), (0.1, 0.142), bevel=0.01),  # nose
    box("Head", "Hair", (0.026, 0.058), (1.705, 1.727), (0.095, 0.122), bevel=0.006),  # eye
    box("Head", "Hair", (-0.058, -0.026), (1.705, 1.727), (0.095, 0.122), bevel=0.006),
] + LEFT_BOXES + [mirrored(b) for b in LEFT_BOXES]


def box_polygons(b):
    """The bevelled box as outward-facing convex polygons (lists of rest-pose points)."""
    x0, x1 = b["x"]
    y0, y1 = b["y"]
    z0, z1 = b["z"]
    c = ((x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2)
    h = ((x1 - x0) / 2, (y1 - y0) / 2, (z1 - z0) / 2)
    r = b["bevel"] if b["bevel"] is not None else min(h) * 0.5
    r = min(r, min(h) * 0.9)
    sx, sz = b["taper"]

    def place(u):
        # u is a point of the box centred at the origin; taper x and z towards the bottom.
        t = (u[1] + h[1]) / (2 * h[1])  # 0 at the bottom, 1 at the top
        kx = sx + (1.0 - sx) * t
        kz = sz + (1.0 - sz) * t
        return (c[0] + u[0] * kx, c[1] + u[1], c[2] + u[2] * kz)

    polys = []
    # The six faces, inset by the bevel.
    for axis in range(3):
        for sign in (-1.0, 1.0):
            a1, a2 = (axis + 1) % 3, (axis + 2) % 3
            pts = []
            for s1, s2 in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = [0.0, 0.0, 0.0]
                p[axis] = sign * h[axis]
                p[a1] = s1 * (h[a1] - r)
                p[a2] = s2 * (h[a2] - r)
                pts.append(tuple(p))
            polys.append(pts)
    # The twelve edge chamfers.
    for axis in range(3):  # the edge runs along this axis
        a1, a2 = (axis + 1) % 3, (axis + 2) % 3
        for s1 in (-1.0, 1.0):
            for s2 in (-1.0, 1.0):
                pts = []
                for along, first in ((-1, True), (-1, False), (1, False), (1, True)):
                    p = [0.0, 0.0, 0.0]
                    p[axis] = along * (h[axis] - r)
                    p[a1] = s1 * (h[a1] if first else h[a1] - r)
                    p[a2] = s2 * (h[a2] - r if first else h[a2])
                    pts.append(tuple(p))
                polys.append(pts)
    # The eight corner triangles.
    for sx_ in (-1.0, 1.0):
        for sy_ in (-1.0, 1.0):
            for sz_ in (-1.0, 1.0):
                s = (sx_, sy_, sz_)
                pts = []
                for axis in range(3):
                    p = [s[i] * (h[i] - r) for i in range(3)]
                    p[axis] = s[axis] * h[axis]
                    pts.append(tuple(p))
                polys.append(pts)
    out = []
    for pts in polys:
        centroid = [sum(p[i] for p in pts) / len(pts) for i in range(3)]
        placed = [place(p) for p in pts]
        n = newell(placed)
        # Outward: the same side as the polygon's centre seen from the box's centre.
        if n[0] * centroid[0] + n[1] * centroid[1] + n[2] * centroid[2] < 0:
            placed.reverse()
            n = (-n[0], -n[1], -n[2])
        out.append((placed, n))
    return out


def newell(pts):
    nx = ny = nz = 0.0
    for i, p in enumerate(pts):
        q = pts[(i + 1) % len(pts)]
        nx += (p[1] - q[1]) * (p[2] + q[2])
        ny += (p[2] - q[2]) * (p[0] + q[0])
        nz += (p[0] - q[0]) * (p[1] + q[1])
    n = math.sqrt(nx * nx + ny * ny + nz * nz)
    return (nx / n, ny / n, nz / n)


# ----------------------------------------------------------------------------------------
# Curves: periodic and clamped cubic Hermite splines through (time, value) keys.


def spline(keys, t, period=None):
    """Catmull-Rom-like cubic through keys [(t, v), ...]; periodic when period is set (the
    keys then lie in one period), else clamped with level ends."""
    if period is not None:
        t = keys[0][0] + (t - keys[0][0]) % period
        ext = [(k - period, v) for k, v in keys[-2:]] + list(keys) + [
            (k + period, v) for k, v in keys[:2]]
        first, last = 2, len(ext) - 3
        lo = 1  # the segment before keys[0] is not needed: t >= keys[0]
    else:
        t = min(max(t, keys[0][0]), keys[-1][0])
        ext = [keys[0]] + list(keys) + [keys[-1]]
        first, last = 1, len(ext) - 2
        lo = 1
    for i in range(lo, len(ext) - 2):
        (ta, va), (tb, vb) = ext[i], ext[i + 1]
        if ta <= t <= tb and tb > ta:
            break
    else:
        raise ValueError("time outside the keys")

    def tangent(j):
        if period is None and (j == first or j == last):
            return 0.0  # clamped ends ease in and out
        (tp, vp), (tn, vn) = ext[j - 1], ext[j + 1]
        return (vn - vp) / (tn - tp) if tn > tp else 0.0

    ma, mb = tangent(i), tangent(i + 1)
    d = tb - ta
    s = (t - ta) / d
    s2, s3 = s * s, s * s * s
    return ((2 * s3 - 3 * s2 + 1) * va + (s3 - 2 * s2 + s) * d * ma + (-2 * s3 + 3 * s2) * vb +
            (s3 - s2) * d * mb)


def wave(t, period, phase=0.0):
    return math.sin(2.0 * math.pi * (t / period + phase))


# ----------------------------------------------------------------------------------------
# Poses. A pose is {joint: euler dict}, plus "feet": {side: (world pitch, world roll)},
# "toes": {side: degrees}, "hips_offset": (x, z), "lift": metres above the ground contact.
# Joints not named hold their rest rotation.


def base_pose():
    """The relaxed standing pose that Idle, Jump and Wave start from."""
    p = {
        "LeftArm": {"roll": 6.0, "pitch": 2.0},
        "RightArm": {"roll": -6.0, "pitch": 2.0},
        "LeftForeArm": {"pitch": -12.0},
        "RightForeArm": {"pitch": -12.0},
        "LeftHand": {"roll": -4.0, "pitch": -4.0},
        "RightHand": {"roll": 4.0, "pitch": -4.0},
        "LeftUpLeg": {"roll": 1.5},
        "RightUpLeg": {"roll": -1.5},
        "LeftLeg": {"pitch": 2.0},
        "RightLeg": {"pitch": 2.0},
    }
    return p


def world_rotations(pose):
    """Local rotation quaternions of every joint, solving the feet to their world angles."""
    local = {}
    world = {}
    for name, parent, _ in JOINTS:
        e = pose.get(name, {})
        q = euler(e.get("pitch", 0.0), e.get("yaw", 0.0), e.get("roll", 0.0))
        side = "Left" if name.startswith("Left") else "Right"
        if name.endswith("Foot") and side in pose.get("feet", {}):
            pitch, roll = pose["feet"][side]
            want = euler(pitch, 0.0, roll)
            q = q_norm(q_mul(q_conj(world[parent]), want))
        if name == "Head" and "head" in pose:
            want = euler(*pose["head"])
            q = q_norm(q_mul(q_conj(world[parent]), want))
        if name.endswith("Toe"):
            q = euler(pose.get("toes", {}).get(side, 0.0))
        local[name] = q
        world[name] = q if parent is None else q_norm(q_mul(world[parent], q))
    return local, world


def joint_positions(local, hips_translation):
    pos = {}
    world = {}
    for name, parent, _ in JOINTS:
        if parent is None:
            world[name] = local[name]
            pos[name] = hips_translation
        else:
            world[name] = q_norm(q_mul(world[parent], local[name]))
            pos[name] = add(pos[parent], q_rotate(world[parent], local_rest(name)))
    return pos, world


FOOT_POINTS = {}  # joint -> rest-pose vertices of its shoe boxes, relative to the joint


def foot_points():
    if not FOOT_POINTS:
        for b in BOXES:
            if b["joint"].endswith("Foot") or b["joint"].endswith("Toe"):
                for pts, _ in box_polygons(b):
                    for p in pts:
                        FOOT_POINTS.setdefault(b["joint"], []).append(sub(p, REST[b["joint"]]))
    return FOOT_POINTS


def lowest_foot_point(local, hips_translation):
    pos, world = joint_positions(local, hips_translation)
    low = float("inf")
    for joint, pts in foot_points().items():
        for p in pts:
            low = min(low, add(pos[joint], q_rotate(world[joint], p))[1])
    return low


def solve(pose):
    """Local rotations and the hips translation of a pose, feet on the ground + lift."""
    local, _ = world_rotations(pose)
    dx, dz = pose.get("hips_offset", (0.0, 0.0))
    rest = REST["Hips"]
    trial = (rest[0] + dx, rest[1], rest[2] + dz)
    low = lowest_foot_point(local, trial)
    hips = (trial[0], trial[1] - low + pose.get("lift", 0.0), trial[2])
    if "hips_y" in pose:
        if pose["hips_y"] < hips[1] - 1e-6:
            raise ValueError("a foot would go through the ground")
        hips = (hips[0], pose["hips_y"], hips[2])
    return local, hips


# ----------------------------------------------------------------------------------------
# Gaits: the legs of Walk and Run by inverse kinematics, so that a planted foot moves back
# at exactly the gait's ground speed (the speed of its blend space point): when the game
# moves the character at that speed the planted foot stays put on the ground.

THIGH = REST["LeftUpLeg"][1] - REST["LeftLeg"][1]  # hip to knee
SHIN = REST["LeftLeg"][1] - REST["LeftFoot"][1]  # knee to ankle


def ankle_height(pitch, toe):
    """How high the ankle is when the shoe, at this world pitch and toe bend, touches y = 0."""
    qf = euler(pitch)
    qt = q_mul(qf, euler(toe))
    low = min(q_rotate(qf, p)[1] for p in foot_points()["LeftFoot"])
    toe_at = q_rotate(qf, local_rest("LeftToe"))
    low = min([low] + [toe_at[1] + q_rotate(qt, p)[1] for p in foot_points()["LeftToe"]])
    return -low


def hermite(a, b, ma, mb, s):
    s2, s3 = s * s, s * s * s
    return (2 * s3 - 3 * s2 + 1) * a + (s3 - 2 * s2 + s) * ma + (-2 * s3 + 3 * s2) * b + (
        s3 - s2) * mb


def leg_ik(d):
    """Thigh pitch and knee bend (radians) that put the ankle at d (y, z used) from the hip."""
    dist = min(math.hypot(d[1], d[2]), 0.9995 * (THIGH + SHIN))
    c = (dist * dist - THIGH * THIGH - SHIN * SHIN) / (2.0 * THIGH * SHIN)
    knee = math.acos(max(-1.0, min(1.0, c)))
    aim = math.atan2(-d[2], -d[1])
    bend = math.atan2(SHIN * math.sin(knee), THIGH + SHIN * math.cos(knee))
    return aim - bend, knee


class Gait:
    def __init__(self, period, speed, stance, front, clearance, foot, toe_bend, nominal,
                 reach, reaching):
        self.period = period  # seconds a cycle
        self.speed = speed  # ground speed, units a second
        self.stance = stance  # fraction of the cycle a foot is down, from its touchdown
        self.front = front  # the ankle's z at touchdown, ahead of the hips
        self.clearance = clearance  # how high the ankle lifts in the swing
        self.foot = foot  # the foot's world pitch over the leg's phase (spline keys)
        self.toe_bend = toe_bend  # toes bend up by this much of the foot's downward pitch
        self.nominal = nominal  # the hips' height over the cycle when no foot limits it
        self.reach = reach  # how straight a leg that is down gets: a fraction of its length
        self.reaching = reaching  # from this phase on a swinging leg reaches for the ground
        self.smooth = None  # the hips' heights over one cycle, computed once

    def foot_pitch(self, p):
        return spline(self.foot, p, 1.0)

    def ankle(self, side, p):
        """The ankle's target (x, y, z) at leg phase p, relative to the hips at x = z = 0."""
        p %= 1.0
        pitch = self.foot_pitch(p)
        toe = -self.toe_bend * max(0.0, pitch)
        y = ankle_height(pitch, toe)
        travel = self.speed * self.period * self.stance
        back = self.front - travel
        if p <= self.stance:
            z = self.front - self.speed * self.period * p
        else:
            u = (p - self.stance) / (1.0 - self.stance)
            # Leaves at the ground's speed, swings forward, reaches a little past the
            # touchdown and comes back onto it at the ground's speed again.
            m = -self.speed * self.period * (1.0 - self.stance)
            z = hermite(back, self.front, 0.0, 0.6 * m, u)
            y += self.clearance * math.sin(math.pi * u ** 0.55) ** 2
        return (REST[side + "UpLeg"][0], y, z), pitch, toe

    def planted(self, p):
        # Down from the touchdown to the toe-off, and reaching for the ground just before.
        return (p % 1.0) <= self.stance or (p % 1.0) >= self.reaching

    def hips_limit(self, side, p, hips_q, reach):
        """The highest the hips may be for this planted foot's leg to reach its target."""
        target, _, _ = self.ankle(side, p)
        hip = q_rotate(hips_q, local_rest(side + "UpLeg"))
        dx, dz = target[0] - hip[0], target[2] - hip[2]
        length = reach * (THIGH + SHIN)
        return target[1] + math.sqrt(max(length * length - dx * dx - dz * dz, 0.0)) - hip[1]

    def hips_height(self, t, hips_rotation):
        """The hips' height: the nominal curve, lowered where the legs that are down (or
        about to be) cannot reach at `reach` of their length, smoothed a little where two
        such limits meet, then held under every planted leg's full reach."""
        n = 240
        if self.smooth is None:
            raw = [self.limit(self.period * i / n, hips_rotation(self.period * i / n),
                              self.reach) for i in range(n)]
            for _ in range(2):  # a periodic moving average, 7 samples wide, two passes
                raw = [sum(raw[(i + k) % n] for k in range(-3, 4)) / 7.0 for i in range(n)]
            self.smooth = raw
        x = (t % self.period) / self.period * n
        i = int(math.floor(x)) % n
        f = x - math.floor(x)
        y = self.smooth[i] * (1.0 - f) + self.smooth[(i + 1) % n] * f
        return min(y, self.limit(t, hips_rotation(t), 0.9995))

    def limit(self, t, hips_q, reach):
        y = spline(self.nominal, (t / self.period) % 1.0, 1.0)
        for side, offset in (("Left", 0.0), ("Right", 0.5)):
            p = t / self.period + offset
            if self.planted(p):
                y = min(y, self.hips_limit(side, p, hips_q, reach))
        return y

    def apply(self, pose, t, upper):
        """Sets the legs of `pose` (its Hips rotation as it is) and its hips height;
        upper(t) is the clip's pose at any time, for the hips' rotation."""
        def hips_rotation(tt):
            e = upper(tt).get("Hips", {})
            return euler(e.get("pitch", 0.0), e.get("yaw", 0.0), e.get("roll", 0.0))

        hips_q = hips_rotation(t)
        y = self.hips_height(t, hips_rotation)
        pose["hips_y"] = y
        feet, toes = {}, {}
        for side, offset in (("Left", 0.0), ("Right", 0.5)):
            target, pitch, toe = self.ankle(side, t / self.period + offset)
            hip = add((0.0, y, 0.0), q_rotate(hips_q, local_rest(side + "UpLeg")))
            aim_at = target
            for _ in range(6):
                # Two-bone IK in the hips' sagittal plane; the hips' yaw and roll move the
                # ankle a little out of it, so aim again by what was missed.
                thigh, knee = leg_ik(q_rotate(q_conj(hips_q), sub(aim_at, hip)))
                q_thigh = q_mul(hips_q, euler(math.degrees(thigh)))
                at_knee = add(hip, q_rotate(q_thigh, (0.0, -THIGH, 0.0)))
                at_ankle = add(at_knee, q_rotate(q_mul(q_thigh, euler(math.degrees(knee))),
                                                 (0.0, -SHIN, 0.0)))
                aim_at = add(aim_at, (0.0, target[1] - at_ankle[1], target[2] - at_ankle[2]))
            pose[side + "UpLeg"] = {"pitch": math.degrees(thigh)}
            pose[side + "Leg"] = {"pitch": math.degrees(knee)}
            feet[side] = (pitch, 0.0)
            toes[side] = toe
        pose["feet"] = feet
        pose["toes"] = toes
        return pose




# ----------------------------------------------------------------------------------------
# The clips. Each returns a pose for time t (seconds).


def idle_pose(t):
    T = 2.0
    s = wave(t, T)  # weight shift: + = onto the left leg
    b = wave(t, T, -0.1)  # breath, a little behind the shift
    p = base_pose()
    dx = 0.022 * s
    p["hips_offset"] = (dx, 0.0)
    p["Hips"] = {"roll": 1.6 * s, "yaw": 1.0 * wave(t, T, 0.25)}
    # Legs lean so the ankles stay where they stood: the hips moved dx over a leg of 0.82.
    lean = math.degrees(math.asin(dx / 0.82))
    p["LeftUpLeg"] = {"roll": 1.5 - lean - 1.6 * s, "pitch": -1.5 + 1.5 * s}
    p["RightUpLeg"] = {"roll": -1.5 - lean - 1.6 * s, "pitch": -1.5 - 1.5 * s}
    p["LeftLeg"] = {"pitch": 2.0 + 3.0 * max(0.0, -s)}
    p["RightLeg"] = {"pitch": 2.0 + 3.0 * max(0.0, s)}
    p["feet"] = {"Left": (0.0, 0.0), "Right": (0.0, 0.0)}
    p["Spine"] = {"roll": -1.0 * s, "pitch": 0.6 * b}
    p["Spine1"] = {"roll": -0.5 * s, "pitch": -0.8 * b}
    p["Spine2"] = {"roll": -0.4 * s, "pitch": -1.0 * b}
    p["LeftShoulder"] = {"roll": 0.8 * b}
    p["RightShoulder"] = {"roll": -0.8 * b}
    p["head"] = (1.0 + 0.8 * b, 3.0 * wave(t, T, 0.3), 0.0)
    sway = wave(t, T, 0.15)
    p["LeftArm"] = {"roll": 6.0 + 1.0 * s, "pitch": 2.0 + 1.5 * sway}
    p["RightArm"] = {"roll": -6.0 + 1.0 * s, "pitch": 2.0 - 1.5 * sway}
    p["LeftForeArm"] = {"pitch": -12.0 - 2.0 * sway}
    p["RightForeArm"] = {"pitch": -12.0 + 2.0 * sway}
    return p


# Walk: each leg's phase p in [0, 1), p = 0 its heel strike; the left strikes at 0.0 s and
# the right at 0.5 s. WALK_THIGH is the leg's swing (negative forward) that the opposite
# arm follows; the legs themselves come from WALK_GAIT below. WALK_FOOT is the foot's pitch
# in the world (negative: toes up; positive: the heel lifts).
WALK_THIGH = [(0.0, -28.0), (0.3, -4.0), (0.55, 22.0), (0.62, 20.0), (0.8, -14.0),
              (0.92, -30.0)]
WALK_FOOT = [(0.0, -14.0), (0.1, 0.0), (0.38, 0.0), (0.55, 30.0), (0.66, 22.0), (0.82, 0.0),
             (0.94, -12.0)]


def walk_upper(t):
    T = 1.0
    p = {}
    phase = {"Left": t / T, "Right": t / T + 0.5}
    for side, ph in phase.items():
        thigh = spline(WALK_THIGH, ph, 1.0)
        out = 1.0 if side == "Left" else -1.0
        # The arm swings against its leg, the elbow bends more as it comes forward.
        arm = -0.75 * thigh
        p[side + "Arm"] = {"pitch": arm, "roll": 6.0 * out}
        p[side + "ForeArm"] = {"pitch": -14.0 - 0.45 * max(0.0, -arm)}
        p[side + "Hand"] = {"pitch": -6.0, "roll": -4.0 * out}
    c = math.cos(2.0 * math.pi * t / T)  # +1 at the left heel strike
    p["Hips"] = {"yaw": -5.0 * c, "roll": 2.0 * wave(t, T, 0.05), "pitch": 2.0}
    p["Spine"] = {"yaw": 3.0 * c}
    p["Spine1"] = {"yaw": 2.5 * c, "pitch": 1.0}
    p["Spine2"] = {"yaw": 2.5 * c, "pitch": -1.0}
    p["LeftShoulder"] = {"yaw": 2.0 * c}
    p["RightShoulder"] = {"yaw": 2.0 * c}
    p["head"] = (2.0, 0.0, 0.0)
    return p


# Run: a foot is down from its touchdown (p = 0) to p = 0.26, then the flight to the other
# foot's touchdown (0.5). RUN_THIGH drives the arms, RUN_FOOT the foot's pitch; the legs
# come from RUN_GAIT below.
RUN_THIGH = [(0.0, -22.0), (0.3, 26.0), (0.42, 14.0), (0.62, -30.0), (0.8, -50.0),
             (0.92, -36.0)]
RUN_FOOT = [(0.0, -4.0), (0.06, 0.0), (0.2, 6.0), (0.3, 36.0), (0.45, 38.0), (0.7, 5.0),
            (0.92, -8.0)]


def run_upper(t):
    T = 0.7
    p = {}
    phase = {"Left": t / T, "Right": t / T + 0.5}
    lean = 10.0
    for side, ph in phase.items():
        thigh = spline(RUN_THIGH, ph, 1.0)
        out = 1.0 if side == "Left" else -1.0
        arm = -1.0 * thigh - 8.0
        p[side + "Arm"] = {"pitch": arm, "roll": 9.0 * out, "yaw": -6.0 * out}
        p[side + "ForeArm"] = {"pitch": -88.0 - 0.2 * max(0.0, -arm), "yaw": 8.0 * out}
        p[side + "Hand"] = {"pitch": 10.0, "roll": -6.0 * out}
    c = math.cos(2.0 * math.pi * t / T)
    p["Hips"] = {"pitch": lean, "yaw": -7.0 * c, "roll": 2.5 * wave(t, T, 0.05)}
    p["Spine"] = {"pitch": 2.0, "yaw": 4.0 * c}
    p["Spine1"] = {"pitch": 2.0, "yaw": 3.5 * c}
    p["Spine2"] = {"pitch": 1.0, "yaw": 3.5 * c}
    p["head"] = (4.0, 0.0, 0.0)
    return p


# The walk vaults over a nearly straight planted leg (the knee at about 14 degrees): the
# hips are lowest as the weight passes from one foot to the other and highest as the
# planted leg passes under them, twice a cycle.
WALK_GAIT = Gait(period=1.0, speed=1.5, stance=0.53, front=0.39, clearance=0.07, foot=WALK_FOOT,
                 toe_bend=0.8, nominal=[(0.0, 1.0), (0.5, 1.0)], reach=0.993,
                 reaching=0.97)
# The run's hips dip at mid-stance (the knee gives) and rise in the flight between toe-off
# (0.26 of the cycle) and the other foot's touchdown (0.5).
RUN_GAIT = Gait(period=0.7, speed=4.0, stance=0.26, front=0.36, clearance=0.3, foot=RUN_FOOT,
                toe_bend=0.5, nominal=[(0.0, 0.87), (0.12, 0.88), (0.4, 0.95), (0.5, 0.87),
                                       (0.62, 0.88), (0.9, 0.95)], reach=0.99,
                reaching=0.99)


def walk_pose(t):
    return WALK_GAIT.apply(walk_upper(t), t, walk_upper)


def run_pose(t):
    return RUN_GAIT.apply(run_upper(t), t, run_upper)


def jump_key_poses():
    """Key poses of the jump: (time, pose) with angles for the spline to pass through."""
    stand = idle_pose(0.0)
    stand.pop("hips_offset")

    def legs(thigh, knee, foot, hips_pitch=0.0, spread=1.5):
        return {"LeftUpLeg": {"pitch": thigh - hips_pitch, "roll": spread},
                "RightUpLeg": {"pitch": thigh - hips_pitch, "roll": -spread},
                "LeftLeg": {"pitch": knee}, "RightLeg": {"pitch": knee},
                "feet": {"Left": (foot, 0.0), "Right": (foot, 0.0)},
                "toes": {"Left": -0.6 * max(0.0, foot), "Right": -0.6 * max(0.0, foot)}}

    def arms(pitch, roll, elbow):
        return {"LeftArm": {"pitch": pitch, "roll": roll},
                "RightArm": {"pitch": pitch, "roll": -roll},
                "LeftForeArm": {"pitch": elbow}, "RightForeArm": {"pitch": elbow},
                "LeftHand": {"pitch": -5.0}, "RightHand": {"pitch": -5.0}}

    def body(hips_pitch, spine, head, lift=0.0):
        return {"Hips": {"pitch": hips_pitch}, "Spine": {"pitch": spine},
                "Spine1": {"pitch": spine * 0.6}, "Spine2": {"pitch": spine * 0.3},
                "head": (head, 0.0, 0.0), "lift": lift}

    def pose(*parts):
        p = {}
        for part in parts:
            p.update(part)
        return p

    crouch = pose(legs(-62.0, 104.0, 0.0, 24.0), arms(48.0, 12.0, -20.0), body(24.0, 14.0, 8.0))
    push = pose(legs(-8.0, 12.0, 38.0, 6.0), arms(-150.0, 14.0, -18.0), body(6.0, -4.0, 0.0))
    tuck = pose(legs(-44.0, 68.0, 18.0, 4.0), arms(-160.0, 22.0, -14.0),
                body(4.0, -2.0, -2.0, 0.5))
    reach = pose(legs(-22.0, 26.0, 12.0, 6.0), arms(-70.0, 26.0, -24.0),
                 body(6.0, 2.0, 6.0, 0.18))
    land = pose(legs(-40.0, 66.0, 0.0, 16.0), arms(-36.0, 24.0, -30.0), body(16.0, 8.0, 8.0))
    absorb = pose(legs(-54.0, 90.0, 0.0, 22.0), arms(-22.0, 18.0, -30.0),
                  body(22.0, 12.0, 10.0))
    return [(0.0, stand), (0.3, crouch), (0.42, push), (0.62, tuck), (0.88, reach),
            (1.0, land), (1.08, absorb), (1.2, stand)]


def jump_pose(t):
    keys = jump_key_poses()
    # Each joint angle follows a clamped spline through the key poses (eases at both ends).
    names = set()
    for _, p in keys:
        names |= set(p)
    out = {}

    def track(getter):
        return spline([(k, getter(p)) for k, p in keys], t)

    for name in names:
        if name in ("feet",):
            out[name] = {s: tuple(track(lambda p, s=s, i=i: p[name][s][i]) for i in range(2))
                         for s in ("Left", "Right")}
        elif name == "toes":
            out[name] = {s: track(lambda p, s=s: p.get(name, {}).get(s, 0.0))
                         for s in ("Left", "Right")}
        elif name == "head":
            out[name] = tuple(track(lambda p, i=i: p[name][i]) for i in range(3))
        elif name == "hips_offset":
            continue
        elif name == "lift":
            # Flight: off the ground at 0.45 s, highest at 0.62 s, down at 1.0 s.
            if 0.45 < t < 1.0:
                u = (t - 0.45) / 0.17 if t < 0.62 else (1.0 - t) / 0.38
                out[name] = 0.6 * (1.0 - (1.0 - u) * (1.0 - u))
            else:
                out[name] = 0.0
        else:
            out[name] = {k: track(lambda p, k=k: p.get(name, {}).get(k, 0.0))
                         for k in ("pitch", "yaw", "roll")}
    return out


def wave_pose(t):
    T = 1.5
    w = wave(t, T / 3.0)  # three waves a loop
    lag = wave(t, T / 3.0, -0.12)
    p = base_pose()
    p["Spine2"] = {"roll": 2.0, "pitch": -1.0}
    p["Neck"] = {"roll": -1.0}
    p["Head"] = {"yaw": -8.0, "roll": -3.0 + 1.0 * lag, "pitch": 1.0}
    p["RightShoulder"] = {"roll": -16.0, "yaw": 4.0}
    p["RightArm"] = {"roll": -128.0 + 3.0 * lag, "pitch": -22.0}
    p["RightForeArm"] = {"roll": -38.0 + 24.0 * w, "pitch": -12.0}
    p["RightHand"] = {"roll": 12.0 * lag, "pitch": -4.0}
    p["LeftArm"] = {"roll": 7.0, "pitch": 3.0}
    return p


WAVE_JOINTS = ["Spine2", "Neck", "Head", "LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand",
               "RightShoulder", "RightArm", "RightForeArm", "RightHand"]


def breathe_pose(t):
    T = 3.0
    b = 0.5 * (1.0 - math.cos(2.0 * math.pi * t / T))  # 0 at the first frame, 1 at the top
    return {
        "Spine1": {"pitch": -3.0 * b},
        "Spine2": {"pitch": -4.0 * b},
        "Neck": {"pitch": 5.5 * b},  # the head stays level
        "LeftShoulder": {"roll": 6.0 * b},
        "RightShoulder": {"roll": -6.0 * b},
        "LeftArm": {"roll": -6.0 * b},  # the arms hang as they did: the shoulders lift them
        "RightArm": {"roll": 6.0 * b},
    }


BREATHE_JOINTS = ["Spine1", "Spine2", "Neck", "LeftShoulder", "RightShoulder", "LeftArm",
                  "RightArm"]

ALL_JOINTS = [name for name, _, _ in JOINTS]

CLIPS = [
    # name, duration, pose function, joints keyed, hips translated (feet on the ground)
    ("Idle", 2.0, idle_pose, ALL_JOINTS, True),
    ("Walk", 1.0, walk_pose, ALL_JOINTS, True),
    ("Run", 0.7, run_pose, ALL_JOINTS, True),
    ("Jump", 1.2, jump_pose, ALL_JOINTS, True),
    ("Wave", 1.5, wave_pose, WAVE_JOINTS, False),
    ("Breathe", 3.0, breathe_pose, BREATHE_JOINTS, False),
]
LOOPED = {"Idle", "Walk", "Run", "Wave", "Breathe"}


def sample_clip(name, duration, pose_fn, joints, hips_track):
    """Key times and, per joint, rotations (and the hips' translations) at FPS keys/s."""
    count = int(round(duration * FPS))
    times = [r6(k / FPS) for k in range(count + 1)]
    rotations = {j: [] for j in joints}
    translations = []
    for k in range(count + 1):
        # A loop's last key is its first, exactly; a one-shot samples its real end.
        kk = 0 if (name in LOOPED and k == count) else k
        pose = pose_fn(kk / FPS)
        local, hips = solve(pose)
        for j in joints:
            rotations[j].append(tuple(r6(c) for c in local[j]))
        if hips_track:
            translations.append(tuple(r6(c) for c in hips))
    # Keep neighbouring keys in the same hemisphere (every rotation here is well under 180
    # degrees, so w >= 0 already does; check it).
    for j, qs in rotations.items():
        for a, b in zip(qs, qs[1:]):
            if sum(x * y for x, y in zip(a, b)) < 0:
                raise ValueError(f"{name}: {j} flips hemisphere")
    return times, rotations, translations


# ----------------------------------------------------------------------------------------
# The glTF writer.


class Bin:
    def __init__(self):
        self.data = bytearray()
        self.views = []
        self.accessors = []

    def view(self, payload, target=None, stride=None):
        while len(self.data) % 4:
            self.data.append(0)
        v = {"buffer": 0, "byteOffset": len(self.data), "byteLength": len(payload)}
        if stride is not None:
            v["byteStride"] = stride
        if target is not None:
            v["target"] = target
        self.data += payload
        self.views.append(v)
        return len(self.views) - 1

    def floats(self, rows, kind, target=None, bounds=True, stride=None):
        n = len(rows[0])
        payload = b"".join(struct.pack("<%df" % n, *row) for row in rows)
        a = {"bufferView": self.view(payload, target, stride), "componentType": 5126,
             "count": len(rows), "type": kind}
        if bounds:
            a["min"] = [min(r[i] for r in rows) for i in range(n)]
            a["max"] = [max(r[i] for r in rows) for i in range(n)]
        self.accessors.append(a)
        return len(self.accessors) - 1

    def ints(self, rows, kind, fmt, component, target=None, stride=None, bounds=False):
        n = len(rows[0]) if isinstance(rows[0], tuple) else 1
        flat = [x for r in rows for x in (r if isinstance(r, tuple) else (r,))]
        payload = struct.pack("<%d%s" % (len(flat), fmt), *flat)
        a = {"bufferView": self.view(payload, target, stride), "componentType": component,
             "count": len(rows), "type": kind}
        if bounds:
            a["min"] = [min(flat[i::n]) for i in range(n)]
            a["max"] = [max(flat[i::n]) for i in range(n)]
        self.accessors.append(a)
        return len(self.accessors) - 1


ARRAY_BUFFER = 34962
ELEMENT_ARRAY_BUFFER = 34963


def build():
    b = Bin()
    # Geometry: one primitive per material, every box's polygons with flat normals.
    prims = {m: {"pos": [], "nrm": [], "jnt": [], "idx": []} for m, _ in MATERIALS}
    for bx in BOXES:
        prim = prims[bx["material"]]
        joint = JOINT_INDEX[bx["joint"]]
        for pts, n in box_polygons(bx):
            first = len(prim["pos"])
            for p in pts:
                prim["pos"].append(tuple(r6(c) for c in p))
                prim["nrm"].append(tuple(r6(c) for c in n))
                prim["jnt"].append((joint, 0, 0, 0))
            for i in range(1, len(pts) - 1):
                prim["idx"] += [first, first + i, first + i + 1]
    primitives = []
    for m, _ in MATERIALS:
        prim = prims[m]
        count = len(prim["pos"])
        primitives.append({
            "attributes": {
                "POSITION": b.floats(prim["pos"], "VEC3", ARRAY_BUFFER, stride=12),
                "NORMAL": b.floats(prim["nrm"], "VEC3", ARRAY_BUFFER, bounds=False, stride=12),
                "JOINTS_0": b.ints(prim["jnt"], "VEC4", "B", 5121, ARRAY_BUFFER, stride=4),
                "WEIGHTS_0": b.floats([(1.0, 0.0, 0.0, 0.0)] * count, "VEC4", ARRAY_BUFFER,
                                      bounds=False, stride=16),
            },
            "indices": b.ints(prim["idx"], "SCALAR", "H", 5123, ELEMENT_ARRAY_BUFFER,
                              bounds=False),
            "material": MATERIAL_INDEX[m],
            "mode": 4,
        })

    # Nodes: the joints in skeleton order (parents first), then the mesh node.
    nodes = []
    for name, _, _ in JOINTS:
        node = {"name": name}
        t = local_rest(name)
        node["translation"] = [r6(c) for c in t]
        children = [JOINT_INDEX[n] for n, parent, _ in JOINTS if parent == name]
        if children:
            node["children"] = children
        nodes.append(node)
    mesh_node = len(nodes)
    nodes.append({"name": "Figure", "mesh": 0, "skin": 0})

    # Inverse bind matrices: every rest rotation is identity, so each is a translation by
    # minus the joint's world position (column-major).
    ibm = []
    for name, _, pos in JOINTS:
        x, y, z = (r6(-c) for c in pos)
        ibm.append((1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, x, y, z, 1.0))
    ibm_accessor = b.floats(ibm, "MAT4", bounds=False)

    animations = []
    for name, duration, fn, joints, hips_track in CLIPS:
        times, rotations, translations = sample_clip(name, duration, fn, joints, hips_track)
        time_accessor = b.floats([(t,) for t in times], "SCALAR")
        samplers = []
        channels = []
        if hips_track:
            samplers.append({"input": time_accessor, "interpolation": "LINEAR",
                             "output": b.floats(translations, "VEC3", bounds=False)})
            channels.append({"sampler": len(samplers) - 1,
                             "target": {"node": JOINT_INDEX["Hips"], "path": "translation"}})
        for j in joints:
            samplers.append({"input": time_accessor, "interpolation": "LINEAR",
                             "output": b.floats(rotations[j], "VEC4", bounds=False)})
            channels.append({"sampler": len(samplers) - 1,
                             "target": {"node": JOINT_INDEX[j], "path": "rotation"}})
        animations.append({"name": name, "channels": channels, "samplers": samplers})

    gltf = {
        "asset": {"version": "2.0", "generator": "animpack scripts/make_figure.py",
                  "copyright": "CC0 1.0: made for animpack, dedicated to the public domain"},
        "scene": 0,
        "scenes": [{"name": "Figure", "nodes": [JOINT_INDEX["Hips"], mesh_node]}],
        "nodes": nodes,
        "meshes": [{"name": "Figure", "primitives": primitives}],
        "materials": [{"name": m, "pbrMetallicRoughness": {
            "baseColorFactor": [c[0], c[1], c[2], 1.0], "metallicFactor": 0.0,
            "roughnessFactor": 0.6}} for m, c in MATERIALS],
        "skins": [{"name": "Figure", "inverseBindMatrices": ibm_accessor,
                   "skeleton": JOINT_INDEX["Hips"],
                   "joints": [JOINT_INDEX[n] for n, _, _ in JOINTS]}],
        "animations": animations,
        "accessors": b.accessors,
        "bufferViews": b.views,
        "buffers": [{"uri": "figure.bin", "byteLength": len(b.data)}],
    }
    return gltf, bytes(b.data)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(os.path.dirname(here), "assets", "character")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=default_out, help="the folder to write into")
    args = parser.parse_args()
    gltf, data = build()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "figure.bin"), "wb") as f:
        f.write(data)
    with open(os.path.join(args.out, "figure.gltf"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(gltf, f, indent=1, separators=(",", ": "))
        f.write("\n")
    print(f"wrote {args.out}/figure.gltf and figure.bin ({len(data)} bytes)")


if __name__ == "__main__":
    main()
