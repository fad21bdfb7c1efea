"""Named access: m.body("torso").mass, d.joint("hip").qpos, d.sensor("accel").data, ...

An accessor holds the id of one object and returns views (slices of the full views, so writes go to
the engine's storage). Unknown names raise KeyError listing near matches; ids out of range raise
IndexError.
"""

import difflib

import numpy as np

from . import _moreau

# kind -> (Model field prefix, count attribute, ObjType). The prefix selects Model fields:
# m.joint(i).range is m.jnt_range[i].
_KINDS = {
    "body": ("body_", "nbody", _moreau.ObjType.BODY),
    "joint": ("jnt_", "njnt", _moreau.ObjType.JOINT),
    "geom": ("geom_", "ngeom", _moreau.ObjType.GEOM),
    "site": ("site_", "nsite", _moreau.ObjType.SITE),
    "camera": ("cam_", "ncam", _moreau.ObjType.CAMERA),
    "light": ("light_", "nlight", _moreau.ObjType.LIGHT),
    "mesh": ("mesh_", "nmesh", _moreau.ObjType.MESH),
    "hfield": ("hfield_", "nhfield", _moreau.ObjType.HFIELD),
    "material": ("mat_", "nmat", _moreau.ObjType.MATERIAL),
    "texture": ("tex_", "ntex", _moreau.ObjType.TEXTURE),
    "pair": ("pair_", "npair", _moreau.ObjType.PAIR),
    "exclude": ("exclude_", "nexclude", _moreau.ObjType.EXCLUDE),
    "equality": ("eq_", "neq", _moreau.ObjType.EQUALITY),
    "tendon": ("tendon_", "ntendon", _moreau.ObjType.TENDON),
    "actuator": ("actuator_", "nu", _moreau.ObjType.ACTUATOR),
    "sensor": ("sensor_", "nsensor", _moreau.ObjType.SENSOR),
    "numeric": ("numeric_", "nnumeric", _moreau.ObjType.NUMERIC),
    "key": ("key_", "nkey", _moreau.ObjType.KEY),
}
# MuJoCo's bindings also accept these spellings.
_ALIASES = {"jnt": "joint", "cam": "camera", "eq": "equality", "keyframe": "key", "mat": "material",
            "tex": "texture"}


def _resolve(model, kind, key):
    """The id of object `key` (a name or an int id) of `kind`."""
    _, count, _ = _KINDS[kind]
    n = getattr(model, count)
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        i = int(key)
        if not 0 <= i < n:
            raise IndexError(f"{kind} id {i} out of range [0, {n})")
        return i
    if not isinstance(key, str):
        raise TypeError(f"{kind}: expected a name (str) or an id (int), got {type(key).__name__}")
    names = model.names(kind) if kind in _NAMED_KINDS else []
    try:
        return names.index(key)
    except ValueError:
        pass
    near = difflib.get_close_matches(key, [s for s in names if s], n=5, cutoff=0.5)
    hint = f"; did you mean {', '.join(repr(s) for s in near)}?" if near else (
        f"; the model's {kind} names: {', '.join(repr(s) for s in names[:20] if s)}"
        + (" ..." if sum(1 for s in names if s) > 20 else "") if any(names) else
        f"; the model has no named {kind}")
    raise KeyError(f"no {kind} named {key!r}{hint}")


_NAMED_KINDS = {"body", "joint", "geom", "site", "camera", "light", "mesh", "hfield", "material",
                "texture", "pair", "exclude", "equality", "tendon", "actuator", "sensor", "numeric",
                "key"}


def _row(arr, i, count):
    """Row i of a model or data view shaped (count, w) or (count,), as a view."""
    if arr.ndim == 2 or (arr.ndim == 1 and arr.shape[0] != count):
        if arr.ndim == 1:  # a flat optional array: nothing per element
            raise AttributeError("not stored per element")
        return arr[i]
    return arr[i:i + 1]


class _ModelObject:
    """One object of a Model: .id, .name and its Model fields without the prefix (views)."""

    __slots__ = ("_model", "_kind", "id")

    def __init__(self, model, kind, i):
        object.__setattr__(self, "_model", model)
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "id", i)

    @property
    def name(self):
        return self._model.names(self._kind)[self.id] if self._kind in _NAMED_KINDS else ""

    def _field(self, attr):
        prefix, count, _ = _KINDS[self._kind]
        full = prefix + attr
        if not hasattr(type(self._model), full):
            fields = [a[len(prefix):] for a in dir(type(self._model)) if a.startswith(prefix)]
            near = difflib.get_close_matches(attr, fields, n=3)
            raise AttributeError(f"Model has no {self._kind} field {attr!r} ({full})" +
                                 (f"; did you mean {', '.join(near)}?" if near else ""))
        return full, getattr(self._model, count)

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        full, count = self._field(attr)
        return _row(getattr(self._model, full), self.id, count)

    def __setattr__(self, attr, value):
        full, count = self._field(attr)
        _row(getattr(self._model, full), self.id, count)[...] = value

    def __dir__(self):
        prefix = _KINDS[self._kind][0]
        return ["id", "name"] + [a[len(prefix):] for a in dir(type(self._model)) if a.startswith(prefix)]

    def __repr__(self):
        return f"<moreau {self._kind} {self.id} {self.name!r}>"


def _span(adr, num):
    return slice(int(adr), int(adr) + int(num))


