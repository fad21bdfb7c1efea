"""Scene description and state frames for the browser viewer (web/viewer.js).

The scene is a JSON-ready dict of what the page draws: bodies, geoms (type, size, colour, material,
pose in the body frame), sites, meshes and height fields (base64 float32 / int32 arrays), materials,
textures (builtin parameters, or the pixels of image files), lights, cameras, joints, actuators,
keyframes, <visual> settings and the model's statistic (the free camera's frame). A state frame is
bytes: 16 float64 header words, then float32 body poses (nbody x [pos, quat]), then
float32 contacts (ncon x [pos, force in world coordinates]).
"""
import base64
import math

import numpy as np

import moreau

HEADER_WORDS = 16
H_TIME, H_EPOT, H_EKIN, H_PRIMAL, H_EPS, H_SPS, H_RTF, H_NCON, H_PAUSED, H_SOLVER, H_SEQ = range(11)

SOLVERS = ["PGS", "CG", "Newton", "raisim", "raisim-ds", "ncp-pgs", "ccp", "lcp"]


def _b64(a, dtype):
    return base64.b64encode(np.ascontiguousarray(a, dtype=dtype).tobytes()).decode("ascii")


def _flat(a, dtype=float):
    return np.asarray(a, dtype=dtype).reshape(-1).tolist()


def _field(m, name, default=None):
    """A Model array, or `default` where this build of the bindings lacks the field."""
    try:
        return getattr(m, name)
    except AttributeError:
        return default


def solver_name(m):
    s = m.opt.solver
    if isinstance(s, str):
        return s
    try:
        return SOLVERS[int(s)]
    except (TypeError, ValueError, IndexError):
        return str(getattr(s, "name", s))


def solver_index(m):
    name = solver_name(m)
    for i, n in enumerate(SOLVERS):
        if n.lower() == name.lower():
            return i
    return -1


def visual_settings(m):
    """<visual> settings the page uses (m.vis; MuJoCo's defaults where a Model lacks it)."""
    out = dict(fovy=45.0, azimuth=90.0, elevation=-45.0, ambient=[0.1, 0.1, 0.1], diffuse=[0.4, 0.4, 0.4],
               specular=[0.5, 0.5, 0.5], active=1, znear=0.01, zfar=50.0, haze=[1, 1, 1, 1], fog=[0, 0, 0, 1],
               jointlength=1.0, forcescale=1.0, shadowsize=4096)
    v = getattr(m, "vis", None)
    if isinstance(v, dict):
        out.update(fovy=v["global"]["fovy"], azimuth=v["global"]["azimuth"], elevation=v["global"]["elevation"],
                   ambient=v["headlight"]["ambient"], diffuse=v["headlight"]["diffuse"],
                   specular=v["headlight"]["specular"], active=v["headlight"]["active"],
                   znear=v["map"]["znear"], zfar=v["map"]["zfar"], haze=v["rgba"]["haze"], fog=v["rgba"]["fog"],
                   jointlength=v["scale"]["jointlength"], shadowsize=v["quality"]["shadowsize"])
    return out


