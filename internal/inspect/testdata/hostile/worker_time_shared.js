onconnect = (e) => {
  const port = e.ports[0];
  port.onmessage = (m) => port.postMessage({ sharedGot: m.data, sharedNow: performance.now(), sharedRandom: Math.random() });
};
