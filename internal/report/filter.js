(function () {
  var form = document.getElementById("filters");
  if (!form) return;
  form.hidden = false;
  var selects = form.querySelectorAll("select");
  var count = document.getElementById("shown");
  function apply() {
    var want = {};
    selects.forEach(function (s) { want[s.name] = s.value; });
    document.querySelectorAll("#grid th[data-model], #grid td[data-model]").forEach(function (cell) {
      cell.hidden = want.model !== "" && cell.getAttribute("data-model") !== want.model;
    });
    var shown = 0, visible = {};
    document.querySelectorAll("#grid tr.task").forEach(function (row) {
      var any = false;
      row.querySelectorAll(".chip").forEach(function (c) {
        var ok = (want.status === "" || c.getAttribute("data-status") === want.status) &&
          (want.attribution === "" || c.getAttribute("data-attribution") === want.attribution) &&
          (want.model === "" || c.getAttribute("data-model") === want.model);
        c.hidden = !ok;
        any = any || ok;
      });
      row.hidden = !any || (want.category !== "" && row.getAttribute("data-category") !== want.category);
      if (!row.hidden) {
        shown += row.querySelectorAll(".chip:not([hidden])").length;
        visible[row.getAttribute("data-category")] = true;
      }
    });
    document.querySelectorAll("#grid tr.cat").forEach(function (head) {
      head.hidden = !visible[head.getAttribute("data-category")];
    });
    count.textContent = shown + " of " + count.getAttribute("data-total") + " trials shown";
  }
  selects.forEach(function (s) { s.addEventListener("change", apply); });
  form.addEventListener("reset", function () { setTimeout(apply, 0); });
  apply();
})();
