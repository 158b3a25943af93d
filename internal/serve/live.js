(function () {
  var status = document.getElementById("live-status");
  var version = document.body.getAttribute("data-version");
  function say(text) { if (status) status.textContent = text; }
  if (!window.EventSource) { say("not live: this browser has no EventSource"); return; }
  var busy = false, again = false;
  // refresh asks for this page again and puts its live parts in place of
  // the ones shown, then applies the grid's filters to the new rows.
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.pathname + location.search, { cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.text();
    }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      document.querySelectorAll("[data-live]").forEach(function (el) {
        var fresh = el.id && doc.getElementById(el.id);
        if (fresh) el.replaceWith(document.importNode(fresh, true));
      });
      var total = doc.getElementById("shown"), shown = document.getElementById("shown");
      if (total && shown) shown.setAttribute("data-total", total.getAttribute("data-total"));
      // The filters' lists gain the new models, categories and statuses;
      // what is chosen stays chosen.
      document.querySelectorAll("#filters select").forEach(function (sel) {
        var fresh = doc.querySelector('#filters select[name="' + sel.name + '"]');
        if (!fresh) return;
        var chosen = sel.value;
        sel.replaceChildren.apply(sel, Array.prototype.map.call(fresh.options, function (o) { return document.importNode(o, true); }));
        sel.value = chosen;
        if (sel.value !== chosen) sel.value = "";
      });
      var first = document.querySelector("#filters select");
      if (first) first.dispatchEvent(new Event("change"));
      version = doc.body.getAttribute("data-version");
      document.body.setAttribute("data-version", version);
    }).catch(function (e) {
      say("live, but the last update failed: " + e.message);
    }).finally(function () {
      busy = false;
      if (again) { again = false; refresh(); }
    });
  }
  var events = new EventSource("/events");
  events.addEventListener("change", function (ev) {
    var d = JSON.parse(ev.data);
    say("live · " + d.done + (d.planned ? " of " + d.planned : "") + " finished" + (d.running ? ", " + d.running + " unfinished" : ""));
    if (version !== null && d.version !== version && document.querySelector("[data-live]")) refresh();
  });
  events.onerror = function () { say("disconnected from the server: retrying"); };
})();
