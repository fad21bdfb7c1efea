"""Where the page's files live: web/ of the source tree (or installed next to this package) and
three.js from Debian's libjs-three."""
import os

_HERE = os.path.dirname(os.path.abspath(__file__))

THREE_DIR = os.environ.get("MOREAU_THREE_DIR", "/usr/share/javascript/three")


def web_dir():
    """The directory holding index.html, viewer.js and style.css."""
    candidates = [os.environ.get("MOREAU_WEB_DIR", ""), os.path.join(_HERE, "web")]
    # source tree: python/moreau/viewer -> ../../../web; build tree: build/python/moreau/viewer -> source web/
    d = _HERE
    for _ in range(6):
        d = os.path.dirname(d)
        candidates.append(os.path.join(d, "web"))
    for c in candidates:
        if c and os.path.isfile(os.path.join(c, "index.html")) and os.path.isfile(os.path.join(c, "viewer.js")):
            return c
    raise FileNotFoundError("moreau.viewer: the page's files (web/index.html, web/viewer.js) were not found; "
                            "set MOREAU_WEB_DIR to the web/ directory of the Moreau source tree")


def three_files():
    """Paths of three.min.js and OrbitControls.js (Debian's libjs-three)."""
    core = os.path.join(THREE_DIR, "three.min.js")
    orbit = os.path.join(THREE_DIR, "examples", "js", "controls", "OrbitControls.js")
    for p in (core, orbit):
        if not os.path.isfile(p):
            raise FileNotFoundError(f"moreau.viewer needs three.js from Debian's libjs-three: {p} is missing "
                                    "(apt install libjs-three, or set MOREAU_THREE_DIR)")
    return core, orbit
