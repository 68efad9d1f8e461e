// The header's health dot: green when the database and a worker answer.
(function () {
  var el = document.getElementById("health-dot");
  if (!el) return;
  var label = el.querySelector(".health-label");
  function check() {
    fetch("/api/health", { headers: { Accept: "application/json" } })
      .then(function (res) { return res.json(); })
      .then(function (body) {
        var ok = body.status === "healthy";
        var worker = body.worker && body.worker.seen;
        el.dataset.state = ok ? (worker ? "ok" : "warn") : "down";
        label.textContent = ok ? (worker ? "healthy" : "no worker") : "unhealthy";
        el.title = "database: " + body.database + ", pgvector " + body.pgvector + ", worker " + (worker ? "seen" : "not seen");
      })
      .catch(function () { el.dataset.state = "down"; label.textContent = "offline"; });
  }
  check();
  setInterval(check, 30000);
})();
