// A running evaluation's page: poll its progress, and reload once it ends (the plots and the
// table are drawn by the server).
(function () {
  "use strict";
  var card = document.getElementById("evaluation");
  if (!card || card.dataset.active !== "1") return;
  var bar = document.getElementById("evaluation-progress");
  var counts = document.getElementById("evaluation-counts");
  var badge = document.getElementById("evaluation-status");
  var scored = Number(bar.value);

  function poll() {
    fetch("/api/evaluations/" + encodeURIComponent(card.dataset.id), {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (body) {
        if (!body) return setTimeout(poll, 3000);
        var progress = body.progress || {};
        bar.value = body.done_count;
        counts.textContent = body.done_count + " of " + body.question_count + " scored · " +
          (progress.running || 0) + " running · " + (progress.pending || 0) + " waiting";
        badge.textContent = body.status;
        card.dataset.status = body.status;
        if (body.status !== "queued" && body.status !== "running") {
          window.location.reload();
          return;
        }
        // The page's metrics are redrawn every ten questions while it runs.
        if (body.done_count - scored >= 10) {
          window.location.reload();
          return;
        }
        setTimeout(poll, 1000);
      })
      .catch(function () { setTimeout(poll, 3000); });
  }
  setTimeout(poll, 1000);
})();
