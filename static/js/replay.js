// The run page: rebuild the tracker and the answer from the run's stored events, and replay them
// with their original timing (1×, 4×) or instantly.
(function () {
  "use strict";
  var A = window.Adrag;
  var el = A.el;
  var root = document.getElementById("replay");
  if (!root) return;
  var runId = root.dataset.runId;
  var view = new A.RunView(document.getElementById("run-view"), { idPrefix: "replay" });
  var speedSelect = document.getElementById("replay-speed");
  var replayButton = document.getElementById("replay-button");
  var stopButton = document.getElementById("replay-stop");
  var statusLine = document.getElementById("replay-status");
  var progress = document.getElementById("replay-progress");
  var events = [];
  var times = [];
  var timer = null;

  function setState(state, text) {
    root.dataset.replay = state;
    statusLine.textContent = text || "";
    replayButton.disabled = state === "playing" || !events.length;
    stopButton.hidden = state !== "playing";
  }

  function showProgress(done) {
    progress.max = Math.max(events.length, 1);
    progress.value = done;
  }

  // The final state: every event applied at its recorded time.
  function showFinal() {
    view.reset("This run has no answer.");
    view.setClock(Date.now);
    events.forEach(function (event, i) { view.apply(event.frame, times[i]); });
    showProgress(events.length);
  }

  function stop() {
    if (timer) clearTimeout(timer);
    timer = null;
  }

  function replay() {
    stop();
    if (!events.length) return;
    var speed = speedSelect.value;
    view.reset("Replaying…");
    if (speed === "instant") {
      showFinal();
      setState("done", "Replayed " + A.plural(events.length, "event") + " instantly.");
      return;
    }
    speed = Number(speed) || 1;
    var start = times[0];
    var total = times[times.length - 1] - start;
    var startedAt = performance.now();
    var virtualNow = function () { return start + (performance.now() - startedAt) * speed; };
    view.setClock(virtualNow);
    var next = 0;
    setState("playing", "Replaying at " + speed + "×…");
    function step() {
      var now = virtualNow();
      // Apply every event whose time has come; a timer that fired late catches up here.
      while (next < events.length && times[next] <= now) {
        view.apply(events[next].frame, times[next]);
        next += 1;
      }
      showProgress(next);
      statusLine.textContent = "Replaying at " + speed + "× · event " + next + " of " + events.length + " · " +
        A.formatDuration(Math.min(now, start + total) - start) + " of " + A.formatDuration(total);
      if (next >= events.length) {
        timer = null;
        setState("done", "Replay finished (" + speed + "×, " + A.plural(events.length, "event") + ").");
        return;
      }
      timer = setTimeout(step, Math.min(250, Math.max(0, (times[next] - now) / speed)));
    }
    step();
  }

  replayButton.addEventListener("click", replay);
  stopButton.addEventListener("click", function () {
    stop();
    showFinal();
    setState("stopped", "Replay stopped; showing the final state.");
  });

  function renderFacts(run) {
    document.getElementById("fact-duration").textContent = A.formatDuration(run.duration_ms);
    document.getElementById("fact-tokens").textContent = A.formatNumber(run.total_tokens);
    var badge = document.getElementById("run-status-badge");
    badge.className = "badge " + run.status;
    badge.textContent = run.status;
    var usage = run.usage || {};
    var body = document.querySelector("#usage-table tbody");
    A.clear(body);
    var stages = Object.keys(usage);
    if (!stages.length) A.append(body, el("tr", null, el("td", { colspan: 5, className: "muted", text: "No model calls were recorded." })));
    stages.forEach(function (stage) {
      var u = usage[stage] || {};
      A.append(body, el("tr", null, [
        el("td", { text: stage }),
        el("td", { className: "num", text: A.formatNumber(u.input_tokens) }),
        el("td", { className: "num", text: A.formatNumber(u.output_tokens) }),
        el("td", { className: "num", text: A.formatNumber(u.total_tokens) }),
        el("td", { className: "num", text: A.formatNumber(u.calls) })
      ]));
    });
    var timings = document.getElementById("timings");
    A.clear(timings);
    Object.keys(run.timings || {}).forEach(function (key) {
      A.append(timings, A.chip(key.replace(/_ms$/, "").replace(/_/g, " "), A.formatDuration(run.timings[key])));
    });
    document.getElementById("run-config").textContent = JSON.stringify(run.config || {}, null, 2);
    document.getElementById("live-link").hidden = ["queued", "running"].indexOf(run.status) === -1;
  }

  setState("loading", "Loading events…");
  A.api("/api/runs/" + encodeURIComponent(runId)).then(function (run) {
    events = (run.events || []).filter(function (event) { return event && event.frame; });
    times = events.map(function (event) { return Date.parse(event.time); });
    renderFacts(run);
    // The run page's other parts (feedback, re-run, lineage) build from the same record.
    document.dispatchEvent(new CustomEvent("adrag:run-loaded", { detail: run }));
    showFinal();
    if (!events.length) {
      setState("empty", "No events were recorded for this run yet.");
      return;
    }
    var span = times[times.length - 1] - times[0];
    setState("ready", A.plural(events.length, "event") + " over " + A.formatDuration(span) + ".");
  }).catch(function (err) {
    view.showError("The run could not be loaded: " + err.message, err.code);
    setState("error", "");
  });
})();
