// The header's health dot: green when the database and a worker for each queue answer, amber
// when a queue has no live worker (questions or uploads wait), red when the database is away.
(function () {
  var el = document.getElementById("health-dot");
  if (!el) return;
  var label = el.querySelector(".health-label");
  function idleQueues(body) {
    var queues = body.queues || {};
    return Object.keys(queues).filter(function (name) { return !queues[name].workers; });
  }
  function check() {
    fetch("/api/health", { headers: { Accept: "application/json" } })
      .then(function (res) { return res.json(); })
      .then(function (body) {
        var idle = idleQueues(body);
        if (body.status === "healthy") {
          el.dataset.state = "ok";
          label.textContent = "healthy";
        } else if (body.status === "degraded") {
          el.dataset.state = "warn";
          label.textContent = "no " + idle.join(", ") + " worker";
        } else {
          el.dataset.state = "down";
          label.textContent = "unhealthy";
        }
        var parts = ["database: " + body.database];
        Object.keys(body.queues || {}).forEach(function (name) {
          parts.push(name + " workers: " + body.queues[name].workers);
        });
        if (body.local_model && body.local_model.warm_up) {
          parts.push("local model: " + (body.local_model.ready ? "ready" : "not ready"));
        }
        el.title = parts.join(", ");
      })
      .catch(function () { el.dataset.state = "down"; label.textContent = "offline"; });
  }
  check();
  setInterval(check, 30000);
})();
