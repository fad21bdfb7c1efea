"""moreau.viewer: see a simulation in the browser.

  launch(m, d)            serve the page and run the simulation in the server (blocks)
  launch_passive(m, d)    serve the page; the caller steps and calls handle.sync(); handle.close()
  record(m, states, path) one self-contained HTML replay with a time slider
  snapshot(m, d, path)    a PNG rendered by headless Chromium
  video(m, states, path)  an mp4 rendered by headless Chromium and ffmpeg

`python3 -m moreau.viewer MODEL.xml` serves a model (see --help).
"""
from .record import record, snapshot, video
from .server import launch, launch_passive, Server, PassiveHandle

__all__ = ["launch", "launch_passive", "record", "snapshot", "video", "Server", "PassiveHandle"]
