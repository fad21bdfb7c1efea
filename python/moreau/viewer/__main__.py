"""python3 -m moreau.viewer MODEL.xml: serve a model in the browser viewer, or record a replay.

  python3 -m moreau.viewer MODEL.xml [--host 127.0.0.1] [--port 8000] [--unthrottled] [--open]
  python3 -m moreau.viewer MODEL.xml --record replay.html [--steps 2000] [--every 1]
"""
import argparse
import os
import sys


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m moreau.viewer",
                                description="Serve a Moreau simulation in the browser (three.js over a WebSocket), "
                                            "or record a self-contained HTML replay.")
    p.add_argument("model", help="MJCF model file")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free port)")
    p.add_argument("--unthrottled", action="store_true", help="simulate as fast as possible instead of real time")
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    p.add_argument("--record", metavar="HTML", help="write a replay of --steps steps to HTML instead of serving")
    p.add_argument("--steps", type=int, default=1000, help="steps to record (default 1000)")
    p.add_argument("--every", type=int, default=1, help="record every k-th step (default 1)")
    p.add_argument("--key", type=int, default=None, help="start from this keyframe")
    a = p.parse_args(argv)
    if not 0 <= a.port <= 65535:
        print(f"error: --port {a.port} is not a port number (0..65535)", file=sys.stderr)
        return 1
    if not os.path.isfile(a.model):
        print(f"error: model file '{a.model}' does not exist", file=sys.stderr)
        return 1
    import moreau
    try:
        m = moreau.Model.from_xml_path(a.model)
    except Exception as e:  # moreau.LoadError: file:line: element: what
        print(f"error: cannot load '{a.model}': {e}", file=sys.stderr)
        return 1
    d = moreau.Data(m)
    if a.key is not None:
        if not 0 <= a.key < m.nkey:
            print(f"error: --key {a.key}: the model has {m.nkey} keyframes", file=sys.stderr)
            return 1
        moreau.reset_data_keyframe(m, d, a.key)
    moreau.forward(m, d)
    from . import record, launch
    if a.record:
        if a.steps < 1 or a.every < 1:
            print("error: --steps and --every must be positive", file=sys.stderr)
            return 1
        from .scene import pose_array
        states, times = [pose_array(d)], [float(d.time)]
        for k in range(a.steps):
            moreau.step(m, d)
            if (k + 1) % a.every == 0:
                states.append(pose_array(d))
                times.append(float(d.time))
        record(m, states, a.record, times=times)
        print(f"wrote {a.record} ({os.path.getsize(a.record)} bytes, {len(states)} frames)")
        return 0
    try:
        launch(m, d, host=a.host, port=a.port, unthrottled=a.unthrottled, open_browser=a.open)
    except OSError as e:
        print(f"error: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