def scene_dict(m, d=None):
    """The scene description of model m (and its current poses from d, if given)."""
    ng, nb = m.ngeom, m.nbody
    geom_matid = _field(m, "geom_matid", np.full(ng, -1))
    scene = {
        "version": 1,
        "name": m.modelname,
        "nbody": nb,
        "ngeom": ng,
        "body": {"name": list(m.names("body")), "parent": _flat(m.body_parentid, int),
                 "ipos": _flat(m.body_ipos)},
        "geom": {"type": _flat(m.geom_type, int), "size": _flat(m.geom_size), "rgba": _flat(m.geom_rgba),
                 "matid": _flat(geom_matid, int), "body": _flat(m.geom_bodyid, int), "pos": _flat(m.geom_pos),
                 "quat": _flat(m.geom_quat), "group": _flat(m.geom_group, int), "dataid": _flat(m.geom_dataid, int),
                 "name": list(m.names("geom"))},
        "site": {"type": _flat(m.site_type, int), "size": _flat(m.site_size), "rgba": _flat(m.site_rgba),
                 "matid": _flat(_field(m, "site_matid", np.full(m.nsite, -1)), int), "body": _flat(m.site_bodyid, int),
                 "pos": _flat(m.site_pos), "quat": _flat(m.site_quat)},
        "jnt": {"type": _flat(m.jnt_type, int), "body": _flat(m.jnt_bodyid, int), "pos": _flat(m.jnt_pos),
                "axis": _flat(m.jnt_axis)},
        "cam": {"name": list(m.names("camera")), "body": _flat(m.cam_bodyid, int), "pos": _flat(m.cam_pos),
                "quat": _flat(m.cam_quat), "fovy": _flat(m.cam_fovy)},
        "light": {"body": _flat(m.light_bodyid, int), "pos": _flat(m.light_pos), "dir": _flat(m.light_dir),
                  "active": _flat(m.light_active, int), "directional": _flat(m.light_directional, int),
                  "castshadow": _flat(m.light_castshadow, int)},
        "actuator": {"name": list(m.names("actuator")), "ctrlrange": _flat(m.actuator_ctrlrange),
                     "ctrllimited": _flat(m.actuator_ctrllimited, int)},
        "key": list(m.names("key")),
        "stat": view_statistic(m, d),
        "vis": visual_settings(m),
        "solver": solver_name(m),
    }
    # meshes and height fields as base64 arrays (compact in JSON)
    meshes = []
    vert = np.asarray(m.mesh_vert, dtype=np.float32).reshape(-1, 3)
    face = np.asarray(m.mesh_face, dtype=np.int32).reshape(-1, 3)
    for i in range(m.nmesh):
        va, vn = int(m.mesh_vertadr[i]), int(m.mesh_vertnum[i])
        fa, fn = int(m.mesh_faceadr[i]), int(m.mesh_facenum[i])
        meshes.append({"vert": _b64(vert[va:va + vn], np.float32), "face": _b64(face[fa:fa + fn], np.int32)})
    scene["mesh"] = meshes
    hfields = []
    data = np.asarray(m.hfield_data, dtype=np.float32).reshape(-1)
    for i in range(m.nhfield):
        nr, nc, adr = int(m.hfield_nrow[i]), int(m.hfield_ncol[i]), int(m.hfield_adr[i])
        hfields.append({"nrow": nr, "ncol": nc, "size": _flat(np.asarray(m.hfield_size).reshape(-1, 4)[i]),
                        "data": _b64(data[adr:adr + nr * nc], np.float32)})
    scene["hfield"] = hfields
    if _field(m, "mat_rgba") is not None:
        scene["mat"] = {k: _flat(getattr(m, "mat_" + k)) for k in
                        ("rgba", "emission", "specular", "shininess", "reflectance", "texrepeat")}
        scene["mat"]["texid"] = _flat(m.mat_texid, int)
        scene["mat"]["texuniform"] = _flat(m.mat_texuniform, int)
    if _field(m, "tex_type") is not None:
        scene["tex"] = {k: _flat(getattr(m, "tex_" + k), int) for k in ("type", "builtin", "width", "height", "mark")}
        scene["tex"].update({k: _flat(getattr(m, "tex_" + k)) for k in ("rgb1", "rgb2", "markrgb", "random")})
        scene["tex"]["image"] = texture_images(m)
    if d is not None:
        scene["initial"] = {"poses": pose_array(d).reshape(-1).tolist(), "contacts": []}
    return scene


MAX_TEXTURE_SIDE = 512


