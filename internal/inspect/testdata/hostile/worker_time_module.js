postMessage({ moduleNow: performance.now(), moduleRandom: Math.random(), moduleEvent: new Event('x').timeStamp });