# Data fields per kind: attribute -> function(model, data, id) returning a view.
def _joint_fields():
    def qpos(m, d, j):
        t = int(m.jnt_type[j])
        return d.qpos[_span(m.jnt_qposadr[j], (7, 4, 1, 1)[t])]

    def dof(field):
        def get(m, d, j):
            t = int(m.jnt_type[j])
            return getattr(d, field)[_span(m.jnt_dofadr[j], (6, 3, 1, 1)[t])]
        return get

    out = {"qpos": qpos}
    for f in ("qvel", "qacc", "qfrc_applied", "qfrc_bias", "qfrc_passive", "qfrc_actuator",
              "qfrc_constraint", "qfrc_smooth", "qacc_smooth", "qfrc_inverse", "qacc_warmstart"):
        out[f] = dof(f)
    out["xanchor"] = lambda m, d, j: d.xanchor[j]
    out["xaxis"] = lambda m, d, j: d.xaxis[j]
    return out


def _rows(mapping):
    return {k: (lambda f: lambda m, d, i: getattr(d, f)[i])(v) for k, v in mapping.items()}


def _actuator_act(m, d, i):
    adr, num = int(m.actuator_actadr[i]), int(m.actuator_actnum[i])
    return d.act[adr:adr + num] if adr >= 0 else d.act[0:0]


_DATA_FIELDS = {
    "body": _rows({f: f for f in ("xpos", "xquat", "xmat", "xipos", "ximat", "subtree_com", "cinert",
                                  "crb", "cvel", "cacc", "cfrc_int", "cfrc_ext", "xfrc_applied",
                                  "subtree_linvel", "subtree_angmom")}),
    "joint": _joint_fields(),
    "geom": _rows({"xpos": "geom_xpos", "xmat": "geom_xmat"}),
    "site": _rows({"xpos": "site_xpos", "xmat": "site_xmat"}),
    "camera": _rows({"xpos": "cam_xpos", "xmat": "cam_xmat"}),
    "light": _rows({"xpos": "light_xpos", "xdir": "light_xdir"}),
    "tendon": {
        "length": lambda m, d, i: d.ten_length[i:i + 1],
        "velocity": lambda m, d, i: d.ten_velocity[i:i + 1],
        "J": lambda m, d, i: d.ten_J[i],
    },
    "actuator": {
        "ctrl": lambda m, d, i: d.ctrl[i:i + 1],
        "act": _actuator_act,
        "force": lambda m, d, i: d.actuator_force[i:i + 1],
        "length": lambda m, d, i: d.actuator_length[i:i + 1],
        "velocity": lambda m, d, i: d.actuator_velocity[i:i + 1],
        "moment": lambda m, d, i: d.actuator_moment[i],
    },
    "sensor": {"data": lambda m, d, i: d.sensordata[_span(m.sensor_adr[i], m.sensor_dim[i])]},
    "equality": {"active": lambda m, d, i: d.eq_active[i:i + 1]},
}


class _DataObject:
    """One object of a Data: .id, .name and its Data fields (views)."""

    __slots__ = ("_data", "_kind", "id")

    def __init__(self, data, kind, i):
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "id", i)

    @property
    def name(self):
        return self._data.model.names(self._kind)[self.id]

    def _getter(self, attr):
        fields = _DATA_FIELDS.get(self._kind, {})
        if attr not in fields:
            near = difflib.get_close_matches(attr, list(fields), n=3)
            raise AttributeError(f"Data has no {self._kind} field {attr!r}; its fields: "
                                 f"{', '.join(fields) or 'none'}" +
                                 (f"; did you mean {', '.join(near)}?" if near else ""))
        return fields[attr]

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        d = self._data
        return self._getter(attr)(d.model, d, self.id)

    def __setattr__(self, attr, value):
        d = self._data
        self._getter(attr)(d.model, d, self.id)[...] = value

    def __dir__(self):
        return ["id", "name"] + list(_DATA_FIELDS.get(self._kind, {}))

    def __repr__(self):
        return f"<moreau data {self._kind} {self.id} {self.name!r}>"


def install(Model, Data):
    """Add m.body(...), m.joint(...), ... and d.body(...), ... to the compiled classes."""
    kinds = dict(_KINDS)
    for alias, kind in _ALIASES.items():
        kinds[alias] = _KINDS[kind]

    for name in kinds:
        kind = _ALIASES.get(name, name)

        def model_accessor(self, key, _kind=kind):
            return _ModelObject(self, _kind, _resolve(self, _kind, key))

        model_accessor.__name__ = name
        model_accessor.__doc__ = (f"The {kind} with this name or id: its Model fields "
                                  f"({_KINDS[kind][0]}*) as views.")
        setattr(Model, name, model_accessor)

        if kind in _DATA_FIELDS:
            def data_accessor(self, key, _kind=kind):
                return _DataObject(self, _kind, _resolve(self.model, _kind, key))

            data_accessor.__name__ = name
            data_accessor.__doc__ = (f"The {kind} with this name or id: its Data fields "
                                     f"({', '.join(_DATA_FIELDS[kind])}) as views.")
            setattr(Data, name, data_accessor)

    def model_id2name(self, kind, i):
        kind = _ALIASES.get(kind, kind)
        _resolve(self, kind, int(i))
        return self.names(kind)[int(i)]

    def model_name2id(self, kind, name):
        """The id of the named object of a kind ('body', ...), or -1 (as MuJoCo's mj_name2id)."""
        if isinstance(kind, str):
            kind = _ALIASES.get(kind, kind)
            return self.names(kind).index(name) if name in self.names(kind) else -1
        return _moreau_name2id(self, kind, name)

    _moreau_name2id = Model.name2id
    Model.id2name = model_id2name
    Model.name2id = model_name2id
