// The compare page: while either run is still going, wait for both to finish, then reload
// (the comparison itself is rendered by the server from the two runs' event logs).
(function () {
  "use strict";
  var A = window.Adrag;
  var root = document.getElementById("compare");
  if (!root || root.dataset.active !== "1") return;
  var ids = [root.dataset.a, root.dataset.b];
  var ACTIVE = ["queued", "running"];

  function check() {
    Promise.all(ids.map(function (id) { return A.api("/api/runs/" + encodeURIComponent(id)); })).then(function (runs) {
      var going = runs.some(function (run) { return ACTIVE.indexOf(run.status) !== -1; });
      if (going) { setTimeout(check, 1500); return; }
      window.location.reload();
    }).catch(function (err) {
      var note = document.getElementById("compare-waiting");
      if (note) note.textContent = "Could not follow the runs: " + err.message + " Refresh to try again.";
    });
  }
  setTimeout(check, 1000);
})();
