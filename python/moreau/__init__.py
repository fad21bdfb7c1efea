"""Moreau: a physics engine for articulated bodies with contact, from Python.

    import moreau
    m = moreau.Model.from_xml_path("humanoid.xml")
    d = moreau.Data(m)
    moreau.step(m, d, nstep=100)
    print(d.qpos, d.body("torso").xpos)

Every array of Model and Data is a zero-copy NumPy view of the engine's own storage. The package
targets Debian's interpreter, /usr/bin/python3. See docs/python.md.
"""

from . import _moreau
from ._moreau import (  # noqa: F401  (the public names of the compiled module)
    Cone,
    ContactList,
    DisableBit,
    EnableBit,
    GeomType,
    Integrator,
    Jacobian,
    JointType,
    LoadError,
    ObjType,
    Option,
    Solver,
    State,
    Statistic,
    Warning,
    camlight,
    collision,
    com_pos,
    com_vel,
    contact_force,
    contact_metrics,
    crb,
    deriv_smooth_vel,
    differentiate_pos,
    efc_J,
    energy_pos,
    energy_vel,
    factor_m,
    forward,
    full_m,
    fwd_acceleration,
    fwd_actuation,
    fwd_constraint,
    fwd_position,
    fwd_velocity,
    get_state,
    impact,
    integrate_pos,
    inverse,
    inverse_fd,
    is_hard_contact_solver,
    jac,
    jac_body,
    jac_body_com,
    jac_geom,
    jac_site,
    kinematics,
    mul_m,
    normalize_quat,
    passive,
    reset_data,
    reset_data_keyframe,
    rollout,
    Rollout,
    rne_post_constraint,
    set_const,
    set_state,
    solve_m,
    solver_name,
    state_size,
    step,
    step1,
    step2,
    transition_fd,
    transition_derivatives,
    forward_derivatives,
    derivative_fallbacks,
)
from ._named import install as _install_named_access
from ._moreau import Data, Model  # noqa: F401

_install_named_access(Model, Data)

from . import tasks  # noqa: E402,F401  (dm_control suite tasks for VecEnv)
from .vecenv import VecEnv  # noqa: E402,F401  (vectorized environments on the rollout pool)

__version__ = "0.1.0"

__all__ = [n for n in dir() if not n.startswith("_")]
