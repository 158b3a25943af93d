window.__3D_STATE__.ran = 1;
