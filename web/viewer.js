// Moreau's browser viewer: draws a model's scene with three.js and moves its bodies from state
// frames. Live mode: the scene and the frames come over a WebSocket from moreau.viewer's server,
// and the controls send JSON commands back. Replay mode (window.MOREAU_REPLAY set by a recorded
// HTML file): the scene and a trajectory are embedded, played with a time slider.
//
// State frame (binary, little endian): 16 float64 header words (see HEADER below), then float32
// body poses (nbody x [x y z qw qx qy qz]), then float32 contacts (ncon x [pos3 force3], world).
(function () {
  'use strict';

  const GEOM = { PLANE: 0, HFIELD: 1, SPHERE: 2, CAPSULE: 3, ELLIPSOID: 4, CYLINDER: 5, BOX: 6, MESH: 7 };
  const HEADER = { TIME: 0, EPOT: 1, EKIN: 2, PRIMAL: 3, EPS: 4, SPS: 5, RTF: 6, NCON: 7, PAUSED: 8, SOLVER: 9,
                   SEQ: 10, WORDS: 16 };
  const SOLVERS = ['PGS', 'CG', 'Newton', 'raisim', 'raisim-ds', 'ncp-pgs', 'ccp', 'lcp'];
  const DEFAULT_RGBA = [0.5, 0.5, 0.5, 1];
  const BACKGROUND = [0.11, 0.13, 0.16];

  // Public hooks for tests, snapshots and videos.
  const api = window.moreau = { ready: false, frames: 0, scene: null, errors: [] };

  function b64buffer(s) {
    const bin = atob(s);
    const u = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; ++i) u[i] = bin.charCodeAt(i);
    return u.buffer;
  }
  const f32 = (s) => new Float32Array(b64buffer(s));
  const i32 = (s) => new Int32Array(b64buffer(s));
  const $ = (id) => document.getElementById(id);
  const arr = (o, k, n) => (o && o[k]) ? o[k] : new Array(n).fill(0);

  let scene, camera, renderer, controls, headlight, root;
  let S = null;            // scene description
  let bodies = [];         // THREE.Group per body
  let geomMeshes = [];     // per geom
  let siteGroup, comGroup, jointGroup, contactGroup;
  let contactPool = [], arrowPool = [];
  let lastFrame = null;    // {header, poses, contacts}
  let socket = null;
  let trackBody = -1, trackPrev = null, modelCamera = -1;
  let dirty = true;        // the view changed since it was last drawn
  // Shadows: ?shadows=1 / ?shadows=0 decide; by default on, except for a live page on a software
  // WebGL renderer (SwiftShader, llvmpipe), where a shadow map costs far more than the scene.
  const shadowParam = new URLSearchParams(location.search).get('shadows');
  function softwareGL() {
    try {
      const gl = document.createElement('canvas').getContext('webgl');
      const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
      const name = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
      return /swiftshader|llvmpipe|software/i.test(name);
    } catch (e) { return false; }
  }
  let useShadows = shadowParam !== '0';
  const plot = { t: [], e: [], p: [], eps: [], n: 300 };
  const show = { contacts: false, forces: false, joints: false, com: false, sites: false, transparent: false,
                 groups: [true, true, true, false, false, false] };

  // ------------------------------------------------------------------ textures
  function builtinTexture(S, id) {
    const t = S.tex;
    // power-of-two sizes (WebGL 1 repeats only those), 2 to 512 pixels
    const pot = (x) => Math.pow(2, Math.max(1, Math.min(9, Math.round(Math.log2(Math.max(2, x))))));
    const w = pot(t.width[id] || 64);
    const h = pot(t.type[id] === 0 ? (t.height[id] || w) : w);
    const c = document.createElement('canvas');
    c.width = w; c.height = h;
    const g = c.getContext('2d');
    const rgb = (v) => 'rgb(' + v.map((x) => Math.round(255 * Math.min(1, Math.max(0, x)))).join(',') + ')';
    const r1 = t.rgb1.slice(3 * id, 3 * id + 3), r2 = t.rgb2.slice(3 * id, 3 * id + 3);
    const b = t.builtin[id];
    if (b === 2) {  // checker: 2 x 2 squares
      g.fillStyle = rgb(r1); g.fillRect(0, 0, w, h);
      g.fillStyle = rgb(r2); g.fillRect(0, 0, w / 2, h / 2); g.fillRect(w / 2, h / 2, w / 2, h / 2);
    } else if (b === 1) {  // gradient: rgb1 at the top, rgb2 at the bottom
      const gr = g.createLinearGradient(0, 0, 0, h);
      gr.addColorStop(0, rgb(r1)); gr.addColorStop(1, rgb(r2));
      g.fillStyle = gr; g.fillRect(0, 0, w, h);
    } else {
      g.fillStyle = rgb(b === 3 ? r1 : [0.8, 0.8, 0.8]); g.fillRect(0, 0, w, h);
    }
    const mark = t.mark ? t.mark[id] : 0;
    if (mark === 1 || mark === 2) {
      g.strokeStyle = rgb(t.markrgb.slice(3 * id, 3 * id + 3));
      g.lineWidth = Math.max(1, w / 64);
      if (mark === 1) { g.strokeRect(0, 0, w, h); g.beginPath(); g.moveTo(w / 2, 0); g.lineTo(w / 2, h);
        g.moveTo(0, h / 2); g.lineTo(w, h / 2); g.stroke(); }
      else { g.beginPath(); g.moveTo(w / 2, 0); g.lineTo(w / 2, h); g.moveTo(0, h / 2); g.lineTo(w, h / 2); g.stroke(); }
    }
    const tex = new THREE.CanvasTexture(c);
    tex.wrapS = tex.wrapT = THREE.RepeatWrapping;
    tex.magFilter = THREE.NearestFilter;
    return tex;
  }

  // A texture from the model's pixels (image files; scene.tex.image[id]: RGB rows from the top,
  // possibly subsampled by the server). A cube or skybox with six stacked faces gives face `face`;
  // one repeated square image is the same for every face.
  function imageTexture(S, id, face) {
    const im = S.tex.image && S.tex.image[id];
    if (!im) return null;
    const rgb = new Uint8Array(b64buffer(im.rgb));
    const w = im.width, stacked = S.tex.type[id] !== 0 && im.height === 6 * w;
    const h = stacked ? w : im.height, first = stacked ? (face || 0) * w * w * 3 : 0;
    const c = document.createElement('canvas');
    c.width = w; c.height = h;
    const g = c.getContext('2d');
    const data = g.createImageData(w, h);
    for (let i = 0; i < w * h; ++i) {
      data.data[4 * i] = rgb[first + 3 * i]; data.data[4 * i + 1] = rgb[first + 3 * i + 1];
      data.data[4 * i + 2] = rgb[first + 3 * i + 2]; data.data[4 * i + 3] = 255;
    }
    g.putImageData(data, 0, 0);
    const tex = new THREE.CanvasTexture(c);
    tex.wrapS = tex.wrapT = THREE.RepeatWrapping;
    return tex;
  }

  // ------------------------------------------------------------------ geometry
  function capsuleGeometry(r, half) {
    const pts = [];
    const n = 12;
    for (let i = 0; i <= n; ++i) { const a = -Math.PI / 2 + (i / n) * (Math.PI / 2); pts.push(new THREE.Vector2(r * Math.cos(a), -half + r * Math.sin(a))); }
    for (let i = 0; i <= n; ++i) { const a = (i / n) * (Math.PI / 2); pts.push(new THREE.Vector2(r * Math.cos(a), half + r * Math.sin(a))); }
    const g = new THREE.LatheBufferGeometry(pts, 24);
    g.rotateX(Math.PI / 2);  // lathe axis y -> MuJoCo's capsule axis z
    return g;
  }

  function meshGeometry(S, id) {
    const m = S.mesh[id];
    const v = f32(m.vert), f = i32(m.face);
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(v, 3));
    g.setIndex(new THREE.BufferAttribute(new Uint32Array(f), 1));
    const flat = g.toNonIndexed();
    flat.computeVertexNormals();
    return flat;
  }

  function hfieldGeometry(S, id) {
    const h = S.hfield[id];
    const data = f32(h.data);
    const nr = h.nrow, nc = h.ncol, sz = h.size;
    const pos = new Float32Array(nr * nc * 3);
    for (let r = 0; r < nr; ++r)
      for (let c = 0; c < nc; ++c) {
        const k = 3 * (r * nc + c);
        pos[k] = -sz[0] + (2 * sz[0] * c) / (nc - 1);
        pos[k + 1] = -sz[1] + (2 * sz[1] * r) / (nr - 1);
        pos[k + 2] = data[r * nc + c] * sz[2];
      }
    const idx = [];
    for (let r = 0; r + 1 < nr; ++r)
      for (let c = 0; c + 1 < nc; ++c) {
        const a = r * nc + c, b = a + 1, d = a + nc, e = d + 1;
        idx.push(a, b, e, a, e, d);
      }
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(pos, 3));
    g.setIndex(idx);
    g.computeVertexNormals();
    return g;
  }

  function primitiveGeometry(type, size, extent) {
    switch (type) {
      case GEOM.PLANE: {
        const sx = size[0] > 0 ? size[0] : 2 * extent, sy = size[1] > 0 ? size[1] : 2 * extent;
        return new THREE.PlaneBufferGeometry(2 * sx, 2 * sy);
      }
      case GEOM.SPHERE: return new THREE.SphereBufferGeometry(size[0], 24, 16);
      case GEOM.CAPSULE: return capsuleGeometry(size[0], size[1]);
      case GEOM.ELLIPSOID: { const g = new THREE.SphereBufferGeometry(1, 24, 16); g.scale(size[0], size[1], size[2]); return g; }
      case GEOM.CYLINDER: { const g = new THREE.CylinderBufferGeometry(size[0], size[0], 2 * size[1], 24); g.rotateX(Math.PI / 2); return g; }
      case GEOM.BOX: return new THREE.BoxBufferGeometry(2 * size[0], 2 * size[1], 2 * size[2]);
      default: return null;
    }
  }

  // The colour of a geom: its own rgba, or its material's where the geom keeps the default rgba
  // (as MuJoCo's renderer does).
  function makeMaterial(S, rgba, matid, type, size) {
    const mat = S.mat;
    let color = rgba;
    const params = { side: type === GEOM.PLANE ? THREE.DoubleSide : THREE.FrontSide, flatShading: type === GEOM.MESH };
    let spec = 0.5, shin = 0.5, emis = 0;
    if (matid >= 0 && mat && mat.rgba) {
      const isDefault = rgba.every((x, k) => Math.abs(x - DEFAULT_RGBA[k]) < 1e-6);
      if (isDefault) color = mat.rgba.slice(4 * matid, 4 * matid + 4);
      spec = mat.specular[matid]; shin = mat.shininess[matid]; emis = mat.emission[matid];
      const texid = mat.texid ? mat.texid[matid] : -1;
      // (meshes have no texture coordinates here: drawn in the material's colour)
      const fromImage = texid >= 0 && type !== GEOM.MESH && S.tex && S.tex.image && S.tex.image[texid];
      if (texid >= 0 && S.tex && S.tex.builtin && (S.tex.builtin[texid] > 0 || fromImage) && S.tex.type[texid] !== 2) {
        // image files: a box shows a cube texture's six faces (+x right, -x left, +y up, -y down,
        // +z front, -z back: the order of 2.2.2's faces, which it loads as an OpenGL cube map)
        if (fromImage && type === GEOM.BOX && S.tex.type[texid] === 1) {
          return [0, 1, 2, 3, 4, 5].map((f) => {
            const p = makeMaterial(S, rgba, -1, type, size);
            p.map = imageTexture(S, texid, f);
            if (rgba.every((x, k) => Math.abs(x - DEFAULT_RGBA[k]) < 1e-6)) {
              const c = mat.rgba.slice(4 * matid, 4 * matid + 4);
              p.color = new THREE.Color(c[0], c[1], c[2]); p.opacity = c[3]; p.transparent = c[3] < 1;
            }
            p.specular = new THREE.Color(0.5 * mat.specular[matid], 0.5 * mat.specular[matid], 0.5 * mat.specular[matid]);
            p.shininess = 1 + 100 * mat.shininess[matid];
            return p;
          });
        }
        const tex = fromImage ? imageTexture(S, texid, 0) : builtinTexture(S, texid);
        const rep = mat.texrepeat.slice(2 * matid, 2 * matid + 2);
        if (type === GEOM.PLANE && mat.texuniform && mat.texuniform[matid]) {
          const sx = size[0] > 0 ? size[0] : 10, sy = size[1] > 0 ? size[1] : 10;
          tex.repeat.set(rep[0] * sx, rep[1] * sy);
        } else tex.repeat.set(rep[0], rep[1]);
        params.map = tex;
      }
    }
    params.color = new THREE.Color(color[0], color[1], color[2]);
    params.opacity = color[3];
    params.transparent = color[3] < 1;
    params.specular = new THREE.Color(spec * 0.5, spec * 0.5, spec * 0.5);
    params.shininess = 1 + 100 * shin;
    params.emissive = new THREE.Color(color[0] * emis, color[1] * emis, color[2] * emis);
    return new THREE.MeshPhongMaterial(params);
  }

  function setPose(obj, pos, quat) {
    obj.position.set(pos[0], pos[1], pos[2]);
    obj.quaternion.set(quat[1], quat[2], quat[3], quat[0]);
  }

  // ------------------------------------------------------------------ scene construction
  function buildScene(desc) {
    S = desc;
    api.scene = desc;
    const extent = (S.stat && S.stat.extent) || 1;
    const center = (S.stat && S.stat.center) || [0, 0, 0];
    const vis = S.vis || {};
    scene = new THREE.Scene();
    scene.background = new THREE.Color(BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]);
    const sky = S.tex && S.tex.type ? S.tex.type.indexOf(2) : -1;
    if (sky >= 0 && S.tex.builtin[sky] > 0) scene.background = builtinTexture(S, sky);
    else if (sky >= 0 && S.tex.image && S.tex.image[sky]) scene.background = imageTexture(S, sky, 4);
    if (vis.fog && vis.fogstart) scene.fog = null;  // MuJoCo's fog is off unless enabled in the viewer

    root = new THREE.Group();
    scene.add(root);
    bodies = [];
    for (let b = 0; b < S.nbody; ++b) { const g = new THREE.Group(); g.userData.body = b; root.add(g); bodies.push(g); }
    siteGroup = new THREE.Group(); comGroup = new THREE.Group(); jointGroup = new THREE.Group(); contactGroup = new THREE.Group();
    scene.add(contactGroup);

    // geoms
    const G = S.geom;
    geomMeshes = [];
    for (let i = 0; i < S.ngeom; ++i) {
      const type = G.type[i];
      const size = G.size.slice(3 * i, 3 * i + 3);
      let geo = null;
      if (type === GEOM.MESH && G.dataid[i] >= 0 && S.mesh && S.mesh[G.dataid[i]]) geo = meshGeometry(S, G.dataid[i]);
      else if (type === GEOM.HFIELD && G.dataid[i] >= 0 && S.hfield && S.hfield[G.dataid[i]]) geo = hfieldGeometry(S, G.dataid[i]);
      else geo = primitiveGeometry(type, size, extent);
      if (!geo) { geomMeshes.push(null); continue; }
      const rgba = G.rgba.slice(4 * i, 4 * i + 4);
      const m = new THREE.Mesh(geo, makeMaterial(S, rgba, G.matid ? G.matid[i] : -1, type, size));
      m.userData = { body: G.body[i], geom: i, group: G.group ? G.group[i] : 0, baseOpacity: rgba[3] };
      m.castShadow = type !== GEOM.PLANE && type !== GEOM.HFIELD;
      m.receiveShadow = true;
      setPose(m, G.pos.slice(3 * i, 3 * i + 3), G.quat.slice(4 * i, 4 * i + 4));
      bodies[G.body[i]].add(m);
      geomMeshes.push(m);
    }
    // sites (hidden until asked for)
    const T = S.site;
    if (T) for (let i = 0; i < T.type.length; ++i) {
      const size = T.size.slice(3 * i, 3 * i + 3);
      const geo = primitiveGeometry(T.type[i], size, extent);
      if (!geo) continue;
      const rgba = T.rgba.slice(4 * i, 4 * i + 4);
      const m = new THREE.Mesh(geo, makeMaterial(S, rgba, T.matid ? T.matid[i] : -1, T.type[i], size));
      setPose(m, T.pos.slice(3 * i, 3 * i + 3), T.quat.slice(4 * i, 4 * i + 4));
      m.visible = false;
      m.userData = { site: i };
      bodies[T.body[i]].add(m);
      siteGroup.add(new THREE.Object3D());  // placeholder keeps the count
      siteGroup.userData[i] = m;
    }
    // centres of mass and joint axes, attached to the bodies
    const comMat = new THREE.MeshBasicMaterial({ color: 0xe6e6e6 });
    const comGeo = new THREE.SphereBufferGeometry(0.02 * extent, 10, 8);
    api.comMarkers = [];
    for (let b = 1; b < S.nbody; ++b) {
      const s = new THREE.Mesh(comGeo, comMat);
      const ip = S.body.ipos.slice(3 * b, 3 * b + 3);
      s.position.set(ip[0], ip[1], ip[2]);
      s.visible = false;
      bodies[b].add(s);
      api.comMarkers.push(s);
    }
    api.jointArrows = [];
    if (S.jnt) for (let j = 0; j < S.jnt.type.length; ++j) {
      const t = S.jnt.type[j];
      if (t !== 2 && t !== 3) continue;  // hinge and slide joints have an axis
      const ax = S.jnt.axis.slice(3 * j, 3 * j + 3), p = S.jnt.pos.slice(3 * j, 3 * j + 3);
      const a = new THREE.ArrowHelper(new THREE.Vector3(ax[0], ax[1], ax[2]).normalize(), new THREE.Vector3(p[0], p[1], p[2]),
                                      0.2 * extent * (S.vis && S.vis.jointlength || 1), t === 3 ? 0x3399cc : 0xcc9933);
      a.visible = false;
      bodies[S.jnt.body[j]].add(a);
      api.jointArrows.push(a);
    }
    // lights: the headlight (ambient + a directional light that follows the camera) and the model's
    const amb = vis.ambient || [0.1, 0.1, 0.1], dif = vis.diffuse || [0.4, 0.4, 0.4];
    scene.add(new THREE.AmbientLight(new THREE.Color(amb[0] + 0.15, amb[1] + 0.15, amb[2] + 0.15)));
    const fovy = vis.fovy || 45;
    camera = new THREE.PerspectiveCamera(fovy, 1, (vis.znear || 0.01) * extent, (vis.zfar || 50) * extent);
    camera.up.set(0, 0, 1);
    scene.add(camera);
    if (vis.active === undefined || vis.active) {
      headlight = new THREE.DirectionalLight(new THREE.Color(dif[0], dif[1], dif[2]), 1.0);
      headlight.position.set(0, 0, 1);
      camera.add(headlight);
      camera.add(headlight.target);
      headlight.target.position.set(0, 0, -1);
    }
    let shadows = 0;
    if (S.light) for (let l = 0; l < S.light.body.length; ++l) {
      if (S.light.active && !S.light.active[l]) continue;
      const L = new THREE.DirectionalLight(0xffffff, 0.45);
      const p = S.light.pos.slice(3 * l, 3 * l + 3), d = S.light.dir.slice(3 * l, 3 * l + 3);
      L.position.set(p[0], p[1], p[2]);
      L.target.position.set(p[0] + d[0], p[1] + d[1], p[2] + d[2]);
      // the first light that casts shadows (MuJoCo's castshadow, on by default) gets a shadow map
      // covering the model
      if (shadows === 0 && useShadows && (!S.light.castshadow || S.light.castshadow[l])) {
        shadows = 1;
        L.castShadow = true;
        const r = 1.5 * extent, sz = (vis.shadowsize || 2048);
        L.shadow.mapSize.set(Math.min(sz, 2048), Math.min(sz, 2048));
        Object.assign(L.shadow.camera, { left: -r, right: r, top: r, bottom: -r, near: 0.01, far: 10 * extent + 10 });
        L.shadow.bias = -0.0005;
      }
      bodies[S.light.body[l]].add(L);
      bodies[S.light.body[l]].add(L.target);
    }

    // renderer and controls
    if (!renderer) {
      renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
      renderer.setPixelRatio(1);
      renderer.shadowMap.enabled = true;
      renderer.shadowMap.type = THREE.PCFSoftShadowMap;
      $('view').appendChild(renderer.domElement);
      window.addEventListener('resize', resize);
    }
    controls = new THREE.OrbitControls(camera, renderer.domElement);
    controls.enableDamping = false;
    controls.addEventListener('change', () => { dirty = true; });
    controls.screenSpacePanning = true;
    setFreeCamera({ lookat: center, distance: 1.5 * extent, azimuth: vis.azimuth !== undefined ? vis.azimuth : 90,
                    elevation: vis.elevation !== undefined ? vis.elevation : -45 });
    resize();

    buildUi();
    if (S.initial) applyFrame(S.initial);
  }

  // The free camera as MuJoCo places it: looking at `lookat` from `distance`, azimuth and
  // elevation in degrees (forward = [cos(el)cos(az), cos(el)sin(az), sin(el)]).
  function setFreeCamera(c) {
    const az = (c.azimuth * Math.PI) / 180, el = (c.elevation * Math.PI) / 180;
    const fwd = [Math.cos(el) * Math.cos(az), Math.cos(el) * Math.sin(az), Math.sin(el)];
    camera.position.set(c.lookat[0] - c.distance * fwd[0], c.lookat[1] - c.distance * fwd[1], c.lookat[2] - c.distance * fwd[2]);
    if (c.fovy) { camera.fov = c.fovy; camera.updateProjectionMatrix(); }
    controls.target.set(c.lookat[0], c.lookat[1], c.lookat[2]);
    camera.lookAt(controls.target);
    controls.update();
    modelCamera = -1;
  }
  api.setFreeCamera = (c) => { setFreeCamera(c); render(); };
  api.cameraPose = () => ({ target: controls.target.toArray(), position: camera.position.toArray() });
  api.setModelCamera = (i) => { modelCamera = i; const sel = $('sel-camera'); if (sel) sel.value = String(i); render(); };

  function resize() {
    if (!renderer) return;
    const w = window.innerWidth, h = window.innerHeight;
    renderer.setSize(w, h);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    render();
  }

  // ------------------------------------------------------------------ frames
  function parseFrame(buf) {
    const header = new Float64Array(buf, 0, HEADER.WORDS);
    const poses = new Float32Array(buf, 8 * HEADER.WORDS, 7 * S.nbody);
    const ncon = header[HEADER.NCON] | 0;
    const contacts = new Float32Array(buf, 8 * HEADER.WORDS + 28 * S.nbody, 6 * ncon);
    return { header, poses, contacts };
  }

  function applyPoses(poses) {
    for (let b = 0; b < S.nbody; ++b) {
      const k = 7 * b;
      bodies[b].position.set(poses[k], poses[k + 1], poses[k + 2]);
      bodies[b].quaternion.set(poses[k + 4], poses[k + 5], poses[k + 6], poses[k + 3]);
    }
  }

  function applyFrame(f) {
    lastFrame = f;
    applyPoses(f.poses);
    updateContacts(f.contacts || new Float32Array(0));
    updateTracking();
    api.frames += 1;
    dirty = true;
  }

  function updateContacts(c) {
    const n = c.length / 6;
    const extent = (S.stat && S.stat.extent) || 1;
    while (contactPool.length < n) {
      const m = new THREE.Mesh(new THREE.SphereBufferGeometry(0.015 * extent, 8, 6), new THREE.MeshBasicMaterial({ color: 0xe69933 }));
      contactGroup.add(m); contactPool.push(m);
      const a = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1, 0xb3e6e6);
      contactGroup.add(a); arrowPool.push(a);
    }
    const scale = 0.005 * ((S.vis && S.vis.forcescale) || 1) * extent;
    for (let i = 0; i < contactPool.length; ++i) {
      const on = i < n;
      contactPool[i].visible = on && show.contacts;
      arrowPool[i].visible = on && show.forces;
      if (!on) continue;
      contactPool[i].position.set(c[6 * i], c[6 * i + 1], c[6 * i + 2]);
      if (show.forces) {
        const f = new THREE.Vector3(c[6 * i + 3], c[6 * i + 4], c[6 * i + 5]);
        const len = f.length();
        if (len > 1e-9) {
          arrowPool[i].position.copy(contactPool[i].position);
          arrowPool[i].setDirection(f.clone().divideScalar(len));
          arrowPool[i].setLength(Math.max(1e-3, Math.min(2 * extent, len * scale)));
        } else arrowPool[i].visible = false;
      }
    }
  }

  function updateTracking() {
    if (trackBody < 0) return;
    const p = bodies[trackBody].position;
    if (trackPrev) {
      const d = p.clone().sub(trackPrev);
      camera.position.add(d);
      controls.target.add(d);
    } else controls.target.copy(p);
    trackPrev = p.clone();
  }

  function render() {
    if (!renderer) return;
    if (modelCamera >= 0 && S.cam) {
      const i = modelCamera, b = bodies[S.cam.body[i]];
      const p = S.cam.pos.slice(3 * i, 3 * i + 3), q = S.cam.quat.slice(4 * i, 4 * i + 4);
      const lq = new THREE.Quaternion(q[1], q[2], q[3], q[0]);
      camera.position.set(p[0], p[1], p[2]).applyQuaternion(b.quaternion).add(b.position);
      camera.quaternion.copy(b.quaternion).multiply(lq);
      if (S.cam.fovy) { camera.fov = S.cam.fovy[i]; camera.updateProjectionMatrix(); }
    } else if (controls) controls.update();
    renderer.render(scene, camera);
  }

  // Page URL options: ?maxfps=N caps the drawing rate, ?shadows=0 turns shadows off (software
  // rendering in tests, slow machines).
  const maxfps = parseFloat(new URLSearchParams(location.search).get('maxfps')) || 0;
  let lastRender = 0;
  // Drawing happens when something changed (a state frame, the camera, a toggle), not every
  // animation frame: software WebGL and laptops stay cool while the view is still.
  const requestRender = () => { dirty = true; };
  api.requestRender = requestRender;
  function loop(now) {
    if (dirty && (!maxfps || now - lastRender >= 1000 / maxfps - 1)) { dirty = false; render(); lastRender = now; }
    requestAnimationFrame(loop);
  }

  // ------------------------------------------------------------------ UI
  function send(obj) {
    if (socket && socket.readyState === 1) socket.send(JSON.stringify(obj));
  }
  api.send = send;

  function applyShow() {
    for (const m of geomMeshes) {
      if (!m) continue;
      const g = m.userData.group;
      m.visible = g < 0 || g >= show.groups.length ? true : show.groups[g];
      const base = m.userData.baseOpacity;
      for (const mt of Array.isArray(m.material) ? m.material : [m.material]) {
        mt.opacity = show.transparent ? Math.min(base, 0.35) : base;
        mt.transparent = show.transparent || base < 1;
      }
    }
    for (const k in siteGroup.userData) siteGroup.userData[k].visible = show.sites;
    for (const s of api.comMarkers) s.visible = show.com;
    for (const a of api.jointArrows) a.visible = show.joints;
    if (lastFrame) updateContacts(lastFrame.contacts || new Float32Array(0));
    render();
  }
  api.show = show;
  api.applyShow = applyShow;

  function buildUi() {
    $('title').textContent = 'Moreau: ' + (S.name || 'model');
    const trk = $('sel-track'), cam = $('sel-camera');
    trk.length = 1; cam.length = 1;
    for (let b = 1; b < S.nbody; ++b) trk.add(new Option(S.body.name[b] || ('body ' + b), String(b)));
    if (S.cam) for (let i = 0; i < S.cam.body.length; ++i) cam.add(new Option((S.cam.name && S.cam.name[i]) || ('camera ' + i), String(i)));
    trk.onchange = () => { trackBody = parseInt(trk.value, 10); trackPrev = null; updateTracking(); dirty = true; };
    cam.onchange = () => { modelCamera = parseInt(cam.value, 10); dirty = true;
      if (modelCamera < 0) { camera.fov = (S.vis && S.vis.fovy) || 45; camera.updateProjectionMatrix(); } };
    const toggles = { 't-contacts': 'contacts', 't-forces': 'forces', 't-joints': 'joints', 't-com': 'com', 't-sites': 'sites', 't-transparent': 'transparent' };
    for (const id in toggles) { const el = $(id); el.checked = show[toggles[id]]; el.onchange = () => { show[toggles[id]] = el.checked; applyShow(); }; }
    const groups = $('groups');
    groups.innerHTML = 'geom groups ';
    for (let g = 0; g < show.groups.length; ++g) {
      const l = document.createElement('label');
      const c = document.createElement('input');
      c.type = 'checkbox'; c.checked = show.groups[g]; c.id = 'group-' + g;
      c.onchange = () => { show.groups[g] = c.checked; applyShow(); };
      l.appendChild(c); l.appendChild(document.createTextNode(String(g)));
      groups.appendChild(l);
    }
    // actuator sliders
    const box = $('ctrls');
    box.innerHTML = '';
    const A = S.actuator || { name: [], ctrlrange: [] };
    $('ctrl-title').style.display = A.name.length ? '' : 'none';
    for (let i = 0; i < A.name.length; ++i) {
      let lo = A.ctrlrange[2 * i], hi = A.ctrlrange[2 * i + 1];
      if (!(A.ctrllimited && A.ctrllimited[i]) || !(hi > lo)) { lo = -1; hi = 1; }
      const row = document.createElement('div'); row.className = 'ctrl';
      const lab = document.createElement('span'); lab.textContent = A.name[i] || ('actuator ' + i);
      const s = document.createElement('input');
      s.type = 'range'; s.min = lo; s.max = hi; s.step = (hi - lo) / 200; s.value = Math.min(hi, Math.max(lo, 0));
      s.id = 'ctrl-' + i;
      s.oninput = () => send({ cmd: 'ctrl', index: i, value: parseFloat(s.value) });
      row.appendChild(lab); row.appendChild(s); box.appendChild(row);
    }
    const keys = $('sel-key');
    keys.length = 0;
    (S.key || []).forEach((n, k) => keys.add(new Option(n || ('key ' + k), String(k))));
    $('btn-key').disabled = !(S.key && S.key.length);
    if (S.solver) $('sel-solver').value = S.solver;
    applyShow();
  }

  function bindLiveButtons() {
    $('btn-pause').onclick = () => send({ cmd: 'pause', value: !api.paused });
    $('btn-step').onclick = () => send({ cmd: 'step' });
    $('btn-reset').onclick = () => send({ cmd: 'reset' });
    $('btn-key').onclick = () => send({ cmd: 'key', index: parseInt($('sel-key').value, 10) });
    $('sel-speed').onchange = () => send({ cmd: 'speed', value: parseFloat($('sel-speed').value) });
    $('sel-solver').onchange = () => send({ cmd: 'solver', name: $('sel-solver').value });
    window.addEventListener('keydown', (e) => {
      if (e.target && e.target.tagName === 'INPUT') return;
      if (e.code === 'Space') { send({ cmd: 'pause', value: !api.paused }); e.preventDefault(); }
      else if (e.code === 'ArrowRight') send({ cmd: 'step' });
      else if (e.code === 'Backspace') send({ cmd: 'reset' });
    });
  }

  // ------------------------------------------------------------------ perturbation (ctrl + drag)
  function bindPerturb() {
    const ray = new THREE.Raycaster();
    let drag = null;
    const mouse = (e) => {
      const r = renderer.domElement.getBoundingClientRect();
      return new THREE.Vector2(((e.clientX - r.left) / r.width) * 2 - 1, -((e.clientY - r.top) / r.height) * 2 + 1);
    };
    const view = $('view');
    view.addEventListener('mousedown', (e) => {
      if (!e.ctrlKey || !socket) return;
      ray.setFromCamera(mouse(e), camera);
      const hits = ray.intersectObjects(geomMeshes.filter((m) => m && m.visible && m.userData.body > 0));
      if (!hits.length) return;
      e.stopPropagation(); e.preventDefault();
      const b = hits[0].object.userData.body;
      const local = bodies[b].worldToLocal(hits[0].point.clone());
      const n = new THREE.Vector3(); camera.getWorldDirection(n);
      drag = { body: b, local, plane: new THREE.Plane().setFromNormalAndCoplanarPoint(n, hits[0].point) };
      send({ cmd: 'perturb', body: b, anchor: [local.x, local.y, local.z], target: [hits[0].point.x, hits[0].point.y, hits[0].point.z] });
    }, true);
    window.addEventListener('mousemove', (e) => {
      if (!drag) return;
      ray.setFromCamera(mouse(e), camera);
      const p = new THREE.Vector3();
      if (ray.ray.intersectPlane(drag.plane, p))
        send({ cmd: 'perturb', body: drag.body, anchor: [drag.local.x, drag.local.y, drag.local.z], target: [p.x, p.y, p.z] });
    });
    window.addEventListener('mouseup', () => { if (drag) { send({ cmd: 'perturb', body: -1 }); drag = null; } });
  }

  // ------------------------------------------------------------------ stats and plot
  function updateStats(h) {
    api.paused = h[HEADER.PAUSED] > 0;
    $('btn-pause').textContent = api.paused ? 'Run' : 'Pause';
    const solver = SOLVERS[h[HEADER.SOLVER] | 0] || '?';
    api.solver = solver;
    api.time = h[HEADER.TIME];
    const sel = $('sel-solver');
    if (document.activeElement !== sel && sel.value !== solver) sel.value = solver;
    const e = h[HEADER.EPOT] + h[HEADER.EKIN];
    $('stats').textContent =
      't = ' + h[HEADER.TIME].toFixed(3) + ' s   ' + (api.paused ? 'paused' : (h[HEADER.RTF].toFixed(2) + 'x real time')) + '\n' +
      'steps/s ' + Math.round(h[HEADER.SPS]) + '   contacts ' + (h[HEADER.NCON] | 0) + '   ' + solver + '\n' +
      'energy ' + e.toPrecision(5) + '   primal err ' + h[HEADER.PRIMAL].toExponential(2);
    plot.t.push(h[HEADER.TIME]); plot.e.push(e);
    plot.p.push(Math.log10(Math.max(1e-16, h[HEADER.PRIMAL]))); plot.eps.push(Math.log10(Math.max(1e-16, h[HEADER.EPS])));
    if (plot.t.length > plot.n) { plot.t.shift(); plot.e.shift(); plot.p.shift(); plot.eps.shift(); }
  }

  function drawPlot() {
    const c = $('plot'), g = c.getContext('2d');
    g.clearRect(0, 0, c.width, c.height);
    const line = (v, color, lo, hi) => {
      if (v.length < 2) return;
      const span = hi - lo || 1;
      g.strokeStyle = color; g.beginPath();
      v.forEach((y, i) => { const px = (i / (plot.n - 1)) * c.width, py = c.height - 4 - ((y - lo) / span) * (c.height - 8);
        if (i) g.lineTo(px, py); else g.moveTo(px, py); });
      g.stroke();
    };
    const lo = Math.min(...plot.e), hi = Math.max(...plot.e);
    line(plot.e, '#7fd67f', lo, hi);
    line(plot.p, '#f08a5d', -16, 2);
    line(plot.eps, '#6fb3f0', -16, 2);
  }

  // ------------------------------------------------------------------ live mode
  function connect() {
    if (shadowParam === null && softwareGL()) useShadows = false;
    const proto = location.protocol === 'https:' ? 'wss://' : 'ws://';
    socket = new WebSocket(proto + location.host + '/ws');
    socket.binaryType = 'arraybuffer';
    socket.onmessage = (ev) => {
      if (typeof ev.data === 'string') {
        const msg = JSON.parse(ev.data);
        if (msg.type === 'scene') { buildScene(msg.scene); api.ready = true; }
        else if (msg.type === 'error') { api.errors.push(msg.message); $('error').textContent = msg.message; }
        else if (msg.type === 'ack') { api.lastAck = msg; }
        return;
      }
      if (!S) return;
      const f = parseFrame(ev.data);
      applyFrame(f);
      updateStats(f.header);
      // acknowledge: the server keeps at most four frames in flight to this page, so a page that
      // draws slowly shows the newest state rather than a queue of old ones
      socket.send('{"cmd":"got"}');
    };
    socket.onclose = () => { $('error').textContent = 'disconnected from the simulation'; };
    bindLiveButtons();
    bindPerturb();
    setInterval(() => { if (S) drawPlot(); }, 100);
    requestAnimationFrame(loop);
  }

  // ------------------------------------------------------------------ replay mode
  function startReplay(R) {
    document.getElementById('live-controls').classList.add('hidden');
    document.getElementById('replay-controls').classList.remove('hidden');
    if (R.bare) document.body.classList.add('bare');
    buildScene(R.scene);
    const nb = R.scene.nbody;
    // poses: bodies that never move from R.static; the moving ones from R.pos (float32) and
    // R.quat (int16, q * 32767)
    const base = f32(R.static), moving = R.moving || [];
    const pos = f32(R.pos), quat = new Int16Array(b64buffer(R.quat));
    const nm = moving.length;
    const framePoses = (k) => {
      const p = Float32Array.from(base);
      for (let j = 0; j < nm; ++j) {
        const b = moving[j], o = 7 * b, ip = 3 * (k * nm + j), iq = 4 * (k * nm + j);
        p[o] = pos[ip]; p[o + 1] = pos[ip + 1]; p[o + 2] = pos[ip + 2];
        for (let c = 0; c < 4; ++c) p[o + 3 + c] = quat[iq + c] / 32767;
      }
      return p;
    };
    const times = R.time ? f32(R.time) : null;
    const n = R.nframe;
    const slider = $('slider-time');
    slider.max = String(n - 1);
    let k = 0, playing = !R.bare && n > 1, t0 = performance.now(), k0 = 0;
    const dt = times && n > 1 ? (times[n - 1] - times[0]) / (n - 1) : 1 / 60;
    const show = (i) => {
      k = Math.max(0, Math.min(n - 1, i | 0));
      applyFrame({ poses: framePoses(k), contacts: null });
      slider.value = String(k);
      api.frame = k;
      $('stats').textContent = 'frame ' + k + ' / ' + (n - 1) + (times ? ('   t = ' + times[k].toFixed(3) + ' s') : '');
      render();
    };
    api.showFrame = (i) => { playing = false; $('btn-play').textContent = 'Play'; show(i); };
    api.nframe = n;
    slider.oninput = () => { playing = false; $('btn-play').textContent = 'Play'; show(parseInt(slider.value, 10)); };
    $('btn-play').textContent = playing ? 'Pause' : 'Play';
    $('btn-play').onclick = () => {
      playing = !playing; $('btn-play').textContent = playing ? 'Pause' : 'Play';
      if (playing) { if (k >= n - 1) k = 0; t0 = performance.now(); k0 = k; }
    };
    if (R.camera) {
      if (typeof R.camera === 'number') api.setModelCamera(R.camera);
      else setFreeCamera(R.camera);
    }
    show(0);
    const tick = () => {
      if (playing) {
        const i = k0 + Math.floor((performance.now() - t0) / 1000 / dt);
        if (i >= n - 1) { show(n - 1); playing = false; $('btn-play').textContent = 'Play'; }
        else if (i !== k) show(i);
      }
      if (dirty) { dirty = false; render(); }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    api.ready = true;
  }

  window.addEventListener('error', (e) => api.errors.push(String(e.message)));
  window.addEventListener('load', () => {
    if (window.MOREAU_REPLAY) startReplay(window.MOREAU_REPLAY);
    else connect();
  });
})();
