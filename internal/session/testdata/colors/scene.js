// The scene of every colours page, built with the global THREE its page
// loaded: a light and a material coloured by HSL (at hue 1/6 three r128
// computes g = 0.99999…, which its getHex truncates to fe) and a plain hex.
(function () {
  const scene = new THREE.Scene();
  const light = new THREE.PointLight();
  light.name = 'light';
  light.color.setHSL(1 / 6, 1, 0.5);
  scene.add(light);
  const teal = new THREE.Mesh(new THREE.BoxGeometry(), new THREE.MeshBasicMaterial());
  teal.name = 'teal';
  teal.material.color.setHSL(0.5, 1, 0.5);
  scene.add(teal);
  const blue = new THREE.Mesh(new THREE.BoxGeometry(), new THREE.MeshBasicMaterial({ color: 0x336699 }));
  blue.name = 'blue';
  scene.add(blue);
  const camera = new THREE.PerspectiveCamera(50, 1, 0.1, 100);
  camera.position.z = 5;
  const renderer = new THREE.WebGLRenderer();
  renderer.setSize(100, 100);
  document.body.appendChild(renderer.domElement);
  window.__3D_STATE__ = { three: THREE.REVISION };
  (function loop() { renderer.render(scene, camera); requestAnimationFrame(loop); })();
})();
