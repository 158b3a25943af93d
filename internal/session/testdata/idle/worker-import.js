importScripts('https://cdn.jsdelivr.net/npm/three@0.147.0/build/three.min.js');
postMessage(THREE.REVISION);