def texture_images(m):
    """The pixels of each texture read from image files, for the page: {width, height, rgb (base64
    RGB bytes, rows from the top)}, or None for builtin textures (the page draws those from their
    parameters). An image (a cube's face) wider or taller than MAX_TEXTURE_SIDE pixels is
    subsampled by a whole step, which keeps a replay of a model with large photographs small."""
    rgb = _field(m, "tex_rgb")
    if rgb is None:
        return [None] * m.ntex
    rgb = np.asarray(rgb, dtype=np.uint8).reshape(-1)
    out = []
    for t in range(m.ntex):
        if int(m.tex_builtin[t]) != 0:
            out.append(None)
            continue
        w, h, adr = int(m.tex_width[t]), int(m.tex_height[t]), int(m.tex_adr[t])
        img = rgb[adr:adr + 3 * w * h].reshape(h, w, 3)
        faces = 6 if int(m.tex_type[t]) != 0 and h == 6 * w else 1
        step = max(1, -(-max(w, h // faces) // MAX_TEXTURE_SIDE))
        if step > 1:
            img = np.concatenate([f[::step, ::step] for f in np.split(img, faces, axis=0)], axis=0)
        out.append({"width": int(img.shape[1]), "height": int(img.shape[0]), "rgb": _b64(img, np.uint8)})
    return out


def view_statistic(m, d=None):
    """Centre and size of what the camera frames: the model's statistic (m.stat.center and
    m.stat.extent, computed by the compiler in qpos0 as MuJoCo 2.2.2 does, or given by
    <statistic>), as MuJoCo's free camera uses them; the state d does not move it. meansize and
    meanmass come along for the page's decorations."""
    st = m.stat
    return {"extent": float(st.extent), "center": _flat(st.center), "meansize": float(st.meansize),
            "meanmass": float(st.meanmass)}


def pose_array(d):
    """(nbody, 7) float32: xpos and xquat of every body."""
    return np.concatenate([np.asarray(d.xpos, dtype=np.float32), np.asarray(d.xquat, dtype=np.float32)], axis=1)


def contact_array(m, d, forces=True):
    """(ncon, 6) float32: contact positions and the contact forces in world coordinates."""
    n = int(d.ncon)
    out = np.zeros((n, 6), dtype=np.float32)
    if n == 0:
        return out
    out[:, :3] = np.asarray(d.contact.pos).reshape(n, 3)
    if forces:
        frames = np.asarray(d.contact.frame).reshape(n, 3, 3)
        for i in range(n):
            f = np.asarray(moreau.contact_force(m, d, i))[:3]
            out[i, 3:] = frames[i].T @ f  # rows of the contact frame are its axes
    return out


def frame_bytes(m, d, header, contacts=None):
    """One binary state frame (see the module docstring)."""
    h = np.zeros(HEADER_WORDS, dtype=np.float64)
    for k, v in header.items():
        h[k] = v
    poses = pose_array(d)
    c = contacts if contacts is not None else np.zeros((0, 6), np.float32)
    h[H_NCON] = len(c)
    return h.tobytes() + poses.tobytes() + np.ascontiguousarray(c, dtype=np.float32).tobytes()


def free_camera(m, d=None, lookat=None, distance=None, azimuth=None, elevation=None, fovy=None):
    """The default free camera (as MuJoCo's: looking at m.stat.center from 1.5 m.stat.extent, at
    <visual>'s azimuth and elevation), with any parameter replaced."""
    vis = visual_settings(m)
    st = view_statistic(m, d)
    return {"lookat": list(map(float, lookat if lookat is not None else st["center"])),
            "distance": float(distance if distance is not None else 1.5 * st["extent"]),
            "azimuth": float(azimuth if azimuth is not None else vis["azimuth"]),
            "elevation": float(elevation if elevation is not None else vis["elevation"]),
            "fovy": float(fovy if fovy is not None else vis["fovy"])}


def project(camera, point, width, height):
    """Pixel (column, row) of a world point seen by a free camera dict (MuJoCo's convention:
    forward = [cos(el)cos(az), cos(el)sin(az), sin(el)], z up); None if behind the camera."""
    az, el = math.radians(camera["azimuth"]), math.radians(camera["elevation"])
    fwd = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
    eye = np.asarray(camera["lookat"], float) - camera["distance"] * fwd
    right = np.cross(fwd, [0, 0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    v = np.asarray(point, float) - eye
    z = v @ fwd
    if z <= 0:
        return None
    t = math.tan(math.radians(camera["fovy"]) / 2)
    x = (v @ right) / (z * t * width / height)
    y = (v @ up) / (z * t)
    return (width / 2 * (1 + x), height / 2 * (1 - y))
