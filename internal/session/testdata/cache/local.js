window.localRan = (window.localRan || 0) + 1;
